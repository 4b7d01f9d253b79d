"""Claims of Lab 1 about the paths of the gradient-highway page's residual stacks (5 seeds)."""

import math
import statistics

import pytest

from snippets.lab_paths import paths as snippet

PAGE = "module/lab-why-it-trains.md"
SEEDS = range(5)
DEEPEST = snippet.DEPTHS[-1]
EXACT = 1e-12  # float64 rounding over a few hundred products stays far below this
SHORT = 4  # "short": the gradient-weighted mean length stays below L / SHORT
NEAR = 0.1  # the measured mean length is within 10% of the prediction


@pytest.fixture(scope="module")
def runs(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


def stacks(runs) -> list:
    return [r.default[L] for r in runs for L in snippet.DEPTHS] + [r.he for r in runs]


@pytest.mark.claim(
    "Split by length, the paths of the gradient-highway page's residual stacks add up to the input gradient autograd "
    "computes (relative difference below 1e-12 at every depth and both inits, 5 seeds); the same "
    "paths are nowhere near the gradient of the plain stack built from the same branches.",
    page=PAGE,
)
def test_paths_sum_to_the_input_gradient(claim, runs):
    def adds_up(errors: list[float]) -> None:
        assert max(errors) < EXACT, errors

    exact = [s.max_relative_error for s in stacks(runs)]
    plain = [s.plain_relative_error for s in stacks(runs)]
    claim.check(adds_up, exact)
    assert min(plain) > 1, plain
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
    def shallow(stack) -> None:
        assert stack.effective_length < stack.depth / SHORT, (stack.depth, stack.effective_length)

    def predicted(stack) -> None:
        assert abs(stack.effective_length / stack.predicted_length - 1) < NEAR, stack.effective_length

    for r in runs:
        for s in r.default.values():
            claim.check(shallow, s)
            predicted(s)
        predicted(r.he)
        assert r.he.effective_length > r.he.depth / 2, r.he.effective_length
    claim.rejects(shallow, runs[0].he, because="He init, whose branches amplify")
    rows = []
    for L in snippet.DEPTHS:
        eff = [r.default[L].effective_length for r in runs]
        rows.append([L, L / 2, statistics.median(eff), min(eff), max(eff), runs[0].default[L].predicted_length])
    he = [r.he.effective_length for r in runs]
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
        he_effective=statistics.median(he),
        he_predicted=runs[0].he.predicted_length,
        count_share=count,
        default_share=median_share([r.default[DEEPEST] for r in runs]),
        he_share=median_share([r.he for r in runs]),
        per_path_ratio=per_path[1] / per_path[0],
        branch_gain=(1 / 18) ** 0.5,
        paths_total=2**DEEPEST,
        short=SHORT,
        near=NEAR,
        paths_per_length=snippet.INPUTS * snippet.PATHS,
        seeds=len(runs),
    )
