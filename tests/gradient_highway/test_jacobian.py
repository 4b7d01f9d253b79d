"""Claims of "The gradient highway" about the Jacobian of one residual block."""

import pytest
import torch

from sitekit import runs
from sitekit.margins import below
from snippets.gradient_highway import jacobian as snippet
from snippets.residual_block import projection_shortcut as projection

PAGE = "module/gradient-highway.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    """One run of the experiment per seed, shared by every claim below."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.fixture(scope="module")
def projected(results, device, seeds) -> tuple[torch.Tensor, torch.Tensor]:
    """The alternative, run through the listing's block_jacobians: a block of the same width whose shortcut
    is a learned d×d projection, y = W_s x + F(x), whose Jacobian is W_s + ∂F/∂x."""
    d = results[0].d
    torch.manual_seed(seeds.first())
    block = runs.run(projection.ProjectionBlock, d, d, expansion=1).double().to(device)
    x = torch.randn(d, dtype=torch.float64, device=device)
    return runs.run(snippet.block_jacobians, block, x)


# One seed would do: the comparison is bit for bit and its outcome does not depend on the weights drawn
# (autograd sums the shortcut's and the branch's contributions to ∂y/∂x, one float addition, the same one
# I + J_F does). The five come from the fixture the next claim shares; the sentence does not count them.
@pytest.mark.claim(
    "Autograd's Jacobian of y = x + F(x) equals I + ∂F/∂x exactly (float64); a block whose shortcut is a "
    "learned projection, W_s x + F(x), does not.",
    page=PAGE,
    exact="autograd's float64 Jacobian of the block is torch.equal to I + ∂F/∂x",
)
def test_block_jacobian_is_identity_plus_branch_jacobian(claim, results, projected):
    def equals_identity_plus(Js: list[torch.Tensor], JFs: list[torch.Tensor]) -> None:
        for J, JF in zip(Js, JFs, strict=True):
            assert torch.equal(J, torch.eye(J.shape[0], dtype=J.dtype, device=J.device) + JF)

    claim.check(equals_identity_plus, [r.J for r in results], [r.J_branch for r in results])
    J_projection, JF_projection = projected
    claim.rejects(
        equals_identity_plus,
        [J_projection],
        [JF_projection],
        because="a d×d projection shortcut: autograd's Jacobian is W_s + ∂F/∂x",
    )
    claim.record(d=results[0].d, max_error=max(x.jacobian_max_error for x in results))


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
