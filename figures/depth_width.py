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
            fontsize=8.5,
        )
    ax.set_xlabel("parameters (millions, counted from the built models)")
    ax.set_ylabel("top-1 accuracy (%)")
    ax.set_xlim(0, 100)
    lo, hi = min(r[4] for r in rows), max(r[4] for r in rows)
    ax.set_ylim(lo - 0.5, hi + 0.5)
    fig.tight_layout()
    return fig


FRONTIER = "densenets_lie_above_the_resnet_line"


@figure(
    "accuracy-parameter-frontier",
    claims=[FRONTIER],
    caption="Published top-1 accuracy against published parameters (log scale) for torchvision's DenseNets and "
    "ResNets (IMAGENET1K_V1 weights): the DenseNet curve lies above and to the left of the ResNet curve wherever "
    "their accuracies overlap. The hollow markers are the same ResNets with torchvision's newer V2 weights, "
    "trained with a longer recipe.",
)
def accuracy_parameter_frontier(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[FRONTIER]
    rows = v["table"]["rows"]  # model, family, parameters, multiply-adds, acc@1
    fig, ax = plt.subplots(figsize=(6.8, 3.9))
    for family, key in (("DenseNet", "dense"), ("ResNet", "residual")):
        pts = sorted((r[2] / 1e6, r[4], r[0]) for r in rows if r[1] == family)
        ax.plot([p for p, _, _ in pts], [a for _, a, _ in pts], **look(key).kw(f"{family} (V1 weights)"))
        for p, a, name in pts:
            label = name.replace("densenet", "DenseNet-").replace("resnet", "ResNet-")
            ax.annotate(label, (p, a), textcoords="offset points", xytext=(6, -10), fontsize=8)
    v2 = sorted((r[2] / 1e6, v["acc1_v2"][r[0]]) for r in rows if r[0] in v["acc1_v2"])
    st = look("residual")
    ax.plot(
        [p for p, _ in v2],
        [a for _, a in v2],
        linestyle=":",
        marker=st.marker,
        color=st.color,
        markerfacecolor="none",
        label="ResNet (V2 weights, newer recipe)",
    )
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    ax.set_xscale("log")
    low, high = min(r[2] for r in rows) / 1e6, max(r[2] for r in rows) / 1e6
    ax.set_xlim(low / 1.15, high * 1.35)  # room for the labels right of the points
    ax.xaxis.set_major_locator(FixedLocator([t for t in (5, 10, 20, 30, 40, 60, 80) if low / 1.15 <= t <= high * 1.35]))
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("parameters (millions, log scale)")
    ax.set_ylabel("top-1 accuracy (%)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig
