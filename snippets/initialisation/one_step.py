"""Initialisation and scale: how much one optimiser step changes a residual stack's function,
against depth.

Letters: N batch size, d stream width, L number of residual branches, η the learning rate,
α a fixed multiplier on every branch, r a random direction that defines the loss Σ r·f(x).
Run `python -m snippets.initialisation.one_step` to print what the page states.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import torch
from torch import nn

from snippets.initialisation.fixup import Block, fixup_scale
from snippets.residual_block.identity_shortcut import ResidualBlock

DEPTHS = (4, 16, 64)


# --8<-- [start:one_step]
class ScaledBlock(ResidualBlock):
    """y = x + α·F(x): the residual block with a fixed multiplier on its branch."""

    def __init__(self, d: int, alpha: float) -> None:
        super().__init__(d)
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.alpha * self.branch(x)  # (N, d)


def one_step_change(
    stack: nn.Module, x: torch.Tensor, optimiser: str, lr: float
) -> float:
    """‖f(x) after one step − f(x) before‖ / ‖x‖, for the loss Σ r·f(x) / N."""
    before = stack(x).detach()  # (N, d)
    r = torch.randn_like(before)  # (N, d)
    opt = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[optimiser]
    step = opt(stack.parameters(), lr=lr)
    ((stack(x) * r).sum() / len(x)).backward()
    step.step()  # every branch moves at once, and their changes add in the stream
    with torch.no_grad():
        return ((stack(x) - before).norm() / x.norm()).item()


# --8<-- [end:one_step]


@dataclass(frozen=True)
class Result:
    """change[setting][L]: relative output change after one step."""

    change: dict[str, dict[int, float]]


SETTINGS = {
    # name: (optimiser, learning rate, how a stack of L blocks is built)
    "sgd unscaled": ("sgd", 1e-3, lambda d, L: Block(d, 2, 1.0)),
    "sgd fixup": ("sgd", 1e-3, lambda d, L: Block(d, 2, fixup_scale(L, 2))),
    "adam α=1": ("adam", 1e-3, lambda d, L: ScaledBlock(d, 1.0)),
    "adam α=1/√L": ("adam", 1e-3, lambda d, L: ScaledBlock(d, L**-0.5)),
    "adam α=1/L": ("adam", 1e-3, lambda d, L: ScaledBlock(d, 1 / L)),
    "adam α=1 η=1e-4": ("adam", 1e-4, lambda d, L: ScaledBlock(d, 1.0)),
}


# The batch x and the loss direction r come from a stream of their own, seed + DATA_STREAM,
# drawn after the stack is built: every depth and setting of one seed sees the same x and r,
# so a comparison across depths is paired and shows what depth does, not how one batch
# differs from another.
DATA_STREAM = 2**40


def measure(device: str = "cpu", seed: int = 0, d: int = 32, batch: int = 64) -> Result:
    """One step of each setting at each depth; the same batch and r at every depth."""
    change: dict[str, dict[int, float]] = {}
    for name, (optimiser, lr, make) in SETTINGS.items():
        change[name] = {}
        for L in DEPTHS:
            torch.manual_seed(seed)
            with torch.device(device):
                stack = nn.Sequential(*(make(d, L) for _ in range(L)))
                torch.manual_seed(seed + DATA_STREAM)  # r is the draw after x
                x = torch.randn(batch, d)  # (N, d)
                change[name][L] = one_step_change(stack, x, optimiser, lr)
    return Result(change)


if __name__ == "__main__":
    runs = [measure(seed=s) for s in range(5)]
    for name in SETTINGS:
        meds = [statistics.median(r.change[name][L] for r in runs) for L in DEPTHS]
        print(f"{name:14s}", [f"{v:.3g}" for v in meds])
