"""Initialisation and scale: how far a residual stack starts from the identity, with and without a
zeroed last layer.

Letters: N batch size, d stream width, L depth in blocks; h_L the stack's output for input x.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.gradient_highway.depth_sweep import make_stack
from snippets.residual_block.pre_activation import zero_branch

INITS = ("zero last layer", "default", "he")
SHOWN = (1, 2, 5, 10, 20, 30, 50, 100)


# --8<-- [start:deviation]
def relative_deviation(stack: nn.Sequential, x: torch.Tensor) -> list[float]:
    """‖h_l − x‖ / ‖x‖ after each block l = 1..L: the distance from the identity."""
    h, out = x, []
    with torch.no_grad():
        for block in stack:
            h = block(h)  # (N, d)
            out.append(
                ((h - x).double().norm() / x.double().norm()).item()
            )  # float64: no overflow
    return out


def build(depth: int, d: int, init: str) -> nn.Sequential:
    """Residual blocks; 'zero last layer' zeros each branch's W2 and b2."""
    if init == "zero last layer":
        return nn.Sequential(
            *(zero_branch(block) for block in make_stack(depth, d, residual=True))
        )
    return make_stack(depth, d, residual=True, init=init)  # PyTorch's default, or He


# --8<-- [end:deviation]


@dataclass(frozen=True)
class Result:
    """deviation[init][l − 1] for one seed, and whether the zeroed stack returned x bit-for-bit."""

    seed: int
    deviation: dict[str, list[float]]
    zeroed_returns_input: bool
    returns_input: dict[str, bool]  # init -> the 100-block stack returned x bit-for-bit


def measure(
    device: str = "cpu", seed: int = 0, d: int = 64, batch: int = 32, depth: int = 100
) -> Result:
    """One 100-block stack per initialisation; every depth 1..100 is a prefix of it."""
    deviation, returns = {}, {}
    for init in INITS:
        torch.manual_seed(seed)
        with torch.device(device):
            stack = build(depth, d, init)
            x = torch.randn(batch, d)  # (N, d)
        deviation[init] = relative_deviation(stack, x)
        with torch.no_grad():
            returns[init] = torch.equal(stack(x), x)
    return Result(seed, deviation, returns["zero last layer"], returns)


if __name__ == "__main__":
    r = measure()
    for init, row in r.deviation.items():
        print(f"{init:16}", "  ".join(f"L={L}: {row[L - 1]:.3g}" for L in SHOWN))
