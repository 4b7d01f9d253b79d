"""Figures of Part 1, drawn from the recorded training runs."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

RUNS = "deeper_plain_net_has_higher_training_loss"
COLORS = {"plain, 8 layers": "#7f8c8d", "plain, 22 layers": "#c0392b", "residual, 22 layers": "#2c3e91"}


@figure("degradation-training-curves", claims=[RUNS])
def training_curves(values: Values) -> Any:
    import matplotlib.pyplot as plt

    curves = values[RUNS]["curves"]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for net, band in curves.items():
        epochs = range(1, len(band["median"]) + 1)
        ax.fill_between(epochs, band["min"], band["max"], color=COLORS[net], alpha=0.2, linewidth=0)
        ax.plot(epochs, band["median"], color=COLORS[net], label=net)
    ax.set_yscale("log")
    ax.set_xlabel("epoch (8 steps each, same batches for every net)")
    ax.set_ylabel("mean training loss of the epoch")
    ax.set_title(f"Median and min–max over {values[RUNS]['seeds']} seeds")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig
