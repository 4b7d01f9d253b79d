"""Initialisation and scale: ReZero (Bachlechner et al. 2020), y = x + α·F(x) with a learned
scalar α, 0 at first.

Letters: N batch size, d stream width, L depth in blocks; g = ∂L/∂y the upstream gradient, (N, d).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


# --8<-- [start:block]
class ReZeroBlock(nn.Module):
    """y = x + α·F(x); α is one learned scalar per block, 0 at initialisation."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.branch = nn.Sequential(
            nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d)
        )  # (N, d)
        self.alpha = nn.Parameter(torch.zeros(()))
        self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.alpha * self.branch(x)  # (N, d)


# --8<-- [end:block]


# --8<-- [start:gradient]
def alpha_gradient(
    block: ReZeroBlock, x: torch.Tensor, g: torch.Tensor
) -> tuple[float, float]:
    """∂L/∂α from autograd, and from the formula ⟨g, F(x)⟩ = Σ g ⊙ F(x)."""
    block.zero_grad()
    block(x).backward(g)  # (N, d) -> α.grad
    with torch.no_grad():
        by_hand = (
            g * block.branch(x)
        ).sum()  # the branch's would-be write, weighted by g
    return block.alpha.grad.item(), by_hand.item()


# --8<-- [end:gradient]


# --8<-- [start:train]
def train(
    stack: nn.Sequential, x: torch.Tensor, y: torch.Tensor, steps: int, lr: float
) -> list[float]:
    """Full-batch Adam on the mean squared error; returns the loss before every step."""
    opt = torch.optim.Adam(stack.parameters(), lr=lr, foreach=True)
    losses = []
    for _ in range(steps):
        loss = nn.functional.mse_loss(stack(x), y)
        losses.append(loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return losses


# --8<-- [end:train]


def task(n: int, d: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A synthetic regression task: y is a fixed random two-layer network of x."""
    x = torch.randn(n, d)  # (N, d)
    teacher = nn.Sequential(nn.Linear(d, 4 * d), nn.Tanh(), nn.Linear(4 * d, d))
    with torch.no_grad():
        y = teacher(x)
        y = y / y.std()  # (N, d): unit-scale targets
    return x, y


@dataclass(frozen=True)
class Result:
    """Exactness of the identity at α = 0 and the α-gradient (training: rezero_training.py)."""

    depth: int
    identity_exact: bool
    identity_max_error: float
    nonzero_alpha_exact: bool  # the same stack with α = 0.1 in its first block
    nonzero_alpha_max_error: float
    grad_autograd: float
    grad_by_hand: float
    grad_zero_branch: float  # the same gradient when the branch writes 0
    grad_zero_branch_by_hand: float
    branch_grads_zero: bool  # at α = 0 nothing but α receives a gradient


def measure(
    device: str = "cpu",
    seed: int = 0,
    d: int = 16,
    depth: int = 50,
) -> Result:
    """A 50-block ReZero stack: identity at α = 0, and the α-gradient (float64)."""
    torch.manual_seed(seed)
    with torch.device(device):
        stack = nn.Sequential(*(ReZeroBlock(d) for _ in range(depth)))
        x, _ = task(128, d)  # drawn as before: the draws after it stay the same
        with torch.no_grad():
            out = stack(x)
            stack[0].alpha.fill_(0.1)
            moved = stack(x)
            stack[0].alpha.zero_()
        block = ReZeroBlock(d).double()
        x64, g64 = (
            torch.randn(8, d, dtype=torch.float64),
            torch.randn(8, d, dtype=torch.float64),
        )
        auto, hand = alpha_gradient(block, x64, g64)
        others = all(
            p.grad is None or torch.equal(p.grad, torch.zeros_like(p))
            for p in block.branch.parameters()
        )
        nn.init.zeros_(block.branch[-1].weight)
        nn.init.zeros_(block.branch[-1].bias)
        zero_branch_grad, zero_branch_hand = alpha_gradient(block, x64, g64)
    return Result(
        depth=depth,
        identity_exact=torch.equal(out, x),
        identity_max_error=(out - x).abs().max().item(),
        nonzero_alpha_exact=torch.equal(moved, x),
        nonzero_alpha_max_error=(moved - x).abs().max().item(),
        grad_autograd=auto,
        grad_by_hand=hand,
        grad_zero_branch=zero_branch_grad,
        grad_zero_branch_by_hand=zero_branch_hand,
        branch_grads_zero=others,
    )


if __name__ == "__main__":
    r = measure()
    print(
        f"identity: {r.identity_exact}; ∂L/∂α {r.grad_autograd:.6g}, by hand {r.grad_by_hand:.6g}"
    )
