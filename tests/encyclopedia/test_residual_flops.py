"""Claims of the encyclopedia entry about the cost of the residual addition."""

import pytest
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from sitekit.margins import below
from snippets.encyclopedia import residual_flops as snippet
from snippets.encyclopedia.transformer_block import PreNormBlock

PAGE = "encyclopedia/residual-stream.md"


def without_attention(d: int, heads: int) -> nn.Module:
    """The counterfactual block: the same pre-norm block with its attention sublayer taken out."""
    block = PreNormBlock(d, heads)
    block.attn = nn.Identity()
    return block


def counted_rows(make_block, B: int, T: int, widths: tuple[int, ...]) -> list[list[float]]:
    """Rows shaped like measure()'s, for any block: torch's FLOP count, the formula, the adds, their ratio."""
    rows = []
    for d in widths:
        with torch.device("meta"):
            block, x = make_block(d, d // 64 or 1), torch.empty(B, T, d)  # x: (B, T, d)
        with FlopCounterMode(display=False) as counter:
            block(x)
        counted, residual = counter.get_total_flops(), 2 * B * T * d
        rows.append([d, d // 64 or 1, counted, snippet.matmul_formula(d, B, T), residual, residual / counted])
    return rows


SMALL_D, SHORT_T = 16, 64  # the counterfactual's width and sequence: 2/(24d + 4T) is above 1/1000 there


@pytest.mark.claim(
    "torch's FLOP counter finds exactly 24·B·T·d² + 4·B·T²·d matrix-product FLOPs per block, and the two "
    "residual additions (2·B·T·d) are under 1/1000 of that for every d from 64 to 12288 at T = 2048.",
    page=PAGE,
    device_independent="counted on the meta device: shapes only, no arithmetic runs",
    exact="torch's FLOP count equals the integer formula at every width, and the adds' share is a ratio of "
    "integer counts",
)
def test_residual_additions_cost_under_a_thousandth_of_block_matmuls(claim, device):
    r = snippet.measure(device)
    share = 1e-3

    def cheap(rows: list[list[float]]) -> None:
        for d, _, counted, formula, residual, ratio in rows:
            assert counted == formula, (d, counted, formula)
            assert ratio == residual / counted, (d, ratio)
        below("residual-add FLOPs / matrix-product FLOPs", [row[5] for row in rows], share)

    claim.check(cheap, r.rows)
    widths = tuple(row[0] for row in r.rows)
    assert counted_rows(PreNormBlock, r.B, r.T, widths) == r.rows  # the test's counter agrees with the snippet's
    claim.rejects(
        cheap,
        counted_rows(without_attention, r.B, r.T, widths),
        because="the block without its attention sublayer, counted by torch",
    )
    claim.rejects(
        cheap,
        counted_rows(PreNormBlock, r.B, SHORT_T, (SMALL_D,)),
        because=f"a narrow block on short sequences (d = {SMALL_D}, T = {SHORT_T}), counted by torch",
    )
    claim.record(
        B=r.B,
        T=r.T,
        table={
            "columns": ["d", "matrix-product FLOPs", "residual-add FLOPs", "ratio"],
            "rows": [[d, c, res, f"{q:.2e}"] for d, _, c, _, res, q in r.rows],  # ints shown with ","
        },
        ratio_max=max(row[5] for row in r.rows),
        ratio_gpt3=r.rows[-1][5],
        share=share,
        widths=[row[0] for row in r.rows],
    )
