"""Encyclopedia, The Residual Stream: the residual additions' cost next to the matrix products.

Letters used on the page: B batch size, T sequence length, d stream width, h heads.
Counted on the meta device: shapes only, no arithmetic, so GPT-3-sized blocks cost nothing.
Run `python -m snippets.encyclopedia.residual_flops` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.utils.flop_counter import FlopCounterMode

from snippets.encyclopedia.transformer_block import PreNormBlock


# --8<-- [start:count]
def block_costs(d: int, heads: int, B: int, T: int) -> tuple[int, int]:
    """(matrix-product FLOPs counted by torch, FLOPs of the two residual adds)."""
    with torch.device("meta"):
        block, x = PreNormBlock(d, heads), torch.empty(B, T, d)  # x: (B, T, d)
    with FlopCounterMode(display=False) as counter:
        block(x)
    additions = 2 * B * T * d  # one add per stream entry, in each of two residuals
    return counter.get_total_flops(), additions


def matmul_formula(d: int, B: int, T: int) -> int:
    """2·B·T·d·(3d + d + 4d + 4d) for four Linears, plus 2·2·B·T²·d for QKᵀ and AV."""
    return 24 * B * T * d * d + 4 * B * T * T * d


# --8<-- [end:count]


@dataclass(frozen=True)
class Result:
    """Counted and predicted FLOPs for a range of widths."""

    B: int
    T: int
    rows: list[
        list[float]
    ]  # d, heads, counted matmul FLOPs, formula, residual FLOPs, ratio


def measure(
    device: str = "cpu",
    seed: int = 0,
    B: int = 1,
    T: int = 2048,
    widths: tuple[int, ...] = (64, 768, 4096, 12288),
) -> Result:
    """Count one block per width d (h = d / 64 heads); device and seed are unused."""
    rows = []
    for d in widths:
        counted, residual = block_costs(d, d // 64, B, T)
        rows.append(
            [d, d // 64, counted, matmul_formula(d, B, T), residual, residual / counted]
        )
    return Result(B, T, rows)


if __name__ == "__main__":
    for row in measure().rows:
        print(row)
