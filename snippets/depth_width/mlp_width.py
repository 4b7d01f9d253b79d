"""Depth versus width: what doubling the hidden width, or both widths, does to a residual MLP block.

Letters: d the stream width, h = e·d the branch's hidden width (e the expansion factor of the
residual-block page).
The block is the residual-block page's ResidualBlock: Linear(d, h) -> ReLU -> Linear(h, d) plus
the identity.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock


# --8<-- [start:count]
def split_count(block: nn.Module) -> tuple[int, int]:
    """(weights, biases) of a block, as PyTorch stores them."""
    named = list(block.named_parameters())
    weights = sum(p.numel() for name, p in named if name.endswith("weight"))
    biases = sum(p.numel() for name, p in named if name.endswith("bias"))
    return weights, biases


CONFIGS = {  # name: (d, e), so h = e·d
    "base (d = 256, h = 1024)": (256, 4),
    "hidden doubled (d = 256, h = 2048)": (256, 8),
    "stream and hidden doubled (d = 512, h = 2048)": (512, 4),
}


# --8<-- [end:count]


@dataclass(frozen=True)
class Result:
    """Weights and biases of each configuration, and their ratios to the base block."""

    counts: dict[str, tuple[int, int]]
    weight_ratio: dict[str, float]
    total_ratio: dict[str, float]
    macs_ratio: dict[
        str, float
    ]  # multiply-accumulates per token: 2·d·h, the same ratio as the weights


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Count each configuration's parameters (shapes only: built on the meta device)."""
    counts = {}
    with torch.device("meta"):
        for name, (d, e) in CONFIGS.items():
            counts[name] = split_count(ResidualBlock(d, expansion=e))
    base = next(iter(counts.values()))
    macs = {name: 2 * d * (e * d) for name, (d, e) in CONFIGS.items()}
    base_macs = next(iter(macs.values()))
    return Result(
        counts=counts,
        weight_ratio={n: w / base[0] for n, (w, _) in counts.items()},
        total_ratio={n: (w + b) / sum(base) for n, (w, b) in counts.items()},
        macs_ratio={n: m / base_macs for n, m in macs.items()},
    )


if __name__ == "__main__":
    print(measure())
