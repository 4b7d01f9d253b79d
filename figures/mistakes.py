"""Figures of the Common mistakes page, drawn from the recorded stream-growth claim."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

GROWTH = "stream_growth_by_block_50_follows_branch_energy"
INITS = {"zero": "zeroed last layer", "default": "PyTorch default", "he": "He"}


@figure(
    "stream-growth-by-init",
    claims=[GROWTH],
    caption="The stream's norm relative to the input, block by block, for three initialisations of the "
    "branches (median and min–max band over the seeds); thin dotted lines are the prediction "
    "\\((1 + \\rho^2)^{l/2}\\), the dashed line marks the growth the text asks about.",
)
def stream_growth_by_init(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[GROWTH]
    fig, ax = plt.subplots(figsize=(6.8, 3.8))
    for init, label in INITS.items():
        st = look(init)
        curve = v["curves"][init]
        blocks = curve["block"]
        med, lo, hi = zip(*curve["spread"], strict=True)
        ax.fill_between(blocks, lo, hi, color=st.color, alpha=0.2, linewidth=0)
        ax.plot(blocks, med, markevery=max(1, len(blocks) // 8), **st.kw(label))
        rho2 = v["rho2"][init]
        ax.plot(blocks, [(1 + rho2) ** (b / 2) for b in blocks], ":", color=st.color, linewidth=1)
    neutral = look("neutral").color
    ax.axhline(v["target"], color=neutral, linestyle="--", linewidth=1)
    ax.annotate(f"{v['target']}×", (blocks[0], v["target"]), textcoords="offset points", xytext=(2, 4))
    ax.set_yscale("log")
    ax.set_xlabel("block $l$")
    ax.set_ylabel(r"$\|h_l\| \,/\, \|x\|$")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig
