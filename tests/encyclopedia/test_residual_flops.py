"""Claims of the encyclopedia entry about the cost of the residual addition."""

import pytest

from snippets.encyclopedia import residual_flops as snippet

PAGE = "encyclopedia/residual-stream.md"


@pytest.mark.claim(
    "torch's FLOP counter finds exactly 24·B·T·d² + 4·B·T²·d matrix-product FLOPs per block, and the two "
    "residual additions (2·B·T·d) are under 1/1000 of that for every d from 64 to 12288 at T = 2048.",
    page=PAGE,
    device_independent="counted on the meta device: shapes only, no arithmetic runs",
)
def test_residual_additions_cost_under_a_thousandth_of_block_matmuls(claim, device):
    r = snippet.measure(device)
    share = 1e-3

    def cheap(rows: list[list[float]]) -> None:
        for d, _, counted, formula, residual, ratio in rows:
            assert counted == formula, (d, counted, formula)
            assert ratio == residual / counted < share, (d, ratio)

    claim.check(cheap, r.rows)
    no_attention = [[d, h, c, f - 4 * r.B * r.T * r.T * d, res, q] for d, h, c, f, res, q in r.rows]
    claim.rejects(cheap, no_attention, because="a formula that forgets the QKᵀ and AV products")
    claim.rejects(
        cheap,
        [[d, h, res, res, res, 1.0] for d, h, _, _, res, _ in r.rows],
        because="a sublayer as cheap as the addition",
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
