"""Claims of "Other skip patterns" about highway carry paths across depth."""

import math

import pytest

from snippets.skip_patterns import highway_depth as snippet

PAGE = "module/skip-patterns.md"


@pytest.fixture(scope="module")
def results(device):
    """One run per seed, shared by the claim below."""
    return [snippet.measure(device, seed=s) for s in range(5)]


@pytest.mark.claim(
    "Through 50 highway blocks whose gates sit at T = σ(−2), the carry paths hand the input (1 − σ(−2))^50 ≈ "
    "1.8e-3 of the upstream gradient, matching the closed form to 1e-12 (float64, 5 seeds); 50 residual "
    "shortcuts hand it all of it.",
    page=PAGE,
)
def test_highway_carry_paths_multiply_across_depth(claim, results):
    def carries(measured: float, closed_form: float) -> None:
        assert math.isclose(measured, closed_form, rel_tol=1e-12), (measured, closed_form)

    for r in results:
        claim.check(carries, r.highway, r.closed_form)
        claim.rejects(carries, r.residual, r.closed_form, because="a stack of zero-branch residual blocks")
        assert r.residual == 1.0
    r = results[0]
    claim.record(
        rel_tol=1e-12,
        depth=r.depth,
        gate_bias=r.gate_bias,
        seeds=len(results),
        carried=r.highway,
        closed_form=r.closed_form,
        per_block=1 - 1 / (1 + math.exp(-r.gate_bias)),
        residual=r.residual,
    )
