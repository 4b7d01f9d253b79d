"""Claims of the Measured costs page about the residual add next to the branch it wraps."""

import math

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from benchmarks import store
from snippets.costs import add_share as snippet
from snippets.residual_block.identity_shortcut import ResidualBlock
from tests.costs import display

PAGE = "costs.md"
WIDTHS, TOKENS = (64, 256, 1024), 8


# The add's share of forward time at d = 1024, N = 256, with the margin each device needs:
# on CPU a memory-bound add of 1 MB takes ~0.1-0.2% of the branch's time (one thread, CPU time);
# on a GPU each of the branch's 3 kernels and the add's 1 each pay a few µs to launch, which the
# branch's 4 GFLOP barely covers, so the add's share is larger there.
TIME_SHARE_BOUND = {"cpu": 0.02, "cuda": 0.25}
EXCESS = 5  # the time share exceeds the FLOP share more than this many times
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
def timed(device):
    return snippet.measure(device, seed=0, widths=(1024,), tokens=256, rounds=5)[0]


@torch.no_grad()
def layer_as_add(device: str, d: int, tokens: int, rounds: int) -> snippet.Row:
    """The counterfactual, run: the branch's first Linear(d, 4d) timed and counted where the add was,
    with the snippet's own timer on one thread (a compute-bound operation as heavy as a layer)."""
    torch.manual_seed(0)
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
def layer_in_place_of_add(device):
    return layer_as_add(device, d=1024, tokens=256, rounds=5)


@pytest.mark.claim(
    "At d = 1024 and N = 256 the add takes a small share of the branch's time (under 2% on CPU, under 25% "
    "on CUDA), yet over 5× its FLOP share: an add does one FLOP per 12 bytes it moves.",
    page=PAGE,
)
def test_add_time_share_is_small_but_exceeds_flop_share(claim, device, timed, layer_in_place_of_add):
    bound = TIME_SHARE_BOUND[device]

    def small_but_memory_bound(time_share: float, flop_share: float) -> None:
        assert time_share < bound, f"add takes {time_share:.2%} of the branch's time"
        assert time_share > EXCESS * flop_share, f"time share {time_share:.2e} vs FLOP share {flop_share:.2e}"

    claim.check(small_but_memory_bound, timed.time_share, timed.flop_share)
    layer = layer_in_place_of_add
    claim.rejects(
        small_but_memory_bound,
        layer.time_share,
        layer.flop_share,
        because="the branch's first Linear(d, 4d) timed in the add's place: compute-bound, as slow as a layer",
    )
    claim.record(
        d=timed.d,
        tokens=timed.tokens,
        time_share=timed.time_share,
        flop_share=timed.flop_share,
        excess=timed.time_share / timed.flop_share,
        add_us=timed.add_s * 1e6,
        branch_ms=timed.branch_s * 1e3,
        bound=bound,
        bounds=TIME_SHARE_BOUND,
        factor=EXCESS,
        bytes_per_flop=BYTES_PER_ADD,
        layer_time_share=layer.time_share,
        layer_flop_share=layer.flop_share,
    )


LAYER_WIDTHS = (64, 256, 1024)  # where the counterfactual of the sweep claim is timed


def sweep_is_memory_bound(table: dict) -> None:
    for d, flop_share, time_share, *_ in table["rows"]:
        assert time_share > EXCESS * flop_share, (d, flop_share, time_share)


@pytest.mark.claim(
    "In the committed benchmark the add's share of time exceeds its FLOP share more than 5× at every width "
    "(d = 64 to 2048, N = 256) and at every batch size (N = 16 to 4096, d = 1024).",
    page=PAGE,
)
def test_add_share_benchmark_sweep(claim, device):
    record = store.load(device, "add_share")
    values = record["values"]
    table, by_tokens = values["table"], values["tokens_table"]
    claim.check(sweep_is_memory_bound, table)
    claim.check(sweep_is_memory_bound, by_tokens)
    layers = as_sweep_table([layer_as_add(device, d, values["tokens"], rounds=3) for d in LAYER_WIDTHS])
    claim.rejects(
        sweep_is_memory_bound, layers, because="the branch's first Linear(d, 4d) in the add's place, timed the same way"
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
