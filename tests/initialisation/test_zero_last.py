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
    "at every depth from 1 to 100, and its output is x bit-for-bit (5 seeds).",
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
    r = results[0]
    claim.record(
        depths=[1, len(r.deviation["zero last layer"])],
        max_deviation=max(max(r.deviation["zero last layer"]) for r in results),
        depth=len(results[0].deviation["zero last layer"]),
        seeds=len(results),
    )


FACTOR = 2  # "more than doubling"
GEOMETRIC = 1.5  # He: every block from depth 10 to 100 multiplies the deviation by over 1.5 on average


def grows(deviations: list[list[float]]) -> None:
    """More than doubling from depth 1 to 10 and again from 10 to 100, in every seed."""
    above("deviation at L = 1", [d[0] for d in deviations], 0.0)
    above("deviation at L = 10 / at L = 1", [d[9] / d[0] for d in deviations], FACTOR)
    above("deviation at L = 100 / at L = 10", [d[99] / d[9] for d in deviations], FACTOR)


def geometric(deviations: list[list[float]]) -> None:
    """Geometric growth: from depth 10 to 100 every block multiplies the deviation by over 1.5 on average."""
    above(
        "per-block factor of the deviation, L = 10 to 100", [(d[99] / d[9]) ** (1 / 90) for d in deviations], GEOMETRIC
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
    med = {i: [statistics.median(r.deviation[i][L] for r in results) for L in range(100)] for i in snippet.INITS}
    claim.record(
        table=table(results),
        series=med,
        default_1=med["default"][0],
        default_30=med["default"][29],
        default_100=med["default"][99],
        he_30=med["he"][29],
        he_100=med["he"][99],
        he_per_block=(med["he"][99] / med["he"][9]) ** (1 / 90),
        depths=[1, 10, 100],
        factor=FACTOR,
        seeds=len(results),
        d=inspect.signature(snippet.measure).parameters["d"].default,
        middle=30,  # the depth default_30 and he_30 are read at
        deepest=len(med["default"]),
    )
