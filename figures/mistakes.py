"""Figures of the Common mistakes page, drawn from the recorded stream-growth claim."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

GROWTH = "stream_growth_by_block_50_follows_branch_energy"
STYLE = {
    "zero": ("zero-init last layer", "#2c3e91"),
    "default": ("PyTorch default", "#27ae60"),
    "he": ("He", "#c0392b"),
}


@figure("stream-growth-by-init", claims=[GROWTH])
def stream_growth_by_init(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[GROWTH]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for init, (label, color) in STYLE.items():
        curve = v["curves"][init]
        blocks = curve["block"]
        med, lo, hi = zip(*curve["spread"], strict=True)
        ax.fill_between(blocks, lo, hi, color=color, alpha=0.2, linewidth=0)
        ax.plot(blocks, med, "-", color=color, label=f"{label} (median, min–max of {v['seeds']} seeds)")
        rho2 = v["rho2"][init]
        ax.plot(blocks, [(1 + rho2) ** (b / 2) for b in blocks], ":", color=color, linewidth=1)
    ax.axhline(10, color="#555555", linestyle="--", linewidth=1)
    ax.annotate("10×", (2, 10), textcoords="offset points", xytext=(0, 4), color="#555555")
    ax.set_yscale("log")
    ax.set_xlabel("block l")
    ax.set_ylabel("‖h_l‖ / ‖x‖")
    ax.set_title(f"Stream norm through {blocks[-1]} residual blocks (dotted: (1 + ρ²)^(l/2))")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig
