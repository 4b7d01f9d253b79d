"""Claims of the Measured costs page about the residual add next to the branch it wraps."""

import math
import statistics
from types import SimpleNamespace

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from benchmarks import store
from sitekit import runs
from sitekit.margins import above, below
from snippets.costs import add_share as snippet
from snippets.residual_block.identity_shortcut import ResidualBlock
from tests.costs import display, machines

PAGE = "costs.md"
WIDTHS, TOKENS = (64, 256, 1024), 8
D, N, ROUNDS = 1024, 256, 5  # the quick timing: one width, one batch, 5 alternating rounds per seed

# What the thresholds follow from (not from a value seen). An add moves 12 bytes per FLOP (read x and
# F(x), write y); the branch does 16·N·d² FLOPs on 12·N·d bytes of activations, reusing each weight N
# times. Its time share is therefore (12·N·d / B) / (16·N·d² / F) = (3/4)·(F/B)/d, with F the branch's
# FLOP rate and B the add's bytes per second, and time share / FLOP share = 12·F/B.
# - Under 2 % at d = 1024 means F/B < 27 FLOPs per byte: a single x86 core's matrix product (tens of
#   GFLOP/s, Intel or AMD) against its bandwidth for 3 MB (tens of GB/s) sits near 1 FLOP per byte.
# - Over 5× the FLOP share means F/B > 5/12 of a FLOP per byte: above it on any core whose matrix
#   product outruns its memory by half a FLOP per byte, which a vectorised product does several times over.
TIME_SHARE_BOUND = 0.02
EXCESS = 5  # the time share exceeds the FLOP share more than this many times
# On CUDA (not run yet): the branch launches 3 kernels and the add 1, so were both bound by launches
# alone the add would take a third of the time; under a quarter says the branch's 4 GFLOP outweigh them.
CUDA_TIME_SHARE_BOUND = 0.25
BYTES_PER_ADD = 3 * torch.finfo(torch.float32).bits // 8  # read x and F(x), write y


def elementwise(*shapes: torch.Size, out_shape: torch.Size, **_: object) -> int:
    """One FLOP per element an elementwise op writes (torch's FLOP counter leaves such ops out)."""
    return math.prod(out_shape)


def counted_flops(expansion: int, widths=WIDTHS, tokens=TOKENS) -> dict[int, tuple[int, int]]:
    """(branch FLOPs, add FLOPs) per width: the listing's counts, run (sitekit.runs), and checked against
    torch's counter over the whole block, add included."""
    out = {}
    for d in widths:
        # FLOPs follow from shapes alone: count on the meta device, which allocates nothing.
        with torch.device("meta"):
            block = ResidualBlock(d, expansion)
            x = torch.zeros(tokens, d)
        with FlopCounterMode(display=False, custom_mapping={torch.ops.aten.add: elementwise}) as counter:
            block(x)
        ops = counter.get_flop_counts()["Global"]
        add = ops.pop(torch.ops.aten.add, 0)
        branch, adds = runs.run(snippet.branch_flops, block, x), runs.run(snippet.add_flops, x)
        assert branch == sum(ops.values()), (d, branch, ops)  # the listing's count of the branch
        assert adds == add, (d, adds, add)  # the listing's N·d is the one add the block runs
        out[d] = (branch, adds)
    return out


def shares_are_one_over_16d(counted: dict[int, tuple[int, int]], tokens: int = TOKENS) -> None:
    for d, (branch, add) in counted.items():
        assert branch == 16 * tokens * d * d, (d, branch)
        assert add == tokens * d, (d, add)


@pytest.mark.claim(
    "Counted by torch, the MLP branch (d -> 4d -> d) costs exactly 16·N·d² FLOPs and the add N·d, "
    "so the add's FLOP share is 1/(16d) at every width tried (d = 64, 256, 1024).",
    page=PAGE,
    device_independent="counted on the meta device: shapes only, no arithmetic runs",
    exact="integer FLOP counts equal 16·N·d² and N·d",
)
def test_add_flop_share_is_one_over_16d(claim):
    counted = counted_flops(expansion=4)
    claim.check(shares_are_one_over_16d, counted)
    claim.rejects(shares_are_one_over_16d, counted_flops(expansion=1), because="an expansion-1 branch")
    claim.record(
        table={
            "columns": ["d", "branch FLOPs per token", "add FLOPs per token", "add / branch"],
            "rows": [[d, b // 8, a // 8, display.sig(a / b)] for d, (b, a) in counted.items()],
        },
        share_1024=counted[1024][1] / counted[1024][0],
        widths=list(WIDTHS),
        bytes_per_add_flop=3 * torch.finfo(torch.float32).bits // 8,  # reads two numbers, writes one
    )


@pytest.fixture(scope="module")
def timed(device, seeds):
    return [snippet.measure(device, seed=s, widths=(D,), tokens=N, rounds=ROUNDS)[0] for s in seeds(3)]


@torch.no_grad()
def layer_as_add(device: str, d: int, tokens: int, rounds: int, seed: int) -> snippet.Row:
    """The counterfactual, run by the listing's own code (sitekit.runs): the branch's first Linear(d, 4d) timed
    where the add was, by the snippet's timer on one thread, and counted by the snippet's FLOP counter (a
    compute-bound operation as heavy as a layer). Its row holds raw counts and seconds, as the add's does."""
    torch.manual_seed(seed)
    block = ResidualBlock(d, expansion=4).to(device)
    x = torch.randn(tokens, d, device=device)  # (N, d)
    layer = block.branch[0]
    with snippet.one_thread(device):
        tb, tl = runs.run(snippet.paired_times, lambda: block.branch(x), lambda: layer(x), device, rounds)
    branch = runs.run(snippet.branch_flops, block, x)
    # branch_flops counts whatever `.branch` computes: handed the first layer as the branch, it counts that layer.
    first = runs.run(snippet.branch_flops, SimpleNamespace(branch=layer), x)
    return snippet.Row(d, tokens, branch, first, tb, tl)


@pytest.fixture(scope="module")
def layer_in_place_of_add(device, seeds):
    return [layer_as_add(device, d=D, tokens=N, rounds=ROUNDS, seed=s) for s in seeds(3)]


def small_but_memory_bound(bound: float):
    """The add's rows (or the counterfactual's): time share over FLOP share above EXCESS, then time share below
    `bound`, both computed here from the raw counts and seconds. The multiple comes first so that a compute-bound
    operation in the add's place is recorded as missing it (honesty audit 2.15: 5× is the line between a
    memory-bound operation, at 12·F/B times its FLOP share, and a compute-bound one, at about its FLOP share)."""

    def check(rows: list[snippet.Row]) -> None:
        above("add's time share / its FLOP share", [r.time_share / r.flop_share for r in rows], EXCESS)
        below("add time / branch time", [r.time_share for r in rows], bound)

    return check


def record_timing(claim, timed: list[snippet.Row], layer: list[snippet.Row], bound: float) -> None:
    claim.record(
        d=timed[0].d,
        tokens=timed[0].tokens,
        seeds=len(timed),
        rounds=ROUNDS,
        time_share=statistics.median(r.time_share for r in timed),
        flop_share=timed[0].flop_share,
        excess=statistics.median(r.time_share / r.flop_share for r in timed),
        add_us=statistics.median(r.add_s for r in timed) * 1e6,
        branch_ms=statistics.median(r.branch_s for r in timed) * 1e3,
        bound=bound,
        factor=EXCESS,
        bytes_per_flop=BYTES_PER_ADD,
        layer_time_share=statistics.median(r.time_share for r in layer),
        layer_flop_share=layer[0].flop_share,
    )


@pytest.mark.claim(
    "On one thread of an x86 CPU (Intel or AMD), at d = 1024 and N = 256 the add takes under 2% of the branch's "
    "time, yet over 5× its FLOP share, in each of 3 seeds: an add does one FLOP per 12 bytes it moves, while the "
    "branch's first layer, timed in the add's place, stays below 5× its FLOP share.",
    page=PAGE,
    cpu_only="it times one CPU thread; add_time_share_on_cuda_stays_under_a_quarter states the CUDA bound",
)
def test_add_time_share_is_small_but_exceeds_flop_share(claim, device, timed, layer_in_place_of_add):
    machines.require_x86("add_time_share_is_small_but_exceeds_flop_share")
    check = small_but_memory_bound(TIME_SHARE_BOUND)
    claim.check(check, timed)
    claim.rejects(
        check,
        layer_in_place_of_add,
        because="the branch's first Linear(d, 4d) timed in the add's place: compute-bound, as slow as a layer",
    )
    record_timing(claim, timed, layer_in_place_of_add, TIME_SHARE_BOUND)


@pytest.mark.claim(
    "On CUDA, at d = 1024 and N = 256 the add takes under 25% of the branch's time, yet over 5× its FLOP share, "
    "in each of 3 seeds.",
    page=PAGE,
    cuda_only="the add's time share on a GPU, where every kernel launch costs microseconds however little it computes",
)
def test_add_time_share_on_cuda_stays_under_a_quarter(claim, device, timed, layer_in_place_of_add):
    check = small_but_memory_bound(CUDA_TIME_SHARE_BOUND)
    claim.check(check, timed)
    claim.rejects(check, layer_in_place_of_add, because="the branch's first Linear(d, 4d) timed in the add's place")
    record_timing(claim, timed, layer_in_place_of_add, CUDA_TIME_SHARE_BOUND)


LAYER_WIDTHS = (64, 256, 1024)  # where the counterfactual of the sweep claim is timed


def shares(row: list[float] | snippet.Row) -> tuple[float, float]:
    """(FLOP share, time share) of a committed sweep row (columns 1 and 2, which the sweep filled from its Rows'
    properties) or of a Row run here (those properties themselves)."""
    return (row.flop_share, row.time_share) if isinstance(row, snippet.Row) else (row[1], row[2])


def sweep_is_memory_bound(by_width: list, by_tokens: list) -> None:
    """Rows across widths and across batch sizes: the time share over the FLOP share, computed here, above EXCESS."""
    for what, rows in (("widths", by_width), ("batch sizes", by_tokens)):
        above(f"time share / FLOP share, across {what}", [t / f for f, t in map(shares, rows)], EXCESS)


@pytest.mark.claim(
    "In the benchmark committed from an AMD EPYC (one thread), the add's share of time exceeds its FLOP share more "
    "than 5× at every width (d = 64 to 2048, N = 256) and at every batch size (N = 16 to 4096, d = 1024).",
    page=PAGE,
    cpu_only="the sentence is about the committed CPU sweep (results/bench-cpu.json) and the CPU it ran on",
)
def test_add_share_benchmark_sweep(claim, device, seeds):
    record = store.load(device, "add_share", machine=machines.AMD_EPYC)
    values = record["values"]
    table, by_tokens = values["table"], values["tokens_table"]
    claim.check(sweep_is_memory_bound, table["rows"], by_tokens["rows"])
    # The committed sweep holds no counterfactual, and one cannot be added to it without changing the snippet's
    # sweep(), which the sweep's hash covers (honesty audit 6.12). So the counterfactual is timed here, by the same
    # snippet timer on one thread, at the sweep's batch size and rounds: a different machine where the claims run
    # elsewhere, but its ratio (a matrix product's time share over its FLOP share against another matrix product)
    # does not rest on the processor's balance of memory and arithmetic as the add's does.
    rounds = store.SWEEPS["add_share"]["rounds"]
    layers = [layer_as_add(device, d, values["tokens"], rounds=rounds, seed=seeds.first()) for d in LAYER_WIDTHS]
    claim.rejects(
        sweep_is_memory_bound,
        layers,
        by_tokens["rows"],
        because="the branch's first Linear(d, 4d) in the add's place, timed here the same way",
    )
    rows = table["rows"]
    claim.record(
        table=display.rounded(table),
        tokens_table=display.rounded(by_tokens),
        provenance=display.provenance(record),
        tokens=values["tokens"],
        width=values["width"],
        max_time_share=max(r[2] for r in rows),
        tokens_min_share=min(r[2] for r in by_tokens["rows"]),
        tokens_max_share=max(r[2] for r in by_tokens["rows"]),
        min_excess=min(r[3] for r in rows + by_tokens["rows"]),
        max_excess=max(r[3] for r in rows + by_tokens["rows"]),
        factor=EXCESS,
    )
