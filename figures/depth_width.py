"""Figure of "Depth versus width": parameters against published top-1 accuracy for the five ImageNet models."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

ZOO = "wide_resnet50_2_has_2_7x_resnet50_parameters_not_4x"


def _family(name: str) -> str:
    return {"ResNet": "residual", "Wide": "wide", "DenseNet": "dense"}[name.split(" ")[0].split("-")[0]]


@figure(
    "params-vs-top1",
    claims=[ZOO],
    caption="Published top-1 accuracy against parameters counted from the built models: deeper ResNets "
    "gain accuracy along a line; widening ResNet-50 buys about what depth does at more parameters; "
    "DenseNet-121 is the smallest.",
)
def params_vs_top1(values: Values) -> Any:
    import matplotlib.pyplot as plt

    rows = [[r[0], r[1], r[2] / 1e6, *r[3:]] for r in values[ZOO]["table"]["rows"]]  # params in M
    fig, ax = plt.subplots(figsize=(6.8, 3.8))
    resnets = [r for r in rows if _family(r[0]) == "residual"]
    ax.plot([r[2] for r in resnets], [r[4] for r in resnets], "-", color=look("residual").color, alpha=0.5)
    for name, layers, params, _, acc, *_ in rows:
        st = look(_family(name))
        ax.plot(params, acc, linestyle="none", marker=st.marker, color=st.color, markersize=8)
        # Labels sit left of points past the middle, right of the others, so none runs off the axes.
        right = params < 50 or name.startswith("Wide")
        ax.annotate(
            f"{name}\n({layers} layers)",
            (params, acc),
            textcoords="offset points",
            xytext=(8 if right else -8, -4),
            ha="left" if right else "right",
            va="center",
            fontsize=10,
        )
    ax.set_xlabel("parameters (millions, counted from the built models)")
    ax.set_ylabel("top-1 accuracy (%)")
    ax.set_xlim(0, 100)
    lo, hi = min(r[4] for r in rows), max(r[4] for r in rows)
    ax.set_ylim(lo - 0.5, hi + 0.5)
    fig.tight_layout()
    return fig
