"""Figures of "The degradation problem", drawn from the recorded training runs."""

from __future__ import annotations

import statistics
from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

RUNS = "deeper_plain_net_has_higher_training_loss"
# The two plain nets share plain's colour; the shallower is dotted, and each keeps its own marker.
STYLES = {
    "plain, 8 layers": {**look("plain").kw("plain, 8 layers"), "linestyle": ":", "marker": "^"},
    "plain, 22 layers": look("plain").kw("plain, 22 layers"),
    "residual, 22 layers": look("residual").kw("residual, 22 layers"),
}


def _plain_ticks(ax: Any, values: list[float]) -> None:
    """Log axis labelled at 1-2-5 steps in plain numbers, without minor labels that would collide."""
    from matplotlib.ticker import NullFormatter

    lo, hi = min(values), max(values)
    steps = [m * 10.0**e for e in range(-3, 4) for m in (1, 2, 5)]
    ax.set_yticks([s for s in steps if lo <= s <= hi], [f"{s:g}" for s in steps if lo <= s <= hi])
    ax.yaxis.set_minor_formatter(NullFormatter())


@figure(
    "degradation-training-curves",
    claims=[RUNS],
    caption="Mean training loss per epoch for three nets, median and min–max band over the seeds: "
    "the deeper plain net trains worse than the shallower one, the residual net of the same depth best.",
)
def training_curves(values: Values) -> Any:
    import matplotlib.pyplot as plt

    curves = values[RUNS]["curves"]
    fig, ax = plt.subplots(figsize=(6.8, 3.6))
    for net, band in curves.items():
        epochs = range(1, len(band["median"]) + 1)
        style = STYLES[net]
        ax.fill_between(epochs, band["min"], band["max"], color=style["color"], alpha=0.18, linewidth=0)
        ax.plot(epochs, band["median"], markevery=2, markersize=5, **style)
    ax.set_yscale("log")
    _plain_ticks(ax, [v for band in curves.values() for v in band["min"] + band["max"]])
    ax.set_xlabel(f"epoch ({values[RUNS]['steps_per_epoch']} steps each, same batches for every net)")
    ax.set_ylabel("mean training loss")
    ax.set_title(f"Median and min–max over {values[RUNS]['seeds']} seeds")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig


SWEEP = "deeper_plain_net_is_worse_at_its_best_learning_rate"


@figure(
    "degradation-lr-sweep",
    claims=[SWEEP, RUNS],
    caption="Final training loss of the two plain nets at each learning rate of the sweep, median and min–max "
    "band over the seeds, each net's lowest median ringed; the residual net at the shared rate for comparison. "
    "No rate brings the deeper plain net near the shallower one.",
)
def lr_sweep(values: Values) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    sweep, runs = values[SWEEP], values[RUNS]
    fig, ax = plt.subplots(figsize=(6.8, 3.8))
    everything = []
    for net, band in sweep["bands"].items():
        style = STYLES[net]
        ax.fill_between(band["lrs"], band["min"], band["max"], color=style["color"], alpha=0.18, linewidth=0)
        ax.plot(band["lrs"], band["median"], markersize=6, **style)
        best = band["median"].index(min(band["median"]))
        ax.plot(
            band["lrs"][best], band["median"][best], linestyle="none", marker="o", markersize=15,
            markerfacecolor="none", markeredgewidth=1.5, color=style["color"],
        )  # fmt: skip
        everything += band["min"] + band["max"]
    res = sweep["residual"]
    res_name = next(n for n in runs["median_loss"] if n.startswith("residual"))
    style = STYLES[res_name]
    median = statistics.median(res)
    ax.errorbar(
        [sweep["lr_shared"]], [median], yerr=[[median - min(res)], [max(res) - median]], capsize=4,
        linestyle="none", marker=style["marker"], color=style["color"], label=f"{res_name} (shared rate only)",
    )  # fmt: skip
    neutral = look("neutral")
    ax.axhline(runs["chance_loss"], color=neutral.color, linestyle=neutral.line, linewidth=1)
    ax.annotate(
        "chance: $\\ln K$", (sweep["lrs"][-1], runs["chance_loss"]), textcoords="offset points", xytext=(0, 4),
        ha="right", va="bottom", fontsize=10,
    )  # fmt: skip
    everything += [*res, runs["chance_loss"]]
    ax.set_xscale("log")
    ax.set_xticks(sweep["lrs"], [f"{lr:g}" for lr in sweep["lrs"]])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yscale("log")
    _plain_ticks(ax, everything)
    ax.set_ylim(top=runs["chance_loss"] * 1.25)  # room for the chance line's label
    ax.set_xlabel(f"learning rate (SGD, momentum, {runs['steps']} steps)")
    ax.set_ylabel("final training loss")
    ax.set_title(f"Median and min–max over {sweep['seeds']} seeds")
    ax.legend(loc="center right")
    fig.tight_layout()
    return fig
