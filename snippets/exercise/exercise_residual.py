"""Hands-on exercise: a 50-block MLP, plain against residual, on y = sin(‖x‖) + noise.

Fill in `train` below, then run this file:   python exercise_residual.py
Check your work with the site's self-check:   nox -s check -- exercise_residual.py

What the self-check needs from this file (keep these names):
  make_data(seed)                       -> (x, target), shapes (N, d) and (N, 1)
  DeepMLP(depth, dim, use_residual)     a model whose first layer is `input_proj`
  train(model, x, target, epochs, lr)   -> (losses, first_layer_grad_norm)
Keep the comparison under `if __name__ == "__main__":` so that importing the file trains nothing.

Letters: N samples (1000), d input and stream width (64), L depth in blocks (50).
"""

# site: not-a-listing (download: the exercise's starter file, linked from docs/module/exercise.md)

from __future__ import annotations

import sys
import time

import torch
from torch import nn

N, DIM, DEPTH, EPOCHS, LR = 1000, 64, 50, 200, 1e-3


# ---- given: data and models ----
def make_data(
    seed: int, n: int = N, dim: int = DIM
) -> tuple[torch.Tensor, torch.Tensor]:
    """n points x ~ N(0, I_d) and the noisy target sin(‖x‖)."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, dim, generator=gen)  # (N, d)
    noise = 0.05 * torch.randn(n, 1, generator=gen)  # (N, 1)
    return x, torch.sin(x.norm(dim=1, keepdim=True)) + noise  # (N, 1)


def mlp_branch(width: int) -> nn.Sequential:
    """F = Linear -> ReLU -> Linear: a plain block on its own, a residual block's branch."""
    return nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))


class ResidualBlock(nn.Module):
    """y = x + F(x)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.branch = mlp_branch(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.branch(x)  # (N, d)


class DeepMLP(nn.Module):
    """input_proj, then L blocks (plain: F(x); residual: x + F(x)), then a linear head."""

    def __init__(self, depth: int, dim: int, use_residual: bool) -> None:
        super().__init__()
        self.input_proj = nn.Linear(dim, dim)
        # Same layers in the same order either way, so one seed gives both models identical weights.
        self.blocks = nn.ModuleList(
            ResidualBlock(dim) if use_residual else mlp_branch(dim)
            for _ in range(depth)
        )
        self.head = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.input_proj(x)  # (N, d)
        for block in self.blocks:
            h = block(h)  # (N, d)
        return self.head(h)  # (N, 1)


# ---- your part: the training loop ----
def train(
    model: nn.Module,
    x: torch.Tensor,
    target: torch.Tensor,
    epochs: int = EPOCHS,
    lr: float = LR,
) -> tuple[list[float], float]:
    """Full-batch Adam on the MSE; return each epoch's loss and the first layer's gradient norm."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)  # noqa: F841 (yours to use)
    mse = nn.MSELoss()  # noqa: F841
    losses: list[float] = []
    first_layer_grad_norm = float("nan")
    # TODO: for each epoch: clear the old gradients, run the model on all of x, compute the loss,
    #   backpropagate, read the gradient norm of model.input_proj.weight (take it in float64:
    #   .double().norm(), the plain stack's entries are too small to square in float32),
    #   take the optimizer step, and append loss.item() to losses.
    raise NotImplementedError(
        "fill in the training loop in train(): zero the gradients, forward, loss, backward, "
        "read the first layer's gradient norm, step, and record the loss (see the TODO above it)"
    )
    return losses, first_layer_grad_norm


# ---- given: the comparison ----
def main(seed: int = 0) -> None:
    """Train both models on the same data from one seed; print what the exercise asks."""
    x, target = make_data(seed)
    mean_loss = target.var(
        unbiased=False
    ).item()  # the MSE of always predicting the mean
    print(f"target variance {mean_loss:.4f}")
    for name, residual in (("plain", False), ("residual", True)):
        torch.manual_seed(seed)
        model = DeepMLP(DEPTH, DIM, use_residual=residual)
        start = time.perf_counter()
        losses, grad_norm = train(model, x, target)
        print(
            f"{name:>8}: loss {losses[0]:.4f} -> {losses[-1]:.4f}, "
            f"first-layer gradient norm {grad_norm:.3g}, {time.perf_counter() - start:.1f} s"
        )


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError as todo:
        sys.exit(f"Not done yet: {todo}")
