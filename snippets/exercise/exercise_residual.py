"""Hands-on exercise: degradation in a plain BatchNorm MLP, and the residual fix.

Fill in the two TODOs below (the residual block, then the training loop), then run this file:
    python exercise_residual.py
Check your work with the self-check from the exercise page:
    python check_exercise.py exercise_residual.py

What the self-check needs from this file (keep these names):
  make_data(seed)                          -> (x, y, x_held_out, y_held_out)
  DeepMLP(depth, dim, width, use_residual)  a model whose first layer is `input_proj` and whose
                                           blocks are in `blocks`
  train(model, data, epochs, lr, warmup)   -> (losses, held_out_mse)
Keep the comparison under `if __name__ == "__main__":` so that importing the file trains nothing.
"""

# site: not-a-listing (download: the exercise's starter file, linked from docs/module/exercise.md)

from __future__ import annotations

import sys

import torch
from torch import nn

N, DIM, WIDTH, SHALLOW, DEEP, EPOCHS, LR, WARMUP = 1024, 4, 32, 2, 16, 100, 1e-2, 20


# ---- given: data and models ----
def make_data(seed: int, n: int = N, dim: int = DIM) -> tuple[torch.Tensor, ...]:
    """n training and n held-out points x ~ N(0, I_d), with the noisy target sin(‖x‖)."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(2 * n, dim, generator=gen)  # (2N, d)
    noise = 0.05 * torch.randn(2 * n, 1, generator=gen)  # (2N, 1)
    y = torch.sin(x.norm(dim=1, keepdim=True)) + noise  # (2N, 1)
    return x[:n], y[:n], x[n:], y[n:]  # train, then held out


def branch(width: int) -> nn.Sequential:
    """BatchNorm -> ReLU -> Linear, twice: a plain block, or a residual block's branch."""
    return nn.Sequential(
        nn.BatchNorm1d(width),
        nn.ReLU(),
        nn.Linear(width, width),
        nn.BatchNorm1d(width),
        nn.ReLU(),
        nn.Linear(width, width),
    )


def he_init(model: nn.Module) -> None:
    """He initialisation for every Linear but the head: weights N(0, 2 / fan_in), biases 0."""
    for m in model.modules():
        if isinstance(m, nn.Linear) and m is not model.head:
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            nn.init.zeros_(m.bias)


class DeepMLP(nn.Module):
    """input_proj, then `depth` blocks (plain: F(x); residual: x + F(x)), then a linear head."""

    def __init__(self, depth: int, dim: int, width: int, use_residual: bool) -> None:
        super().__init__()
        self.input_proj = nn.Linear(dim, width)
        # The same layers in the same order either way: one seed, the same He-initialised weights.
        self.blocks = nn.ModuleList(
            ResidualBlock(width) if use_residual else branch(width)
            for _ in range(depth)
        )
        self.head = nn.Linear(width, 1)
        he_init(self)
        for block in self.blocks:
            if isinstance(block, ResidualBlock):
                block.zero_last_layer()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.input_proj(x)  # (N, width)
        for block in self.blocks:
            h = block(h)  # (N, width)
        return self.head(h)  # (N, 1)


# ---- your part 1: the residual block ----
class ResidualBlock(nn.Module):
    """y = x + F(x), with F's last Linear zeroed so that the block starts as the identity."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.branch = branch(width)

    def zero_last_layer(self) -> None:
        """Called after he_init: make F(x) = 0 at the start."""
        # TODO: set the weight and the bias of the branch's last Linear to zero.

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO: return the input plus the branch's output.
        raise NotImplementedError(
            "write the residual block: forward returns x plus self.branch(x), and "
            "zero_last_layer zeroes the branch's last Linear (see the TODOs in ResidualBlock)"
        )


# ---- your part 2: the training loop ----
def train(
    model: nn.Module,
    data: tuple[torch.Tensor, ...],
    epochs: int = EPOCHS,
    lr: float = LR,
    warmup: int = 0,
) -> tuple[list[float], float]:
    """Full-batch Adam on the MSE; return each epoch's training loss and the held-out MSE."""
    x, y, x_held_out, y_held_out = data  # noqa: RUF059 (yours to use)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)  # noqa: F841 (yours to use)
    mse = nn.MSELoss()  # noqa: F841
    losses: list[float] = []
    held_out_mse = float("nan")
    # TODO: for each epoch: set the learning rate (lr * (epoch + 1) / warmup during the first
    #   `warmup` epochs, then lr), clear the old gradients, run the model on all of x in training
    #   mode, compute the loss, backpropagate, take the optimizer step, and append loss.item().
    #   After the last epoch: the held-out MSE of the model in evaluation mode, without gradients.
    raise NotImplementedError(
        "fill in the training loop in train(): warm-up, zero the gradients, forward, loss, "
        "backward, step, record the loss; then the held-out MSE (see the TODO above it)"
    )
    return losses, held_out_mse


# ---- given: the comparison ----
RUNS = {  # name -> (depth, residual?, warm-up epochs)
    "plain, shallow": (SHALLOW, False, 0),
    "plain, deep": (DEEP, False, 0),
    "residual, deep": (DEEP, True, 0),
    "residual, deep, warm-up": (DEEP, True, WARMUP),
}


def main(seed: int = 0) -> None:
    """Train every model of the exercise from one seed on the same data; print what it asks."""
    data = make_data(seed)
    print(f"held-out target variance {data[3].var(unbiased=False).item():.4f}")
    for name, (depth, residual, warmup) in RUNS.items():
        torch.manual_seed(seed)
        model = DeepMLP(depth, DIM, WIDTH, use_residual=residual)
        losses, held_out = train(model, data, warmup=warmup)
        print(
            f"{name:>24}: training loss {losses[0]:.4f} -> {losses[-1]:.4f} "
            f"(highest {max(losses):.4f}), held-out MSE {held_out:.4f}"
        )


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError as todo:
        sys.exit(f"Not done yet: {todo}")
