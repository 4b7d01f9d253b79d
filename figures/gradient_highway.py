"""Figures of Part 3, drawn from the recorded depth sweep."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

PLAIN = "plain_stack_input_gradient_vanishes_by_depth_50"
HE = "he_init_makes_both_stacks_explode"


def _band(ax: Any, table: dict, offset: int, label: str, color: str) -> None:
    depth = [row[0] for row in table["rows"]]
    ax.fill_between(
        depth,
        [r[offset + 1] for r in table["rows"]],
        [r[offset + 2] for r in table["rows"]],
        color=color,
        alpha=0.2,
        linewidth=0,
    )
    ax.plot(depth, [r[offset] for r in table["rows"]], "o-", color=color, label=label)


@figure("input-gradient-vs-depth", claims=[PLAIN, HE])
def input_gradient_vs_depth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, (title, table) in zip(
        axes,
        [("PyTorch default init", values[PLAIN]["table"]), ("He (Kaiming-normal) init", values[HE]["table"])],
        strict=True,
    ):
        _band(ax, table, 1, "plain", "#c0392b")
        _band(ax, table, 4, "residual", "#2c3e91")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("depth L (blocks)")
        ax.set_xticks([5, 10, 20, 50])
    axes[0].set_ylabel("‖∂L/∂x‖ (median, min–max of 5 seeds)")
    axes[0].legend(loc="lower left")
    fig.tight_layout()
    return fig
