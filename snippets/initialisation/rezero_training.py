# site: not-a-listing (measurement harness around rezero.py's ReZeroBlock, task() and train())
"""Initialisation and scale: a deep ReZero stack against the plain stack of the same
branches, trained from the same starting loss.

Every stack reads out through one Linear layer whose weight and bias start at zero, so all start
from the output 0 and the same loss, mean(y²), bit for bit. (Without it the ReZero stack starts at
the identity, loss mean((x − y)²), and the plain stack near 0: their starting losses would differ
by about 2×, and a "fraction of its own start" would compare different things.) Each stack trains
with full-batch Adam at each of a few learning rates, from the same initial weights; a claim
compares them per seed, each at its own best rate. A third stack is the ReZero stack with its
gates frozen at α = 0: it can only fit a linear read-out of its input, which says how much of
the ReZero stack's result the identity path and the read-out alone give.

Run `python -m snippets.initialisation.rezero_training` to print one seed's numbers.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import nn

from snippets.initialisation.rezero import ReZeroBlock, task, train

RATES = (3e-3, 1e-2, 3e-2)
EARLY = 10  # steps of the short run: the ReZero stack stopped early, a check's counterfactual


def zero_readout(d: int) -> nn.Linear:
    """A d -> d Linear layer whose weight and bias start at zero: the output starts at 0."""
    head = nn.Linear(d, d)
    nn.init.zeros_(head.weight)
    nn.init.zeros_(head.bias)
    return head


@dataclass(frozen=True)
class Result:
    """Every rate's loss curve (the loss before each step) for both stacks, from one seed."""

    rates: tuple[float, ...]
    rezero: dict[float, list[float]]
    plain: dict[float, list[float]]
    frozen: dict[float, list[float]]  # the ReZero stack with every α frozen at 0
    early: dict[float, list[float]]  # the ReZero stack trained for EARLY steps only
    depth: int
    d: int
    n: int
    steps: int


def measure(
    device: str = "cpu",
    seed: int = 0,
    d: int = 16,
    depth: int = 50,
    steps: int = 150,
    n: int = 128,
) -> Result:
    """Build the stacks and the task from `seed` (as rezero.py does); train copies at every rate."""
    torch.manual_seed(seed)
    with torch.device(device):
        stack = nn.Sequential(*(ReZeroBlock(d) for _ in range(depth)), zero_readout(d))
        x, y = task(n, d)
        plain = nn.Sequential(
            *(ReZeroBlock(d).branch for _ in range(depth)), zero_readout(d)
        )  # no shortcut, no α
    rezero_curves, plain_curves, frozen_curves, early_curves = {}, {}, {}, {}
    for lr in RATES:  # the same initial weights at every rate
        rezero_curves[lr] = train(copy.deepcopy(stack), x, y, steps, lr=lr)
        plain_curves[lr] = train(copy.deepcopy(plain), x, y, steps, lr=lr)
        frozen = copy.deepcopy(stack)
        for block in frozen[:-1]:
            block.alpha.requires_grad_(
                False
            )  # α stays 0: the branches get no gradient either
        frozen_curves[lr] = train(frozen, x, y, steps, lr=lr)
        early_curves[lr] = train(copy.deepcopy(stack), x, y, EARLY, lr=lr)
    return Result(
        RATES,
        rezero_curves,
        plain_curves,
        frozen_curves,
        early_curves,
        depth,
        d,
        n,
        steps,
    )


if __name__ == "__main__":
    r = measure()
    for lr in r.rates:
        print(
            f"lr {lr:g}: ReZero {r.rezero[lr][0]:.4f} -> {r.rezero[lr][-1]:.4g}, "
            f"plain {r.plain[lr][0]:.4f} -> {r.plain[lr][-1]:.4g}, frozen α {r.frozen[lr][-1]:.4g}"
        )
