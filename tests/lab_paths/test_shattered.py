"""Claims of Lab 1 about the correlation of neighbouring input gradients in the degradation miniature's nets (5
seeds)."""

import statistics

import pytest

from sitekit.margins import above, below
from snippets.lab_paths import shattered as snippet

PAGE = "module/lab-why-it-trains.md"
EXPERIMENT = "differentiates 12 nets at initialisation along 8 lines of 1,024 points each (5 seeds)"
# At initialisation, no training, but the plain net's |r| is near zero (about 0.02): under ATEN_CPU_CAPABILITY=default
# its median moved by 16% (the residual net's r by 8e-5). The tolerance covers about twice that.
TOLERANCE = 0.35
DEPTH = 16
CORRELATED, SHATTERED = 0.5, 0.25  # r above this stays correlated; |r| below this is noise


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def at(runs, kind: str, depth: int) -> list[float]:
    return [r.r[kind][depth] for r in runs]


@pytest.mark.claim(
    "At initialisation, at 16 blocks, the gradients of the degradation miniature's plain BN net at neighbouring "
    "inputs are uncorrelated (|r| below 0.25, r averaged over 8 random lines through the input space, in every "
    "one of 5 seeds), while the residual net's stay correlated: r above 0.5 in the median over the seeds, and "
    "above 0.25 in every one.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_residual_gradients_do_not_shatter(claim, runs):
    # "Stays correlated" is a property of the architecture, so its bound is on the median over the seeds (one
    # random net's r scatters with its weights: 0.59 to 0.73 across the seed sets run); no single net may
    # come near the shattered side either. Changed from "r above 0.5 in every seed" after an unseen seed
    # set's worst net cleared 0.5 by 18 %, under the margin floor.
    def correlated(r: list[float]) -> None:
        above("median neighbour correlation r over the seeds", statistics.median(r), CORRELATED)
        above("neighbour correlation r, each seed", r, SHATTERED)

    def shattered(r: list[float]) -> None:
        below("|neighbour correlation r|", [abs(v) for v in r], SHATTERED)

    claim.check(correlated, at(runs, "residual", DEPTH))
    claim.check(shattered, at(runs, "plain", DEPTH))
    claim.rejects(correlated, at(runs, "plain", DEPTH), because="the plain net")
    claim.rejects(shattered, at(runs, "residual", DEPTH), because="the residual net")
    rows = []
    for L in snippet.DEPTHS:
        p, q = at(runs, "plain", L), at(runs, "residual", L)
        rows.append([str(L), statistics.median(p), min(p), max(p), statistics.median(q), min(q), max(q)])
    cols = ["depth L", "plain median", "plain min", "plain max", "residual median", "residual min", "residual max"]
    claim.record(
        table={"columns": cols, "rows": rows},
        depth=DEPTH,
        correlated=CORRELATED,
        shattered=SHATTERED,
        plain=statistics.median(at(runs, "plain", DEPTH)),
        residual=statistics.median(at(runs, "residual", DEPTH)),
        curves=runs[0].curves,
        curve_depth=snippet.CURVE_DEPTH,
        points=snippet.POINTS,
        curve_start=snippet.START,
        lines=runs[0].lines,
        seeds=len(runs),
    )
