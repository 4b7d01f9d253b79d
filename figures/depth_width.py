"""Figure of Part 6: parameters against published top-1 accuracy for the five ImageNet models."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

ZOO = "wide_resnet50_2_has_2_7x_resnet50_parameters_not_4x"


@figure("params-vs-top1", claims=[ZOO])
def params_vs_top1(values: Values) -> Any:
    import matplotlib.pyplot as plt

    rows = [[r[0], r[1], r[2] / 1e6, *r[3:]] for r in values[ZOO]["table"]["rows"]]  # params in M
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    colors = {"ResNet": "#2c3e91", "Wide": "#c0392b", "DenseNet": "#27ae60"}
    resnets = [r for r in rows if r[0].startswith("ResNet")]
    ax.plot([r[2] for r in resnets], [r[4] for r in resnets], "-", color=colors["ResNet"], alpha=0.5)
    for name, layers, params, _, acc, *_ in rows:
        color = colors[name.split(" ")[0].split("-")[0]]
        ax.plot(params, acc, "o", color=color)
        ax.annotate(f"{name} ({layers} layers)", (params, acc), textcoords="offset points", xytext=(6, -10))
    ax.set_xlabel("parameters (millions, counted from the built models)")
    ax.set_ylabel("top-1 accuracy % (torchvision, V1 weights)")
    ax.set_xlim(0, 100)
    ax.set_ylim(75.2, 78.9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
