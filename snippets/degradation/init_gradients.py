"""The degradation problem: what BatchNorm does to a deep plain stack's input gradient at
initialisation.

Letters: N batch size (32), d width (128), L depth in blocks. Every block has two linear layers;
the rows without BatchNorm are the gradient-highway page's plain stacks, built by its own code
with the same seeds, so they reproduce its table.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.degradation.training_curves import ResidualBlock, one_thread
from snippets.gradient_highway.depth_sweep import (
    DEPTHS,
    input_gradient_norm,
    make_stack,
)


# --8<-- [start:bn_stack]
def make_bn_stack(depth: int, d: int, init: str = "he") -> nn.Sequential:
    """L plain blocks of the training run (Linear -> BN -> ReLU, twice)."""
    blocks = [nn.Sequential(ResidualBlock(d).branch, nn.ReLU()) for _ in range(depth)]
    stack = nn.Sequential(*blocks)  # (N, d) -> (N, d)
    for layer in stack.modules():
        if isinstance(layer, nn.Linear) and init == "he":
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
    return stack  # in training mode BN uses the batch's own mean and variance


# --8<-- [end:bn_stack]

STACKS = ("default, no BN", "He, no BN", "default + BN", "He + BN")


@dataclass(frozen=True)
class Result:
    """norms[stack][depth]: ‖∂L/∂x‖ for L = sum of outputs, one seed."""

    seed: int
    norms: dict[str, dict[int, float]]


def build(name: str, depth: int, d: int) -> nn.Sequential:
    if name.endswith("+ BN"):
        return make_bn_stack(depth, d, init="he" if name == "He + BN" else "default")
    return make_stack(
        depth, d, residual=False, init="he" if name == "He, no BN" else "default"
    )


def measure(
    device: str = "cpu", seed: int = 0, d: int = 128, batch: int = 32
) -> Result:
    """Input-gradient norm of the three plain stacks at depths 5, 10, 20 and 50 blocks."""
    norms: dict[str, dict[int, float]] = {name: {} for name in STACKS}
    with one_thread():
        for depth in DEPTHS:
            for name in STACKS:
                torch.manual_seed(
                    seed
                )  # the gradient-highway page's seeding, so its numbers reappear
                stack = build(name, depth, d).to(device)
                x = torch.randn(batch, d, device=device)  # (N, d)
                norms[name][depth] = input_gradient_norm(stack, x)
    return Result(seed, norms)


if __name__ == "__main__":
    r = measure()
    for name, row in r.norms.items():
        print(f"{name:16}", "  ".join(f"L={L}: {v:.3e}" for L, v in row.items()))
