"""Claims of "Initialisation and scale" about Fixup's rescaling."""

import inspect
import math
import statistics

import pytest

from sitekit.margins import above, below
from snippets.initialisation import fixup as snippet

PAGE = "module/initialisation.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


BOUND, EXPLODED, BY = 20, 1e10, 32


def bounded(growth: list[dict[int, dict[int, float]]]) -> None:
    """E[h_L²]/E[x²] below 20 for every seed, m and L (the expected value (1 + 2/L)^L never reaches e² ≈ 7.39)."""
    values = [g for run in growth for row in run.values() for g in row.values()]
    below("E[h_L²] / E[x²], every m and L", values, BOUND)


def exploded(growth: list[dict[int, dict[int, float]]]) -> None:
    """E[h_L²]/E[x²] above 1e10 at L = 32, for every seed and m."""
    above(f"E[h_L²] / E[x²] at L = {BY}, every m", [run[m][BY] for run in growth for m in snippet.LAYERS], EXPLODED)


@pytest.mark.claim(
    "Fixup stacks are exactly the identity at init; once every last layer holds He-sized weights, the stream's "
    "second moment stays below 20× the input's up to L = 128 branches with the L^(-1/(2m-2)) rescaling, "
    "and exceeds 1e10× by L = 32 without it (m = 2 and 3, 5 seeds).",
    page=PAGE,
)
def test_fixup_rescaling_keeps_stream_bounded(claim, results):
    assert all(r.identity_at_init for r in results)  # torch.equal(stack(x), x) before the last layers leave 0
    fixup = [r.growth["fixup"] for r in results]
    unscaled = [r.growth["unscaled"] for r in results]
    claim.check(bounded, fixup)
    claim.rejects(bounded, unscaled, because="the same stacks without the rescaling")
    claim.check(exploded, unscaled)
    claim.rejects(exploded, fixup, because="the same stacks with the rescaling")
    rows = []
    for L in snippet.DEPTHS:
        row = [L, (1 + 2 / L) ** L]
        for rule in ("fixup", "unscaled"):
            for m in snippet.LAYERS:
                row.append(statistics.median(r.growth[rule][m][L] for r in results))
        rows.append(row)
    cols = ["branches L", "predicted (1 + 2/L)^L", "Fixup m=2", "Fixup m=3", "unscaled m=2", "unscaled m=3"]
    claim.record(
        table={"columns": cols, "rows": rows},
        worst_fixup=max(g for r in results for row in r.growth["fixup"].values() for g in row.values()),
        e_squared=math.e**2,
        scale_m2_L128=snippet.fixup_scale(128, 2),
        scale_m3_L128=snippet.fixup_scale(128, 3),
        bound=BOUND,
        exploded=EXPLODED,
        exploded_by=BY,
        layers=list(snippet.LAYERS),
        seeds=len(results),
        scale_at=128,
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )
