"""Claims of the Measured costs page about the residual add next to the branch it wraps."""

import math
import statistics

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from benchmarks import store
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
    """(branch FLOPs, add FLOPs) per width, both counted by torch while the whole block runs."""
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
        assert snippet.branch_flops(block, x) == sum(ops.values())  # the listing's count of the branch
        assert snippet.add_flops(x) == add  # the listing's N·d
        out[d] = (sum(ops.values()), add)
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
    """The counterfactual, run: the branch's first Linear(d, 4d) timed and counted where the add was,
    with the snippet's own timer on one thread (a compute-bound operation as heavy as a layer)."""
    torch.manual_seed(seed)
    block = ResidualBlock(d, expansion=4).to(device)
    x = torch.randn(tokens, d, device=device)  # (N, d)
    layer = block.branch[0]
    with FlopCounterMode(display=False) as counter:
        layer(x)
    with snippet.one_thread(device):
        tb, tl = snippet.paired_times(lambda: block.branch(x), lambda: layer(x), device, rounds)
    return snippet.Row(d, tokens, snippet.branch_flops(block, x), counter.get_total_flops(), tb, tl)


def as_sweep_table(rows: list[snippet.Row]) -> dict:
    """Rows laid out as the sweep records them: d, FLOP share, time share, their ratio."""
    out = [[r.d, r.flop_share, r.time_share, r.time_share / r.flop_share] for r in rows]
    return {"columns": ["d", "FLOP share", "time share", "time / FLOP share"], "rows": out}


@pytest.fixture(scope="module")
def layer_in_place_of_add(device, seeds):
    return [layer_as_add(device, d=D, tokens=N, rounds=ROUNDS, seed=s) for s in seeds(3)]


def small_but_memory_bound(bound: float):
    def check(rows: list[snippet.Row]) -> None:
        below("add time / branch time", [r.time_share for r in rows], bound)
        above("add's time share / its FLOP share", [r.time_share / r.flop_share for r in rows], EXCESS)

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
    "time, yet over 5× its FLOP share, in each of 3 seeds: an add does one FLOP per 12 bytes it moves.",
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


def sweep_is_memory_bound(by_width: dict, by_tokens: dict) -> None:
    above("time share / FLOP share, across widths", [r[3] for r in by_width["rows"]], EXCESS)
    above("time share / FLOP share, across batch sizes", [r[3] for r in by_tokens["rows"]], EXCESS)


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
    claim.check(sweep_is_memory_bound, table, by_tokens)
    layers = as_sweep_table(
        [layer_as_add(device, d, values["tokens"], rounds=3, seed=seeds.first()) for d in LAYER_WIDTHS]
    )
    claim.rejects(
        sweep_is_memory_bound,
        layers,
        by_tokens,
        because="the branch's first Linear(d, 4d) in the add's place, timed the same way",
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
