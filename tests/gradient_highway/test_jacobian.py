"""Claims of "The gradient highway" about the Jacobian of one residual block."""

import pytest
import torch

from snippets.gradient_highway import jacobian as snippet

PAGE = "module/gradient-highway.md"


@pytest.fixture(scope="module")
def results(device):
    """One run of the experiment, shared by every claim below."""
    return [snippet.measure(device, seed=s) for s in range(5)]


@pytest.mark.claim("Autograd's Jacobian of y = x + F(x) equals I + ∂F/∂x exactly (float64), over 5 seeds.", page=PAGE)
def test_block_jacobian_is_identity_plus_branch_jacobian(claim, results):

    def equals_identity_plus(J: torch.Tensor, JF: torch.Tensor) -> None:
        assert torch.equal(J, torch.eye(J.shape[0], dtype=J.dtype, device=J.device) + JF)

    for r in results:
        claim.check(equals_identity_plus, r.J, r.J_branch)
    r = results[0]
    claim.rejects(equals_identity_plus, r.J_branch, r.J_branch, because="the plain block's Jacobian ∂F/∂x")
    claim.record(d=r.d, seeds=len(results), max_error=max(x.jacobian_max_error for x in results))


@pytest.mark.claim(
    "Backpropagation delivers ∂L/∂x = g·(I + ∂F/∂x) = g + g·∂F/∂x, to float64 rounding (1e-12), over 5 seeds.",
    page=PAGE,
)
def test_input_gradient_is_upstream_times_identity_plus_jacobian(claim, results):

    atol = 1e-12

    def matches_formula(grad: torch.Tensor, g: torch.Tensor, JF: torch.Tensor) -> None:
        torch.testing.assert_close(grad, g + g @ JF, rtol=0, atol=atol)

    for r in results:
        claim.check(matches_formula, r.grad, r.g, r.J_branch)
    r = results[0]
    claim.rejects(
        matches_formula, r.plain_grad, r.g, r.J_branch, because="autograd through a plain block (the branch alone)"
    )
    claim.record(
        atol=atol,
        seeds=len(results),
        max_error=max(x.gradient_max_error for x in results),
        plain_error=r.plain_gradient_max_error,
        identity_path_norm=r.identity_path_norm,
        branch_path_norm=r.branch_path_norm,
    )
