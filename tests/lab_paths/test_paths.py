"""Claims of Lab 1 about the paths of the gradient-highway page's residual stacks (5 seeds)."""

import math
import statistics

import pytest

from sitekit.margins import above, below
from snippets.lab_paths import paths as snippet

PAGE = "module/lab-why-it-trains.md"
DEEPEST = snippet.DEPTHS[-1]
EXACT = 1e-12  # float64 rounding over a few hundred products stays far below this
SHORT = 4  # "short": the gradient-weighted mean length stays below L / SHORT
NEAR = 0.1  # the measured mean length is within 10% of the prediction


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def stacks(runs) -> list:
    return [r.default[L] for r in runs for L in snippet.DEPTHS] + [r.he for r in runs]


@pytest.mark.claim(
    "Split by length, the paths of the gradient-highway page's residual stacks add up to the input gradient autograd "
    "computes (relative difference below 1e-12 at every depth and both inits, 5 seeds); the same "
    "paths are nowhere near the gradient of the plain stack built from the same branches.",
    page=PAGE,
    exact="the expansion of (I + J_L) ... (I + J_1) by path length is an identity: float64 rounding only",
)
def test_paths_sum_to_the_input_gradient(claim, runs):
    def adds_up(errors: list[float]) -> None:
        below("relative difference from autograd's gradient", errors, EXACT)

    exact = [s.max_relative_error for s in stacks(runs)]
    plain = [s.plain_relative_error for s in stacks(runs)]
    claim.check(adds_up, exact)
    assert min(plain) > 1, plain  # "nowhere near": off by more than the gradient itself
    claim.rejects(adds_up, plain, because="the plain stack of the same branches")
    claim.record(
        max_error=max(exact),
        bound=EXACT,
        plain_error_min=min(plain),
        depths=list(snippet.DEPTHS),
        width=snippet.WIDTH,
        inputs=snippet.INPUTS,
        seeds=len(runs),
    )


def share(values: list[float]) -> list[float]:
    total = sum(values)
    return [v / total for v in values]


def median_share(stacks_: list) -> list[float]:
    shares = [share(s.contribution) for s in stacks_]
    return [statistics.median(col) for col in zip(*shares, strict=True)]


@pytest.mark.claim(
    "In the gradient-highway page's residual stacks at PyTorch's default init, paths through fewer than a quarter of "
    "the "
    "blocks carry the gradient: the gradient-weighted mean path length is below L/4 at every depth in "
    "every one of 5 seeds, against L/2 by count, and within 10% of the branch-gain prediction; under "
    "He init it is above L/2.",
    page=PAGE,
)
def test_short_paths_carry_the_gradient(claim, runs):
    def shallow(by_depth: dict[int, list]) -> None:
        for L, stacks_ in by_depth.items():
            below(f"L = {L}: mean path length / L", [s.effective_length / L for s in stacks_], 1 / SHORT)

    def predicted(by_depth: dict[int, list]) -> None:
        for L, stacks_ in by_depth.items():
            off = [abs(s.effective_length / s.predicted_length - 1) for s in stacks_]
            below(f"L = {L}: |mean path length / predicted − 1|", off, NEAR)

    def long_under_he(he: list) -> None:
        above(f"He init, L = {DEEPEST}: mean path length / L", [s.effective_length / s.depth for s in he], 1 / 2)

    default = {L: [r.default[L] for r in runs] for L in snippet.DEPTHS}
    he = [r.he for r in runs]
    claim.check(shallow, default)
    claim.check(predicted, default)
    claim.check(predicted, {DEEPEST: he})
    claim.check(long_under_he, he)
    claim.rejects(shallow, {DEEPEST: he}, because="He init, whose branches amplify")
    claim.rejects(long_under_he, default[DEEPEST], because="the default init at the same depth")
    rows = []
    for L in snippet.DEPTHS:
        eff = [r.default[L].effective_length for r in runs]
        rows.append([L, L / 2, statistics.median(eff), min(eff), max(eff), runs[0].default[L].predicted_length])
    he_lengths = [s.effective_length for s in he]
    count = [math.comb(DEEPEST, k) / 2**DEEPEST for k in range(DEEPEST + 1)]
    per_path = [statistics.median(col) for col in zip(*(r.default[DEEPEST].per_path for r in runs), strict=True)]
    claim.record(
        table={
            "columns": ["depth L", "mean length by count", "gradient-weighted median", "min", "max", "predicted"],
            "rows": rows,
        },
        deepest=DEEPEST,
        effective_deepest=rows[-1][2],
        fraction_deepest=rows[-1][2] / DEEPEST,
        he_effective=statistics.median(he_lengths),
        he_predicted=runs[0].he.predicted_length,
        count_share=count,
        default_share=median_share(default[DEEPEST]),
        he_share=median_share(he),
        per_path_ratio=per_path[1] / per_path[0],
        branch_gain=(1 / 18) ** 0.5,
        paths_total=2**DEEPEST,
        short=SHORT,
        near=NEAR,
        paths_per_length=snippet.INPUTS * snippet.PATHS,
        seeds=len(runs),
    )
