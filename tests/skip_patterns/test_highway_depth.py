"""Claims of "Other skip patterns" about highway carry paths across depth."""

import math

import pytest

from sitekit.margins import below
from snippets.skip_patterns import highway_depth as snippet

PAGE = "module/skip-patterns.md"
REL_TOL = 1e-12


@pytest.fixture(scope="module")
def results(device, seeds):
    """One run per seed, shared by the claim below."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "Through 50 highway blocks whose gates sit at T = σ(−2), the carry paths hand the input (1 − σ(−2))^50 ≈ "
    "1.8e-3 of the upstream gradient, matching the closed form to 1e-12 (float64, 5 seeds); 50 residual "
    "shortcuts hand it all of it.",
    page=PAGE,
    exact="the float64 carried gradient equals the closed form (1 − σ(b_T))^L to rounding (relative error "
    "below 1e-12), and through the residual shortcuts exactly 1.0",
)
def test_highway_carry_paths_multiply_across_depth(claim, results):
    def carries(measured: list[float], closed_form: list[float]) -> None:
        errors = [abs(m / c - 1) for m, c in zip(measured, closed_form, strict=True)]
        below("|carried / closed form − 1|", errors, REL_TOL)

    closed = [r.closed_form for r in results]
    claim.check(carries, [r.highway for r in results], closed)
    claim.rejects(carries, [r.residual for r in results], closed, because="a stack of zero-branch residual blocks")
    assert all(r.residual == 1.0 for r in results), [r.residual for r in results]
    r = results[0]
    claim.record(
        rel_tol=REL_TOL,
        depth=r.depth,
        gate_bias=r.gate_bias,
        seeds=len(results),
        carried=r.highway,
        closed_form=r.closed_form,
        per_block=1 - 1 / (1 + math.exp(-r.gate_bias)),
        residual=r.residual,
    )
