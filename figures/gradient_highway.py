"""Figures of "The gradient highway", drawn from the recorded depth sweep."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

PLAIN = "plain_stack_input_gradient_vanishes_by_depth_50"
HE = "he_init_makes_both_stacks_explode"
INITS = {"default": PLAIN, "he": HE}  # which claim records the sweep under each initialisation


def _band(ax: Any, table: dict, offset: int, kind: str) -> None:
    depth = [row[0] for row in table["rows"]]
    color = look(kind).color
    lo = [r[offset + 1] for r in table["rows"]]
    hi = [r[offset + 2] for r in table["rows"]]
    ax.fill_between(depth, lo, hi, color=color, alpha=0.2, linewidth=0)
    ax.plot(depth, [r[offset] for r in table["rows"]], **look(kind).kw())


def gradient_data(values: Values) -> dict[str, Any]:
    """What the explorable shows: the recorded table rows under each init, nothing computed."""
    return {
        "kind": "depth-slider",
        "inits": {init: values[cid]["table"] for init, cid in INITS.items()},
        "init_labels": {init: look(init).label for init in INITS},
        "series": {"plain": 1, "residual": 4},  # column of each stack's median (min, max follow it)
        "colors": {kind: look(kind).color for kind in ("plain", "residual")},
        "dashes": {kind: look(kind).line for kind in ("plain", "residual")},
    }


@figure(
    "input-gradient-vs-depth",
    claims=[PLAIN, HE],
    caption="The input-gradient norm of plain and residual stacks against depth, under each "
    "initialisation (median over the seeds; the band spans their minimum and maximum). With the default "
    "init only the plain stack's gradient collapses; with He init both grow.",
    explore=gradient_data,
)
def input_gradient_vs_depth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4))
    for ax, init in zip(axes, INITS, strict=True):
        table = values[INITS[init]]["table"]
        _band(ax, table, 1, "plain")
        _band(ax, table, 4, "residual")
        ax.set_yscale("log")
        ax.set_title(look(init).label)
        ax.set_xlabel("depth $L$ (blocks)")
        ax.set_xticks([row[0] for row in table["rows"]])
    axes[0].set_ylabel(r"$\|\partial \ell / \partial x\|$")
    axes[0].legend(loc="lower left")
    fig.tight_layout()
    return fig
