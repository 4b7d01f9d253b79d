"""Claims of the Measured costs page about the activations training keeps: addition against concatenation."""

import pytest

from sitekit.margins import above
from snippets.costs import concat_memory as snippet
from tests.costs import display

PAGE = "costs.md"


@pytest.fixture(scope="module")
def r(device, seeds):
    return snippet.measure(device, seed=seeds.first())


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
    "From depth 64 to 128 the activation memory a dense (concatenating) stack keeps for backward grows as L to a "
    "power above 1.9, and a residual stack's as L to exactly 1.",
    page=PAGE,
    exact="byte counts of the tensors autograd saves follow from the shapes alone: the exponents are fixed by d, "
    "k and the depths, on any seed and device",
)
def test_concatenation_memory_grows_quadratically_addition_linearly(claim, r):
    claim.check(exponents, r.residual, r.dense)
    claim.rejects(exponents, r.dense, r.dense, because="the dense stack's bytes in the residual column")
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
    )
