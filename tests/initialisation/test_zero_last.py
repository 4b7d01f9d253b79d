"""Claims of "Initialisation and scale" about zero-initialised last layers and the distance from the identity."""

import inspect
import statistics

import pytest

from snippets.initialisation import zero_last as snippet

PAGE = "module/initialisation.md"
SEEDS = range(5)


@pytest.fixture(scope="module")
def results(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


def table(results) -> dict:
    rows = [
        [L, *(statistics.median(r.deviation[i][L - 1] for r in results) for i in snippet.INITS)] for L in snippet.SHOWN
    ]
    return {"columns": ["depth L", "zero last layer", "PyTorch default", "He"], "rows": rows}


@pytest.mark.claim(
    "With the last layer of every branch zeroed, a residual stack's deviation from the identity is exactly 0.0 "
    "at every depth from 1 to 100, and its output is x bit-for-bit (5 seeds).",
    page=PAGE,
)
def test_zero_init_last_layer_is_exactly_identity_at_any_depth(claim, results):
    def exactly_zero(deviation: list[float], equal: bool) -> None:
        assert equal and all(v == 0.0 for v in deviation), max(deviation)

    for r in results:
        claim.check(exactly_zero, r.deviation["zero last layer"], r.zeroed_returns_input)
    r = results[0]
    claim.rejects(exactly_zero, r.deviation["default"], r.returns_input["default"], because="PyTorch's default init")
    claim.record(
        depths=[1, len(r.deviation["zero last layer"])],
        max_deviation=max(max(r.deviation["zero last layer"]) for r in results),
        depth=len(results[0].deviation["zero last layer"]),
        seeds=len(results),
    )


FACTOR = 2  # "more than doubling"


def grows(deviation: list[float]) -> None:
    """Larger at depth 100 than at 10, and at 10 than at 1."""
    assert deviation[0] > 0 and deviation[9] > FACTOR * deviation[0], deviation
    assert deviation[99] > FACTOR * deviation[9], deviation


@pytest.mark.claim(
    "At PyTorch's default init the deviation ‖h_L − x‖/‖x‖ grows with depth, more than doubling from L = 1 "
    "to 10 and again from 10 to 100; under He init it grows geometrically (5 seeds).",
    page=PAGE,
)
def test_default_init_deviation_grows_with_depth(claim, results):
    for r in results:
        claim.check(grows, r.deviation["default"])
        claim.check(grows, r.deviation["he"])
        # Geometric: from depth 10 to 100 every He block multiplies the deviation by over 1.5 on average.
        assert (r.deviation["he"][99] / r.deviation["he"][9]) ** (1 / 90) > 1.5, r.deviation["he"][99]
    claim.rejects(grows, results[0].deviation["zero last layer"], because="the zeroed last layer")
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
