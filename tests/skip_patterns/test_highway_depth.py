"""Claims of "Other skip patterns" about highway carry paths across depth."""

import math

import pytest

from sitekit.margins import below
from snippets.skip_patterns import highway_depth as snippet

PAGE = "module/skip-patterns.md"
REL_TOL = 1e-12


@pytest.fixture(scope="module")
def result(device, seeds):
    """One run: with H = 0 and a constant gate the outcome cannot depend on the seed (see the claim's identity)."""
    return snippet.measure(device, seed=seeds.first())


@pytest.mark.claim(
    "Through 50 highway blocks whose gates sit at T = σ(−2), the carry paths hand the input (1 − σ(−2))^50 ≈ "
    "1.8e-3 of the upstream gradient, matching the closed form to 1e-12 (float64); 50 residual shortcuts hand "
    "it all of it.",
    page=PAGE,
    identity="with H = 0 and W_T = 0 every block's backward multiplies g by the same constant 1 − σ(b_T), so "
    "autograd computes the product (1 − σ(b_T))^L whatever g is: the check sees float64 rounding only, and the "
    "residual stack (a real run of another module) shows it tells the two apart",
)
def test_highway_carry_paths_multiply_across_depth(claim, result):
    def carries(measured: list[float], closed_form: list[float]) -> None:
        errors = [abs(m / c - 1) for m, c in zip(measured, closed_form, strict=True)]
        below("|carried / closed form − 1|", errors, REL_TOL)

    closed = [result.closed_form]
    claim.check(carries, [result.highway], closed)
    claim.rejects(carries, [result.residual], closed, because="a stack of zero-branch residual blocks")
    assert result.residual == 1.0, result.residual
    claim.record(
        depth=result.depth,
        gate_bias=result.gate_bias,
        carried=result.highway,
        closed_form=result.closed_form,
        per_block=1 - 1 / (1 + math.exp(-result.gate_bias)),
        residual=result.residual,
    )
