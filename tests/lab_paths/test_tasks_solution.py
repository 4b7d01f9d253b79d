"""Claims of Lab 1 about the worked answers to its tasks: the binomial rule's prediction of the effective depth
against the energy-weighted length measured on 50-block stacks with every branch scaled by alpha (5 seeds)."""

import pytest

from sitekit.margins import below
from snippets.lab_paths import tasks
from snippets.lab_paths import tasks_solution as snippet

PAGE = "module/lab-why-it-trains.md"
CPU_FLOAT64 = "the task file builds its stacks in float64 on the CPU, whatever the device"


@pytest.fixture(scope="module")
def r(seeds):
    ids = seeds(5)
    return snippet.measure(seed=ids[0], seeds=len(ids))


@pytest.mark.claim(
    "On 50-block stacks whose branches are scaled by α = 1, 2 and 3, the energy-weighted mean path length lies "
    "within 15% of L·r²/(1 + r²), r² = α²/18, in every one of 5 seeds; the count × size weighting's L·r/(1 + r) "
    "fails the same check.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
)
def test_binomial_rule_predicts_the_effective_depth(claim, r):
    by = list(r["by_alpha"].values())
    measured = [b["measured"] for b in by]

    def off(lengths: list[list[float]], predictions: list[float]) -> list[float]:
        return [abs(m / p - 1) for ms, p in zip(lengths, predictions, strict=True) for m in ms]

    def near(lengths: list[list[float]], predictions: list[float]) -> None:
        below("|measured ÷ predicted − 1|, every α and seed", off(lengths, predictions), tasks.NEAR)

    rule, heuristic = [b["predicted"] for b in by], [b["heuristic"] for b in by]
    claim.check(near, measured, rule)
    claim.rejects(near, measured, heuristic, because="the count × size weighting, L·r/(1 + r)")
    claim.record(
        depth=r["depth"],
        alphas=r["alphas"],
        seeds=len(r["seeds"]),
        near=tasks.NEAR,
        denominator=round(1 / tasks.R2_DEFAULT),
        by_alpha={
            a: {**by, "low": min(by["measured"]), "high": max(by["measured"])} for a, by in r["by_alpha"].items()
        },
    )
