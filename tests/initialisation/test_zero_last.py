"""Claims of "Initialisation and scale" about zero-initialised last layers and the distance from the identity."""

import inspect
import statistics

import pytest

from sitekit.margins import above
from snippets.initialisation import zero_last as snippet

PAGE = "module/initialisation.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def table(results) -> dict:
    rows = [
        [L, *(statistics.median(r.deviation[i][L - 1] for r in results) for i in snippet.INITS)] for L in snippet.SHOWN
    ]
    return {"columns": ["depth L", "zero last layer", "PyTorch default", "He"], "rows": rows}


@pytest.mark.claim(
    "With the last layer of every branch zeroed, a residual stack's deviation from the identity is exactly 0.0 "
    "after every one of its 100 blocks, and its output is x bit-for-bit (5 seeds).",
    page=PAGE,
    exact="a deviation of exactly 0.0 at every depth and torch.equal(stack(x), x)",
)
def test_zero_init_last_layer_is_exactly_identity_at_any_depth(claim, results):
    def exactly_zero(deviations: list[list[float]], equal: list[bool]) -> None:
        assert all(equal) and all(v == 0.0 for d in deviations for v in d), max(max(d) for d in deviations)

    claim.check(
        exactly_zero, [r.deviation["zero last layer"] for r in results], [r.zeroed_returns_input for r in results]
    )
    claim.rejects(
        exactly_zero,
        [r.deviation["default"] for r in results],
        [r.returns_input["default"] for r in results],
        because="PyTorch's default init",
    )
    claim.record(
        max_deviation=max(max(r.deviation["zero last layer"]) for r in results),
        depth=len(results[0].deviation["zero last layer"]),
        seeds=len(results),
    )


FACTOR = 2  # "more than doubling"
GEOMETRIC = 1.5  # He: every block from depth 10 to 100 multiplies the deviation by over 1.5 on average
# The depths the checks compare (deviation[L - 1] is the deviation after block L; the deepest is the stack
# measure() builds), and the one the page also reads the deviation at: one constant each, so the recorded
# depths are the ones the values were read at.
FIRST, TENTH, LAST = 1, 10, inspect.signature(snippet.measure).parameters["depth"].default
MIDDLE = 30


def at(d: list[float], depth: int) -> float:
    """The deviation after block `depth` (deviation lists start at block 1)."""
    return d[depth - 1]


def grows(deviations: list[list[float]]) -> None:
    """More than doubling from depth 1 to 10 and again from 10 to 100, in every seed."""
    above("deviation at L = 1", [at(d, FIRST) for d in deviations], 0.0)
    above("deviation at L = 10 / at L = 1", [at(d, TENTH) / at(d, FIRST) for d in deviations], FACTOR)
    above("deviation at L = 100 / at L = 10", [at(d, LAST) / at(d, TENTH) for d in deviations], FACTOR)


def geometric(deviations: list[list[float]]) -> None:
    """Geometric growth: from depth 10 to 100 every block multiplies the deviation by over 1.5 on average."""
    above(
        "per-block factor of the deviation, L = 10 to 100",
        [(at(d, LAST) / at(d, TENTH)) ** (1 / (LAST - TENTH)) for d in deviations],
        GEOMETRIC,
    )


@pytest.mark.claim(
    "At PyTorch's default init the deviation ‖h_L − x‖/‖x‖ grows with depth, more than doubling from L = 1 "
    "to 10 and again from 10 to 100; under He init it grows geometrically (5 seeds).",
    page=PAGE,
)
def test_default_init_deviation_grows_with_depth(claim, results):
    default = [r.deviation["default"] for r in results]
    he = [r.deviation["he"] for r in results]
    claim.check(grows, default)
    claim.check(grows, he)
    claim.rejects(grows, [r.deviation["zero last layer"] for r in results], because="the zeroed last layer")
    claim.check(geometric, he)
    claim.rejects(geometric, default, because="PyTorch's default init")
    depth = len(results[0].deviation["default"])
    assert depth == LAST, (depth, LAST)  # the stack measured is the one the checks read the deepest block of
    med = {i: [statistics.median(r.deviation[i][k] for r in results) for k in range(depth)] for i in snippet.INITS}
    claim.record(
        table=table(results),
        series=med,
        default_1=at(med["default"], FIRST),
        default_30=at(med["default"], MIDDLE),
        default_100=at(med["default"], LAST),
        he_30=at(med["he"], MIDDLE),
        he_100=at(med["he"], LAST),
        he_per_block=(at(med["he"], LAST) / at(med["he"], TENTH)) ** (1 / (LAST - TENTH)),
        depths=[FIRST, TENTH, LAST],
        factor=FACTOR,
        seeds=len(results),
        d=inspect.signature(snippet.measure).parameters["d"].default,
        middle=MIDDLE,  # the depth default_30 and he_30 are read at
        deepest=depth,
    )
