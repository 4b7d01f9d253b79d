"""The gradient highway: the Jacobian of y = x + F(x) is I + ∂F/∂x, checked against autograd.

Letters: d stream width; g the upstream gradient ∂L/∂y (a row vector of width d).
Float64 throughout, so that comparisons are limited by the maths, not by rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.autograd.functional import jacobian

from snippets.residual_block.identity_shortcut import ResidualBlock


# --8<-- [start:check]
def block_jacobians(
    block: ResidualBlock, x: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Autograd's Jacobian of the whole block and of its branch alone, each (d, d)."""
    return jacobian(block, x), jacobian(block.branch, x)


def input_gradient(
    block: ResidualBlock, x: torch.Tensor, g: torch.Tensor
) -> torch.Tensor:
    """∂L/∂x by backpropagation, for a loss whose gradient at the output is g."""
    x = x.detach().requires_grad_(True)
    block(x).backward(g)
    return x.grad  # (d,)


# --8<-- [end:check]


@dataclass(frozen=True)
class Result:
    """Autograd's answers next to the formula's."""

    d: int
    jacobian_equals_identity_plus_branch: bool
    jacobian_max_error: float
    gradient_max_error: float
    plain_gradient_max_error: float
    identity_path_norm: float
    branch_path_norm: float
    J: torch.Tensor
    J_branch: torch.Tensor
    grad: torch.Tensor
    g: torch.Tensor
    plain_grad: torch.Tensor  # autograd through the branch alone: a plain block


def measure(device: str = "cpu", seed: int = 0, d: int = 16) -> Result:
    """Compare J with I + J_F, and ∂L/∂x with g·(I + J_F), for one random block and input."""
    torch.manual_seed(seed)
    block = ResidualBlock(d).double().to(device)
    x = torch.randn(d, dtype=torch.float64, device=device)
    g = torch.randn(d, dtype=torch.float64, device=device)
    J, JF = block_jacobians(block, x)
    eye = torch.eye(d, dtype=torch.float64, device=device)
    grad = input_gradient(block, x, g)
    return Result(
        d=d,
        jacobian_equals_identity_plus_branch=torch.equal(J, eye + JF),
        jacobian_max_error=(J - (eye + JF)).abs().max().item(),
        gradient_max_error=(grad - g @ (eye + JF)).abs().max().item(),
        plain_gradient_max_error=(g @ JF - g @ (eye + JF)).abs().max().item(),
        identity_path_norm=g.norm().item(),
        branch_path_norm=(g @ JF).norm().item(),
        J=J,
        J_branch=JF,
        grad=grad,
        g=g,
        plain_grad=input_gradient(block.branch, x, g),
    )


if __name__ == "__main__":
    r = measure()
    print({k: v for k, v in r.__dict__.items() if not isinstance(v, torch.Tensor)})
