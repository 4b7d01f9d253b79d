"""Other skip patterns: across depth the carry paths of a highway stack multiply, (1 − T) per block.

Letters: d width, L blocks, g = ∂L/∂y the upstream gradient, T = σ(b_T) a constant gate (W_T = 0).
Float64, so that the comparison with the closed form sees the maths, not rounding.
Run `python -m snippets.skip_patterns.highway_depth` to print what the page states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock
from snippets.skip_patterns.highway import HighwayBlock


# --8<-- [start:carry]
def carry_only(block: nn.Module) -> nn.Module:
    """Silence the transform (H = 0) and, in a highway block, fix the gate at σ(b_T)."""
    for name, p in block.named_parameters():
        if not name.endswith("gate.bias"):
            nn.init.zeros_(p)  # W_T = 0, and H's weights: only the carry path is left
    return block


def carried_gradient(stack: nn.Sequential, d: int) -> float:
    """‖∂L/∂x‖ / ‖g‖ through the whole stack, for a random upstream gradient g."""
    x = torch.randn(4, d, dtype=torch.float64, requires_grad=True)  # (N, d)
    g = torch.randn(4, d, dtype=torch.float64)  # (N, d)
    stack(x).backward(g)
    return (x.grad.norm() / g.norm()).item()


# --8<-- [end:carry]


@dataclass(frozen=True)
class Result:
    """Carried gradient through L highway and L zero-branch residual blocks, and the closed form."""

    depth: int
    gate_bias: float
    highway: float
    residual: float
    closed_form: float


def measure(
    device: str = "cpu",
    seed: int = 0,
    d: int = 16,
    depth: int = 50,
    gate_bias: float = -2.0,
) -> Result:
    """Build both carry-only stacks of `depth` blocks and backpropagate one random g."""
    torch.manual_seed(seed)
    with torch.device(device):
        highway = nn.Sequential(
            *(carry_only(HighwayBlock(d, gate_bias)) for _ in range(depth))
        ).double()
        residual = nn.Sequential(
            *(carry_only(ResidualBlock(d)) for _ in range(depth))
        ).double()
        return Result(
            depth=depth,
            gate_bias=gate_bias,
            highway=carried_gradient(highway, d),
            residual=carried_gradient(residual, d),
            closed_form=(1 - 1 / (1 + math.exp(-gate_bias))) ** depth,
        )


if __name__ == "__main__":
    print(measure())
