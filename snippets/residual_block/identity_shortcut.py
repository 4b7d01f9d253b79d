"""Part 2: a residual block whose shortcut is the identity.

Letters used on the page: N batch size, d stream width, e expansion factor of the branch.
Run `python -m snippets.residual_block.identity_shortcut` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


# --8<-- [start:block]
class ResidualBlock(nn.Module):
    """y = x + F(x): F is Linear -> ReLU -> Linear, the shortcut is the identity."""

    def __init__(self, d: int, expansion: int = 1) -> None:
        super().__init__()
        self.branch = nn.Sequential(
            nn.Linear(d, expansion * d),  # (N, e·d): widen
            nn.ReLU(),
            nn.Linear(expansion * d, d),  # (N, d): back to the stream's width
        )
        self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.branch(x)  # (N, d)


# --8<-- [end:block]


# --8<-- [start:count]
def branch_parameters(d: int, expansion: int) -> int:
    """Weights and biases of the branch: d·(e·d) + e·d, then (e·d)·d + d."""
    hidden = expansion * d
    return d * hidden + hidden + hidden * d + d


# --8<-- [end:count]


@dataclass(frozen=True)
class Result:
    """Shapes and parameter counts of identity-shortcut blocks of width d."""

    d: int
    input_shape: list[int]
    output_shapes: dict[int, list[int]]  # expansion -> output shape
    parameters: dict[int, int]  # expansion -> counted by torch
    formula: dict[int, int]  # expansion -> branch_parameters(d, e)
    shortcut_parameters: int


def measure(device: str = "cpu", seed: int = 0, d: int = 64, batch: int = 8) -> Result:
    """Build blocks with expansion 1 and 4, push one batch through, count parameters."""
    torch.manual_seed(seed)
    x = torch.randn(batch, d, device=device)
    shapes, params, formula = {}, {}, {}
    for e in (1, 4):
        block = ResidualBlock(d, expansion=e).to(device)
        shapes[e] = list(block(x).shape)
        params[e] = sum(p.numel() for p in block.parameters())
        formula[e] = branch_parameters(d, e)
    shortcut = sum(p.numel() for p in ResidualBlock(d).shortcut.parameters())
    return Result(d, list(x.shape), shapes, params, formula, shortcut)


if __name__ == "__main__":
    print(measure())
