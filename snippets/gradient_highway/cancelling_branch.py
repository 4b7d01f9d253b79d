"""The gradient highway: the shortcut's term g always arrives, yet g·(I + J_F) can still be zero.

Letters: d stream width, L blocks, g = ∂L/∂y the upstream gradient, J_F a branch's Jacobian.
Run `python -m snippets.gradient_highway.cancelling_branch` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock


# --8<-- [start:cancel]
class NegatingBlock(nn.Module):
    """y = x + F(x) with F(x) = −x: the branch's Jacobian is exactly −I."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.branch = nn.Linear(d, d, bias=False)
        with torch.no_grad():
            self.branch.weight.copy_(-torch.eye(d))  # J_F = −I
        self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.branch(x)  # (N, d): always 0


def input_gradient(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """∂L/∂x for L = Σ r·y with a random direction r, so that g = r at the top."""
    x = x.detach().requires_grad_(True)
    y = stack(x)  # (N, d)
    y.backward(torch.randn_like(y))
    return x.grad  # (N, d)


# --8<-- [end:cancel]


@dataclass(frozen=True)
class Result:
    """Input-gradient norms of a default-init residual stack, with and without a negating block."""

    depth: int
    position: int
    d: int
    cancelled_norm: float
    cancelled_nonzero: int
    default_norm: float
    default_nonzero: int
    entries: int


def measure(
    device: str = "cpu", seed: int = 0, d: int = 32, depth: int = 10, batch: int = 16
) -> Result:
    """Replace block `depth // 2` of a residual stack by a negating block; compare ∂L/∂x."""
    position = depth // 2
    torch.manual_seed(seed)
    blocks = [ResidualBlock(d) for _ in range(depth)]
    x = torch.randn(batch, d, device=device)  # (N, d)
    torch.manual_seed(seed + 1000)
    default = input_gradient(nn.Sequential(*blocks).to(device), x)
    blocks[position] = NegatingBlock(d)
    torch.manual_seed(seed + 1000)  # the same upstream direction r
    cancelled = input_gradient(nn.Sequential(*blocks).to(device), x)
    return Result(
        depth=depth,
        position=position + 1,
        d=d,
        cancelled_norm=cancelled.double().norm().item(),
        cancelled_nonzero=int(torch.count_nonzero(cancelled)),
        default_norm=default.double().norm().item(),
        default_nonzero=int(torch.count_nonzero(default)),
        entries=default.numel(),
    )


if __name__ == "__main__":
    print(measure())
