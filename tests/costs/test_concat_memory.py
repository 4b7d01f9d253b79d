"""Claims of the Measured costs page about the activations training keeps: addition against concatenation."""

import pytest

from sitekit.margins import above
from snippets.costs import concat_memory as snippet
from tests.costs import display

PAGE = "costs.md"


@pytest.fixture(scope="module")
def r(device, seeds):
    return snippet.measure(device, seed=seeds.first())


# The counterfactual, run (honesty audit 1.4): the same stacks with a dense stack whose every layer adds one
# feature, not 32. Between depths 64 and 128 its concatenation is still mostly its d input features, so its bytes
# grow nearly linearly: the 1.9 belongs to the growth the page uses, not to concatenation as such.
THIN_GROWTH = 1


@pytest.fixture(scope="module")
def thin(device, seeds):
    return snippet.measure(device, seed=seeds.first(), growth=THIN_GROWTH)


def table(r) -> dict:
    rows = [[L, a, b, display.sig(b / a)] for L, a, b in zip(snippet.DEPTHS, r.residual, r.dense, strict=True)]
    return {"columns": ["depth L", "residual (bytes/token)", "dense (bytes/token)", "dense / residual"], "rows": rows}


DENSE_ABOVE = 1.9


def exponents(residual: list[int], dense: list[int]) -> None:
    p_res = snippet.growth_exponent(snippet.DEPTHS, residual)
    p_dense = snippet.growth_exponent(snippet.DEPTHS, dense)
    assert p_res == 1.0, p_res
    above("dense stack's growth exponent, depth 64 to 128", p_dense, DENSE_ABOVE)


@pytest.mark.claim(
    "With d = 64 input features and k = 32 added per layer, from depth 64 to 128 the activation memory a dense "
    "(concatenating) stack keeps for backward grows as L to a power above 1.9, and a residual stack's as L to "
    "exactly 1; a dense stack adding k = 1 feature per layer stays below 1.9.",
    page=PAGE,
    exact="byte counts of the tensors autograd saves follow from the shapes alone: the exponents are fixed by d, "
    "k and the depths, on any seed and device",
)
def test_concatenation_memory_grows_quadratically_addition_linearly(claim, r, thin):
    claim.check(exponents, r.residual, r.dense)
    claim.rejects(exponents, thin.residual, thin.dense, because="a dense stack whose layers add one feature each")
    claim.record(
        d=r.d,
        growth=r.growth,
        table=table(r),
        residual_exponent=r.residual_exponent,
        dense_exponent=r.dense_exponent,
        ratio_128=r.dense[-1] / r.residual[-1],
        final_width=r.d + r.growth * snippet.DEPTHS[-1],
        dense_above=DENSE_ABOVE,
        depths=list(snippet.DEPTHS),
        depth_max=snippet.DEPTHS[-1],
        thin_growth=thin.growth,
        thin_dense_exponent=thin.dense_exponent,
    )
