# site: not-a-listing (the exercise's spike controls: tests/exercise/test_spike_control.py)
"""Controls for the exercise's early loss spike: is it the sum of Adam's first steps?

The exercise's deep residual model (16 BatchNorm blocks, the last Linear of every branch zeroed)
jumps far above its starting loss in its first epochs under Adam without warm-up. The page explains
the jump as a sum: Adam moves every weight of every zeroed last layer by about the learning rate on
its first step, whatever the size of its gradient, and all 16 branches write those changes into one
stream. Two controls keep the model an exact identity at the start and change only what a first step
can move:

- **ReZero gates** in place of the zeroed matrices: the plain model's He-initialised branches (from
  the same seed, last layers not zeroed), each behind one learned scalar alpha = 0, the block
  x + alpha * F(x). Same Adam, same rate, no warm-up: a first step now moves one number per branch
  by about the rate, instead of a whole 32x32 matrix and its bias.
- **SGD** in place of Adam, at the same rate, on the zeroed-last-layer model itself: a step is the
  rate times the gradient, so the zeroed layers move in proportion to their (small) gradients.

The models, the data and the Adam training loop are the worked solution's own (its notebook cells in
the starter, loaded as the self-check loads a learner's file); the SGD loop is that loop with the
optimiser swapped. Each seed fixes the data and the initial weights of all three runs.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import torch
from snippets.exercise import check, learner
from torch import nn


def worked_solution() -> ModuleType:
    """The worked solution as a learner's file (the starter with the notebook's cells), imported."""
    with tempfile.TemporaryDirectory(prefix="spike-") as folder:
        path = Path(folder) / "worked_solution.py"
        path.write_text(learner.worked_solution_text(), encoding="utf-8")
        module, problem = check.load(path)
    if module is None:
        raise RuntimeError(problem)
    return module


class ReZeroGate(nn.Module):
    """x + alpha * F(x) around an existing branch F; alpha is one learned scalar, 0 at the start."""

    def __init__(self, branch: nn.Module) -> None:
        super().__init__()
        self.branch = branch
        self.alpha = nn.Parameter(torch.zeros(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.alpha * self.branch(x)


def rezero_model(module: ModuleType, seed: int) -> nn.Module:
    """The deep plain model from `seed` (He-initialised branches), each behind a ReZero gate."""
    model = check._make(module, check.DEEP, False, seed)
    model.blocks = nn.ModuleList(ReZeroGate(branch) for branch in model.blocks)
    return model


def train_sgd(
    model: nn.Module, data: tuple[torch.Tensor, ...], epochs: int, lr: float
) -> tuple[list[float], float]:
    """The worked solution's train() (no warm-up) with torch.optim.SGD in place of Adam."""
    x, y, x_held_out, y_held_out = data
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    mse = nn.MSELoss()
    losses: list[float] = []
    model.train()
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = mse(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        held_out_mse = mse(model(x_held_out), y_held_out).item()
    return losses, held_out_mse


@dataclass(frozen=True)
class Run:
    """One model's training losses (one per epoch, before its step) and held-out MSE."""

    losses: list[float]
    held_out: float


@dataclass(frozen=True)
class Result:
    """Per seed, the three runs; and the configuration they share."""

    seeds: list[int]
    zeroed_adam: list[Run]  # the exercise's deep residual model, Adam, no warm-up
    rezero_adam: list[Run]  # ReZero gates on He-initialised branches, the same Adam
    zeroed_sgd: list[Run]  # the exercise's deep residual model, SGD at the same rate
    identity_at_start: list[
        bool
    ]  # the ReZero model's first loss equals the zeroed model's, bit for bit
    depth: int
    width: int
    epochs: int
    lr: float
    warmup: int
    rezero_parameters: int
    zeroed_parameters: int


def measure(device: str = "cpu", seeds: tuple[int, ...] = (0,)) -> Result:
    """Train the three models of every seed on `device` (the exercise's configuration)."""
    module = worked_solution()
    zeroed_adam, rezero_adam, zeroed_sgd, same_start = [], [], [], []
    for seed in seeds:
        data = tuple(t.to(device) for t in module.make_data(seed))
        epochs, lr = check.EPOCHS, check.LR
        runs = [
            Run(
                *module.train(
                    check._make(module, check.DEEP, True, seed).to(device),
                    data,
                    epochs,
                    lr,
                )
            ),
            Run(*module.train(rezero_model(module, seed).to(device), data, epochs, lr)),
            Run(
                *train_sgd(
                    check._make(module, check.DEEP, True, seed).to(device),
                    data,
                    epochs,
                    lr,
                )
            ),
        ]
        zeroed_adam.append(runs[0])
        rezero_adam.append(runs[1])
        zeroed_sgd.append(runs[2])
        same_start.append(runs[0].losses[0] == runs[1].losses[0] == runs[2].losses[0])
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    return Result(
        seeds=list(seeds),
        zeroed_adam=zeroed_adam,
        rezero_adam=rezero_adam,
        zeroed_sgd=zeroed_sgd,
        identity_at_start=same_start,
        depth=check.DEEP,
        width=check.WIDTH,
        epochs=check.EPOCHS,
        lr=check.LR,
        warmup=check.WARMUP,
        rezero_parameters=count(rezero_model(module, seeds[0])),
        zeroed_parameters=count(check._make(module, check.DEEP, True, seeds[0])),
    )


if __name__ == "__main__":
    r = measure(seeds=(0, 1))
    for name in ("zeroed_adam", "rezero_adam", "zeroed_sgd"):
        for run in getattr(r, name):
            peak = max(run.losses[1 : r.warmup]) / run.losses[0]
            first, last = run.losses[0], run.losses[-1]
            print(f"{name:12} start {first:.4f} peak/start {peak:.3f} final {last:.4g}")
