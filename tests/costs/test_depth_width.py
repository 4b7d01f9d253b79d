"""Claims of the Measured costs page about narrow-deep against wide-shallow stacks."""

import math

import pytest

from benchmarks import store
from sitekit import runs
from sitekit.margins import above, below, between
from snippets.costs import depth_width as snippet
from tests.costs import display, machines

PAGE = "costs.md"


PARAMETER_TOLERANCE = 0.002


def same_budget(a: snippet.Budget, b: snippet.Budget) -> None:
    assert a.flops_per_token == b.flops_per_token, (a, b)
    below("narrow / wide parameter count, off 1", abs(a.parameters / b.parameters - 1), PARAMETER_TOLERANCE)


@pytest.mark.claim(
    "The narrow-deep stack (d = 256, 64 blocks) and the wide-shallow one (d = 1024, 4 blocks) have the same "
    "forward FLOPs per token, counted by torch, and parameter counts within 0.2% (the biases differ).",
    page=PAGE,
    device_independent="counted on the meta device: shapes only, no arithmetic runs",
    exact="integer counts fixed by the shapes: equal FLOPs, and 5·d biases per block the only difference",
)
def test_narrow_deep_and_wide_shallow_cost_the_same_flops(claim):
    narrow, wide = (runs.run(snippet.budget, d, L) for d, L in snippet.SHAPES.values())
    claim.check(same_budget, narrow, wide)
    quarter = runs.run(snippet.budget, narrow.d, narrow.depth // 4)  # the counterfactual, counted the same way
    claim.rejects(same_budget, quarter, wide, because="a quarter of the narrow depth")
    claim.record(
        narrow=narrow,
        wide=wide,
        param_ratio=narrow.parameters / wide.parameters,
        tolerance=PARAMETER_TOLERANCE,
        depth_ratio=narrow.depth / wide.depth,
    )


# What "equal work takes about equal time" means here, from the counterfactual rather than from a run:
# were training time proportional to FLOPs, the two stacks would train at the same speed (ratio 1) and
# the wide stack at twice its depth (twice the FLOPs) at half the narrow one's (ratio 1/2). A ratio within
# √2 of 1, the geometric midpoint of 1 and 2, is nearer the equal-FLOPs prediction than the doubled one.
WITHIN = math.sqrt(2)


def within_root2(same_flops: dict) -> None:
    """Equal FLOPs: wide / narrow tokens per second within √2 of 1 at every batch size."""
    between("wide / narrow tokens per second, equal FLOPs", [r[3] for r in same_flops["rows"]], 1 / WITHIN, WITHIN)


def wide_slower(table: dict) -> None:
    """The wide stack trains on fewer tokens per second than the narrow one at every batch size."""
    below("wide / narrow tokens per second", [r[3] for r in table["rows"]], 1)


@pytest.mark.claim(
    "In the benchmark committed from an Intel Xeon (one CPU thread), training throughput follows FLOPs: at equal "
    "FLOPs the wide-shallow and the narrow-deep stack train within a factor of 1.41 of each other in tokens per "
    "second at every batch size from N = 16 to 1024, and the wide stack at twice its depth (twice the FLOPs) "
    "trains slower than the narrow one at every batch size.",
    page=PAGE,
    cpu_only="the sentence is about the committed CPU sweep and the CPU it ran on; "
    "wide_shallow_trains_faster_on_cuda states the CUDA expectation",
)
def test_depth_width_benchmark_throughput(claim, device):
    record = store.load(device, "depth_width", machine=machines.INTEL_XEON)
    table, doubled = record["values"]["table"], record["values"]["doubled_table"]
    shapes = record["values"]["doubled"]  # the shapes the sweep timed as the doubled pair
    d, blocks = shapes["wide-shallow"]
    # The sweep ran two configurations, and each half of the sentence is about one of them; each half's check is
    # shown to fail on the other configuration, timed in the same sweep (honesty audit: the two tables passed to
    # one check in exchanged places were no run).
    claim.check(within_root2, table)
    claim.rejects(
        within_root2,
        doubled,
        because=f"the wide stack at twice its depth (d = {d}, {blocks} blocks, twice the FLOPs), in the same sweep",
    )
    claim.check(wide_slower, doubled)
    claim.rejects(wide_slower, table, because="the two stacks at equal FLOPs, timed in the same sweep")
    ratios = [row[3] for row in table["rows"]]
    budgets = {name: runs.run(snippet.budget, d, blocks) for name, (d, blocks) in snippet.SHAPES.items()}
    doubled_budget = runs.run(snippet.budget, *shapes["wide-shallow"])
    claim.record(
        table=display.rounded(table),
        doubled_table=display.rounded(doubled),
        provenance=display.provenance(record),
        shapes={name: {"width": d, "blocks": blocks} for name, (d, blocks) in snippet.SHAPES.items()},
        doubled_shapes={name: {"width": d, "blocks": blocks} for name, (d, blocks) in shapes.items()},
        doubled_flops_ratio=doubled_budget.flops_per_token / budgets["wide-shallow"].flops_per_token,
        doubled_depth_ratio=shapes["wide-shallow"][1] / snippet.SHAPES["wide-shallow"][1],
        within=WITHIN,
        smallest=table["rows"][0][0],
        largest=table["rows"][-1][0],
        min_ratio=min(ratios),
        max_ratio=max(ratios),
        doubled_max_ratio=max(row[3] for row in doubled["rows"]),
        speedup_large_batch=table["rows"][-1][1] / table["rows"][0][1],
    )


def wide_faster(table: dict) -> None:
    above("wide / narrow tokens per second", [r[3] for r in table["rows"]], 1)


@pytest.mark.claim(
    "In the benchmark committed from a CUDA GPU, the wide-shallow stack trains on more tokens per second than the "
    "narrow-deep one at every batch size from N = 16 to 1024: the deep stack launches 16 times as many kernels.",
    page=PAGE,
    cuda_only="on a GPU each kernel launch costs microseconds, and the narrow-deep stack launches 16× as many",
)
def test_wide_shallow_trains_faster_on_cuda(claim, device):
    record = store.load(device, "depth_width")
    table, doubled = record["values"]["table"], record["values"]["doubled_table"]
    claim.check(wide_faster, table)
    # The counterfactual, run in the same sweep: the wide stack at twice its depth, still 8× fewer launches than the
    # narrow one but twice the FLOPs, which should lose where the batch is large enough to be bound by arithmetic.
    # (Not run on a GPU yet: should it win at every batch size too, this claim fails here and must be restated.)
    claim.rejects(
        wide_faster, doubled, because="the wide stack at twice its depth (twice the FLOPs), timed in the same sweep"
    )
    claim.record(
        table=display.rounded(table),
        provenance=display.provenance(record),
        smallest=table["rows"][0][0],
        largest=table["rows"][-1][0],
        depth_ratio=snippet.SHAPES["narrow-deep"][1] / snippet.SHAPES["wide-shallow"][1],
        min_ratio=min(row[3] for row in table["rows"]),
    )
