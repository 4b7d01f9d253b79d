"""Claims of "The gradient highway" about input gradients of plain and residual stacks across depth (5 seeds)."""

import inspect
import statistics

import pytest

from sitekit.margins import above, below, between
from snippets.gradient_highway import depth_sweep as snippet

PAGE = "module/gradient-highway.md"


@pytest.fixture(scope="module")
def sweep(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def medians(sweep, init: str, kind: str) -> dict[int, float]:
    return {L: statistics.median(r.norms[init][kind][L] for r in sweep) for L in snippet.DEPTHS}


def table(sweep, init: str) -> dict:
    rows = []
    for L in snippet.DEPTHS:
        p = [r.norms[init]["plain"][L] for r in sweep]
        q = [r.norms[init]["residual"][L] for r in sweep]
        rows.append([L, statistics.median(p), min(p), max(p), statistics.median(q), min(q), max(q)])
    cols = [
        "depth L",
        "plain median",
        "plain min",
        "plain max",
        "residual median",
        "residual min",
        "residual max",
    ]
    return {"columns": cols, "rows": rows}


VANISHED, WITHIN = 1e-20, 10


def vanishes(runs: list[dict[int, float]]) -> None:
    """Depth 50 carries less than 1e-20 of the depth-5 gradient, in every seed."""
    below("‖g‖ at depth 50 / at depth 5", [norms[50] / norms[5] for norms in runs], VANISHED)


def within_10x(runs: list[dict[int, float]]) -> None:
    """Every depth's gradient within 10× of depth 5's, in every seed."""
    ratios = [norms[L] / norms[5] for norms in runs for L in snippet.DEPTHS]
    between("‖g‖ at depth L / at depth 5", ratios, 1 / WITHIN, WITHIN)


@pytest.mark.claim(
    "With PyTorch's default init the plain stack's input gradient vanishes by depth 50 "
    "(below 1e-20 of its depth-5 value) for every one of 5 seeds.",
    page=PAGE,
)
def test_plain_stack_input_gradient_vanishes_by_depth_50(claim, sweep):
    claim.check(vanishes, [r.norms["default"]["plain"] for r in sweep])
    claim.rejects(vanishes, [r.norms["default"]["residual"] for r in sweep], because="the residual stack")
    m = medians(sweep, "default", "plain")
    claim.record(
        table=table(sweep, "default"),
        median=m,
        ratio_50_5=m[50] / m[5],
        float32_norm=max(r.float32_norm_of_plain_50 for r in sweep),
        seeds=len(sweep),
        threshold=VANISHED,
        shallow=snippet.DEPTHS[0],
        deep=snippet.DEPTHS[-1],
        d=inspect.signature(snippet.measure).parameters["d"].default,
        batch=inspect.signature(snippet.measure).parameters["batch"].default,
    )


@pytest.mark.claim(
    "With the default init the residual stack's input gradient stays within 10× of its depth-5 value at "
    "every depth up to 50, for every one of 5 seeds.",
    page=PAGE,
)
def test_residual_stack_input_gradient_stays_within_10x(claim, sweep):
    claim.check(within_10x, [r.norms["default"]["residual"] for r in sweep])
    claim.rejects(within_10x, [r.norms["default"]["plain"] for r in sweep], because="the plain stack")
    m = medians(sweep, "default", "residual")
    # Per block the branch's Jacobian has gain² = (1/3)(1/2)(1/3) = 1/18, so ‖g‖ grows by √(19/18) per block.
    claim.record(
        median=m,
        ratio_50_5=m[50] / m[5],
        predicted_ratio_50_5=(19 / 18) ** (45 / 2),
        factor=WITHIN,
        depths=list(snippet.DEPTHS),
        seeds=len(sweep),
        shallow=snippet.DEPTHS[0],
        deep=snippet.DEPTHS[-1],
        blocks_between=snippet.DEPTHS[-1] - snippet.DEPTHS[0],
    )


@pytest.mark.claim(
    "Under He initialisation neither stack vanishes: from depth 5 to 50 the plain stack's input gradient "
    "grows over 1e5× and the residual stack's over 1e9×, for every one of 5 seeds.",
    page=PAGE,
)
def test_he_init_makes_both_stacks_explode(claim, sweep):
    bounds = {"plain": 1e5, "residual": 1e9}

    def explodes(plain: list[dict[int, float]], residual: list[dict[int, float]]) -> None:
        above("plain ‖g‖ at depth 50 / at depth 5", [p[50] / p[5] for p in plain], bounds["plain"])
        above("residual ‖g‖ at depth 50 / at depth 5", [q[50] / q[5] for q in residual], bounds["residual"])

    claim.check(explodes, [r.norms["he"]["plain"] for r in sweep], [r.norms["he"]["residual"] for r in sweep])
    claim.rejects(
        explodes,
        [r.norms["default"]["plain"] for r in sweep],
        [r.norms["default"]["residual"] for r in sweep],
        because="default init",
    )
    p, q = medians(sweep, "he", "plain"), medians(sweep, "he", "residual")
    claim.record(
        table=table(sweep, "he"),
        plain_ratio_50_5=p[50] / p[5],
        residual_ratio_50_5=q[50] / q[5],
        bounds=bounds,
        seeds=len(sweep),
    )
