"""Claims of the Measured costs page about narrow-deep against wide-shallow stacks."""

import pytest

from benchmarks import store
from snippets.costs import depth_width as snippet
from tests.costs import display

PAGE = "costs.md"


PARAMETER_TOLERANCE = 0.002


def same_budget(a: snippet.Budget, b: snippet.Budget) -> None:
    assert a.flops_per_token == b.flops_per_token, (a, b)
    assert abs(a.parameters / b.parameters - 1) < PARAMETER_TOLERANCE, (a, b)


@pytest.mark.claim(
    "The narrow-deep stack (d = 256, 64 blocks) and the wide-shallow one (d = 1024, 4 blocks) have the same "
    "forward FLOPs per token, counted by torch, and parameter counts within 0.2% (the biases differ).",
    page=PAGE,
    device_independent="counted on the meta device: shapes only, no arithmetic runs",
)
def test_narrow_deep_and_wide_shallow_cost_the_same_flops(claim):
    narrow, wide = (snippet.budget(d, L) for d, L in snippet.SHAPES.values())
    claim.check(same_budget, narrow, wide)
    claim.rejects(same_budget, snippet.budget(256, 16), wide, because="a quarter of the narrow depth")
    claim.record(
        narrow=narrow,
        wide=wide,
        param_ratio=narrow.parameters / wide.parameters,
        tolerance=PARAMETER_TOLERANCE,
        depth_ratio=narrow.depth / wide.depth,
    )


def wide_faster_from(table: dict, smallest: int) -> None:
    for n, narrow, wide, ratio in table["rows"]:
        if n >= smallest:
            assert ratio > 1, f"N={n}: wide-shallow {wide:.0f} vs narrow-deep {narrow:.0f} tokens/s"


# The batch size from which the page says the wide stack wins. On one CPU thread at N = 16 and 64
# each weight is used for only a few tokens and the two stacks are close: the sweep committed on
# 2026-11-29 had wide ahead at N = 64 (1.18x), four runs on 2026-11-30 had it behind (0.88-0.95x),
# so the CPU claim starts at 256. A GPU's per-kernel launch cost, paid 16 times more often by the
# deep stack, should favour wide throughout.
SMALLEST = {"cpu": 256, "cuda": 16}


@pytest.mark.claim(
    "In the committed benchmark the wide-shallow stack trains on more tokens per second than the narrow-deep one "
    "at every batch from N = 256 to 1024 on CPU (one thread), and at every batch from N = 16 on CUDA.",
    page=PAGE,
)
def test_depth_width_benchmark_throughput(claim, device):
    record = store.load(device, "depth_width")
    table = record["values"]["table"]
    claim.check(wide_faster_from, table, SMALLEST[device])
    doubled = record["values"]["doubled_table"]
    claim.rejects(
        wide_faster_from,
        doubled,
        SMALLEST[device],
        because="the wide stack at twice its depth (d = 1024, 8 blocks), timed in the same sweep",
    )
    ratios = [row[3] for row in table["rows"] if row[0] >= SMALLEST[device]]
    claim.record(
        table=display.rounded(table),
        provenance=display.provenance(record),
        shapes={name: {"width": d, "blocks": blocks} for name, (d, blocks) in snippet.SHAPES.items()},
        smallest=SMALLEST[device],
        min_ratio=min(ratios),
        max_ratio=max(ratios),
        below=", ".join(f"{row[3]:.2f} at N = {row[0]}" for row in table["rows"] if row[0] < SMALLEST[device]),
        speedup_large_batch=table["rows"][-1][1] / table["rows"][0][1],
    )
