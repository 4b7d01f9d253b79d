"""Claims of "The gradient highway" about the Jacobian of one residual block."""

import pytest
import torch

from sitekit.margins import below
from snippets.gradient_highway import jacobian as snippet

PAGE = "module/gradient-highway.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    """One run of the experiment per seed, shared by every claim below."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "Autograd's Jacobian of y = x + F(x) equals I + ∂F/∂x exactly (float64), over 5 seeds.",
    page=PAGE,
    exact="autograd's float64 Jacobian of the block is torch.equal to I + ∂F/∂x",
)
def test_block_jacobian_is_identity_plus_branch_jacobian(claim, results):
    def equals_identity_plus(Js: list[torch.Tensor], JFs: list[torch.Tensor]) -> None:
        for J, JF in zip(Js, JFs, strict=True):
            assert torch.equal(J, torch.eye(J.shape[0], dtype=J.dtype, device=J.device) + JF)

    claim.check(equals_identity_plus, [r.J for r in results], [r.J_branch for r in results])
    claim.rejects(
        equals_identity_plus,
        [r.J_branch for r in results],
        [r.J_branch for r in results],
        because="the plain block's Jacobian ∂F/∂x",
    )
    claim.record(d=results[0].d, seeds=len(results), max_error=max(x.jacobian_max_error for x in results))


@pytest.mark.claim(
    "Backpropagation delivers ∂L/∂x = g·(I + ∂F/∂x) = g + g·∂F/∂x, to float64 rounding (1e-12), over 5 seeds.",
    page=PAGE,
    exact="autograd's float64 input gradient equals g + g·∂F/∂x to float64 rounding (every entry within 1e-12)",
)
def test_input_gradient_is_upstream_times_identity_plus_jacobian(claim, results):
    atol = 1e-12

    def matches_formula(grads: list[torch.Tensor], gs: list[torch.Tensor], JFs: list[torch.Tensor]) -> None:
        errors = [(grad - (g + g @ JF)).abs().max().item() for grad, g, JF in zip(grads, gs, JFs, strict=True)]
        below("max |∂L/∂x − (g + g·∂F/∂x)|", errors, atol)

    gs, JFs = [r.g for r in results], [r.J_branch for r in results]
    claim.check(matches_formula, [r.grad for r in results], gs, JFs)
    claim.rejects(
        matches_formula,
        [r.plain_grad for r in results],
        gs,
        JFs,
        because="autograd through a plain block (the branch alone)",
    )
    r = results[0]
    claim.record(
        atol=atol,
        seeds=len(results),
        max_error=max(x.gradient_max_error for x in results),
        plain_error=r.plain_gradient_max_error,
        identity_path_norm=r.identity_path_norm,
        branch_path_norm=r.branch_path_norm,
    )
