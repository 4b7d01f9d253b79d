"""Costs: how the memory training keeps grows with depth, residual addition against concatenation.

The stacks and the byte count come from the skip-patterns page
(snippets/skip_patterns/dense_concat.py); this
file fits the growth law. Letters: N tokens, d stream width (= the dense stack's input width
k0), k growth, L depth. Run `python -m snippets.costs.concat_memory`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from snippets.costs.add_share import one_thread
from snippets.residual_block.identity_shortcut import ResidualBlock
from snippets.skip_patterns.dense_concat import DenseStack, saved_bytes

DEPTHS = (4, 8, 16, 32, 64, 128)


# --8<-- [start:exponent]
def growth_exponent(depths: tuple[int, ...], sizes: list[int]) -> float:
    """p in bytes ∝ Lᵖ, from the two deepest stacks: 1 is linear, 2 quadratic."""
    (l1, s1), (l2, s2) = list(zip(depths, sizes, strict=True))[-2:]
    return math.log(s2 / s1) / math.log(l2 / l1)


# --8<-- [end:exponent]


@dataclass(frozen=True)
class Result:
    """Saved bytes per token at each depth, for both stacks, and their exponents."""

    d: int
    growth: int
    residual: list[int]
    dense: list[int]
    residual_exponent: float
    dense_exponent: float


def measure(
    device: str = "cpu", seed: int = 0, d: int = 64, growth: int = 32, tokens: int = 8
) -> Result:
    """Count what one forward pass keeps at each depth, per token."""
    torch.manual_seed(seed)
    x = torch.randn(tokens, d, device=device)  # (N, d)
    residual, dense = [], []
    with one_thread(device):  # tiny matrices: a second thread only adds hand-over cost
        for depth in DEPTHS:
            stack = nn.Sequential(*(ResidualBlock(d) for _ in range(depth))).to(device)
            residual.append(saved_bytes(stack, x) // tokens)
            dense.append(
                saved_bytes(DenseStack(d, growth, depth).to(device), x) // tokens
            )
    return Result(
        d,
        growth,
        residual,
        dense,
        growth_exponent(DEPTHS, residual),
        growth_exponent(DEPTHS, dense),
    )


if __name__ == "__main__":
    r = measure()
    for L, a, b in zip(DEPTHS, r.residual, r.dense, strict=True):
        print(f"L={L:4}  residual {a:9,} B/token  dense {b:11,} B/token")
    print(
        f"growth exponents: residual {r.residual_exponent:.2f}, dense {r.dense_exponent:.3f}"
    )
