"""Claims of the Measured costs page about narrow-deep against wide-shallow stacks."""

import pytest

from benchmarks import store
from snippets.costs import depth_width as snippet

PAGE = "costs.md"


def sig(x: float, digits: int = 3) -> float:
    """x rounded to a few significant digits, as the page shows it."""
    r = float(f"{x:.{digits}g}")
    return int(r) if r.is_integer() else r


def rounded(table: dict) -> dict:
    return {"columns": table["columns"], "rows": [[r[0], *(sig(v) for v in r[1:])] for r in table["rows"]]}


def same_budget(a: snippet.Budget, b: snippet.Budget) -> None:
    assert a.flops_per_token == b.flops_per_token, (a, b)
    assert abs(a.parameters / b.parameters - 1) < 0.002, (a, b)


@pytest.mark.claim(
    "The narrow-deep stack (d = 256, 64 blocks) and the wide-shallow one (d = 1024, 4 blocks) have the same "
    "forward FLOPs per token, counted by torch, and parameter counts within 0.2% (the biases differ).",
    page=PAGE,
)
def test_narrow_deep_and_wide_shallow_cost_the_same_flops(claim):
    narrow, wide = (snippet.budget(d, L) for d, L in snippet.SHAPES.values())
    same_budget(narrow, wide)
    claim.rejects(same_budget, snippet.budget(256, 16), wide, because="a quarter of the narrow depth")
    claim.record(
        narrow=narrow,
        wide=wide,
        param_ratio=narrow.parameters / wide.parameters,
    )


def wide_not_slower(table: dict, margin: float) -> None:
    for n, narrow, wide, ratio in table["rows"]:
        assert ratio > margin, f"N={n}: wide-shallow {wide:.0f} vs narrow-deep {narrow:.0f} tokens/s"


# The page's sentence: wider layers run faster per token at every batch size measured.
MARGIN = {"cpu": 1.0, "cuda": 1.0}


@pytest.mark.claim(
    "In the committed benchmark the wide-shallow stack trains on more tokens per second than the narrow-deep one "
    "at every batch size measured (N = 16 to 1024).",
    page=PAGE,
)
def test_depth_width_benchmark_throughput(claim, device):
    record = store.load(device, "depth_width")
    table = record["values"]["table"]
    wide_not_slower(table, MARGIN[device])
    halved = {"columns": table["columns"], "rows": [[n, a, b / 2, 0.5 * r] for n, a, b, r in table["rows"]]}
    claim.rejects(wide_not_slower, halved, MARGIN[device], because="a wide stack at half the measured throughput")
    ratios = [row[3] for row in table["rows"]]
    claim.record(
        table=rounded(table),
        provenance={**record["provenance"], "date": record["provenance"]["date"][:10]},
        min_ratio=min(ratios),
        max_ratio=max(ratios),
    )
