# site: not-a-listing (measurement harness around rezero.py's ReZeroBlock and train())
"""Initialisation and scale: ReZero's α = 0 together with a zeroed last layer leaves nothing that
can move.

Letters: d width, L blocks, α ReZero's scalar.
Run `python -m snippets.initialisation.rezero_zero_last` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.initialisation.rezero import ReZeroBlock, task, train


@dataclass(frozen=True)
class Run:
    """What training changed: parameters that moved, and the loss before the first and last step."""

    moved: int
    tensors: int
    first: float
    last: float


@dataclass(frozen=True)
class Result:
    """Both zeroed (α and last layer) against ReZero alone, same seed and data."""

    depth: int
    steps: int
    both: Run
    rezero_only: Run


def run(zero_last: bool, d: int, depth: int, steps: int, seed: int) -> Run:
    """Train a ReZero stack, optionally with every branch's last layer zeroed too."""
    torch.manual_seed(seed)
    stack = nn.Sequential(*(ReZeroBlock(d) for _ in range(depth)))
    if zero_last:
        for block in stack:
            for p in block.branch[-1].parameters():
                nn.init.zeros_(p)
    x, y = task(128, d)
    before = [p.detach().clone() for p in stack.parameters()]
    losses = train(stack, x, y, steps, lr=1e-2)
    moved = sum(
        not torch.equal(a, p) for a, p in zip(before, stack.parameters(), strict=True)
    )
    return Run(moved=moved, tensors=len(before), first=losses[0], last=losses[-1])


def measure(
    device: str = "cpu", seed: int = 0, d: int = 16, depth: int = 10, steps: int = 20
) -> Result:
    """The same stack and data trained twice: with the last layers zeroed, and without."""
    with torch.device(device):
        return Result(
            depth=depth,
            steps=steps,
            both=run(True, d, depth, steps, seed),
            rezero_only=run(False, d, depth, steps, seed),
        )


if __name__ == "__main__":
    print(measure())
