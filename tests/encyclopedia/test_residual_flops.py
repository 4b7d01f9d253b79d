"""Claims of the encyclopedia entry about the cost of the residual addition."""

import pytest

from sitekit import facts
from sitekit.margins import below
from snippets.encyclopedia import residual_flops as snippet

PAGE = "encyclopedia/residual-stream.md"
SMALL_D, SHORT_T = 16, 64  # the counterfactual's width and sequence: 2/(24d + 4T) is above 1/1000 there


def widths() -> tuple[int, ...]:
    """Widths from a small block up to GPT-3's d_model, the last read from facts/facts.toml."""
    return (64, 768, 4096, int(facts.registry().value("gpt3_d_model")))


@pytest.mark.claim(
    "torch's FLOP counter finds exactly 24·B·T·d² + 4·B·T²·d matrix-product FLOPs per block, and its "
    "residual additions (2·B·T·d, one per sublayer) are under 1/1000 of that for every d from 64 to 12288 at T = 2048.",
    page=PAGE,
    device_independent="counted on the meta device: shapes only, no arithmetic runs",
    exact="torch's FLOP count equals the integer formula at every width, and the adds' share is a ratio of "
    "integer counts",
)
def test_residual_additions_cost_under_a_thousandth_of_block_matmuls(claim, device):
    r = snippet.measure(device, widths=widths())
    share = 1e-3

    def cheap(rows: list[list[float]]) -> None:
        for d, _, counted, formula, residual, ratio in rows:
            assert counted == formula, (d, counted, formula)
            assert ratio == residual / counted, (d, ratio)
        below("residual-add FLOPs / matrix-product FLOPs", [row[5] for row in rows], share)

    claim.check(cheap, r.rows)
    no_attention = snippet.measure(device, widths=widths(), attention=False)
    claim.rejects(cheap, no_attention.rows, because="the block without its attention sublayer, counted by torch")
    narrow = snippet.measure(device, T=SHORT_T, widths=(SMALL_D,))
    claim.rejects(
        cheap,
        narrow.rows,
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
        share=share,  # the asserted bound itself (the same variable), which two module pages show
        widths=[row[0] for row in r.rows],
    )
