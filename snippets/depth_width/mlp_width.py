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
from torch.utils.flop_counter import FlopCounterMode

from snippets.residual_block.identity_shortcut import ResidualBlock


# --8<-- [start:count]
def split_count(block: nn.Module) -> tuple[int, int]:
    """(weights, biases) of a block, as PyTorch stores them."""
    named = list(block.named_parameters())
    weights = sum(p.numel() for name, p in named if name.endswith("weight"))
    biases = sum(p.numel() for name, p in named if name.endswith("bias"))
    return weights, biases


CONFIGS = {  # name: (d, e), so h = e·d
    "base": (256, 4),
    "hidden doubled": (256, 8),
    "stream and hidden doubled": (512, 4),
}


# --8<-- [end:count]


def widths(block: nn.Module) -> tuple[int, int]:
    """(d, h) of a built block: its first Linear maps the stream's d to the hidden h."""
    first = next(m for m in block.modules() if isinstance(m, nn.Linear))
    return first.in_features, first.out_features


def multiply_accumulates(block: nn.Module, d: int) -> int:
    """Multiply-accumulates of one token through the block, counted by torch (meta device:
    shapes only); torch counts a multiply-add as two FLOPs."""
    with FlopCounterMode(display=False) as counter:
        block(torch.zeros(1, d, device="meta"))  # (1, d): one token
    return counter.get_total_flops() // 2


@dataclass(frozen=True)
class Result:
    """Weights and biases of each configuration, its widths as built, its multiply-accumulates
    per token as counted, and their ratios to the base block."""

    counts: dict[str, tuple[int, int]]
    widths: dict[str, tuple[int, int]]  # (d, h), read off the built block
    macs: dict[str, int]
    weight_ratio: dict[str, float]
    total_ratio: dict[str, float]
    macs_ratio: dict[str, float]


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Count each configuration's parameters and multiply-accumulates (shapes only: built
    on the meta device)."""
    counts, dh, macs = {}, {}, {}
    with torch.device("meta"):
        for name, (d, e) in CONFIGS.items():
            block = ResidualBlock(d, expansion=e)
            counts[name] = split_count(block)
            dh[name] = widths(block)
            macs[name] = multiply_accumulates(block, d)
    base = next(iter(counts.values()))
    base_macs = next(iter(macs.values()))
    return Result(
        counts=counts,
        widths=dh,
        macs=macs,
        weight_ratio={n: w / base[0] for n, (w, _) in counts.items()},
        total_ratio={n: (w + b) / sum(base) for n, (w, b) in counts.items()},
        macs_ratio={n: m / base_macs for n, m in macs.items()},
    )


if __name__ == "__main__":
    print(measure())
