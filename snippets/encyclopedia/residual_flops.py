"""Encyclopedia, The Residual Stream: the residual additions' cost next to the matrix products.

Letters used on the page: B batch size, T sequence length, d stream width, h heads.
Counted on the meta device: shapes only, no arithmetic, so GPT-3-sized blocks cost nothing.
Run `python -m snippets.encyclopedia.residual_flops` to print what the page states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from snippets.encyclopedia.transformer_block import PreNormBlock


# --8<-- [start:count]
def block_costs(
    d: int,
    heads: int,
    B: int,
    T: int,
    make_block: Callable[[int, int], nn.Module] = PreNormBlock,
) -> tuple[int, int]:
    """(matrix-product FLOPs counted by torch, FLOPs of the two residual adds)."""
    with torch.device("meta"):
        block, x = make_block(d, heads), torch.empty(B, T, d)  # x: (B, T, d)
    with FlopCounterMode(display=False) as counter:
        block(x)
    additions = 2 * B * T * d  # one add per stream entry, in each of two residuals
    return counter.get_total_flops(), additions


def matmul_formula(d: int, B: int, T: int) -> int:
    """2·B·T·d·(3d + d + 4d + 4d) for four Linears, plus 2·2·B·T²·d for QKᵀ and AV."""
    return 24 * B * T * d * d + 4 * B * T * T * d


# --8<-- [end:count]


def without_attention(d: int, heads: int) -> nn.Module:
    """The same pre-norm block with its attention sublayer taken out (a counterfactual: the formula
    above then over-counts, by the attention's Linears and its two T × T products)."""
    block = PreNormBlock(d, heads)
    block.attn = nn.Identity()
    return block


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
    *,
    widths: tuple[int, ...],
    attention: bool = True,
) -> Result:
    """Count one block per width d (h = d / 64 heads, at least one); device and seed are unused.

    attention=False counts the block without its attention sublayer instead.
    """
    make_block = PreNormBlock if attention else without_attention
    rows = []
    for d in widths:
        heads = max(1, d // 64)
        counted, residual = block_costs(d, heads, B, T, make_block)
        rows.append(
            [d, heads, counted, matmul_formula(d, B, T), residual, residual / counted]
        )
    return Result(B, T, rows)


if __name__ == "__main__":
    from sitekit import facts  # GPT-3's width, as the page shows it

    gpt3 = int(facts.registry().value("gpt3_d_model"))
    for row in measure(widths=(64, 768, 4096, gpt3)).rows:
        print(row)
