"""Figures of "The degradation problem", drawn from the recorded training runs."""

from __future__ import annotations

import statistics
from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import MAX_WIDTH, look

PLAIN = "deeper_plain_net_has_higher_training_loss"
RESIDUAL = "residual_net_of_same_depth_does_not_degrade"
DIGITS = "plain_conv_net_degrades_on_digits"


def _style(net: str) -> dict[str, Any]:
    """Plain or residual colour by the name's kind; the shallower net of each is dotted with a triangle."""
    kind = "residual" if net.lower().startswith(("residual", "resnet")) else "plain"
    style = look(kind).kw(net)
    if int(net.split(",")[-1].split()[0]) < 10:
        style.update(linestyle=":", marker="^")
    return style


def _plain_ticks(ax: Any, values: list[float]) -> None:
    """Log axis labelled at 1-2-5 steps in plain numbers, without minor labels that would collide."""
    from matplotlib.ticker import NullFormatter

    lo, hi = min(values), max(values)
    steps = [m * 10.0**e for e in range(-4, 4) for m in (1, 2, 5)]
    ax.set_yticks([s for s in steps if lo <= s <= hi], [f"{s:g}" for s in steps if lo <= s <= hi])
    ax.yaxis.set_minor_formatter(NullFormatter())


def _bands(curves: list[list[float]]) -> tuple[list[float], list[float], list[float]]:
    """Median, min and max over the seeds, epoch by epoch."""
    by_epoch = list(zip(*curves, strict=True))
    return [statistics.median(e) for e in by_epoch], [min(e) for e in by_epoch], [max(e) for e in by_epoch]


@figure(
    "degradation-lr-sweep",
    claims=[PLAIN, RESIDUAL],
    caption="Final training loss of the four nets at every learning rate of their grids, median and min–max band "
    "over the seeds, each net's best rate ringed: no rate brings the deep plain net near the shallow one; the "
    "deep residual net's best comes close to the shallow nets'.",
)
def lr_sweep(values: Values) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    fig, ax = plt.subplots(figsize=(6.8, 3.9))
    everything: list[float] = []
    rates: set[float] = set()
    for cid in (PLAIN, RESIDUAL):
        for net, band in values[cid]["bands"].items():
            style = _style(net)
            ax.fill_between(band["lrs"], band["min"], band["max"], color=style["color"], alpha=0.15, linewidth=0)
            ax.plot(band["lrs"], band["median"], markersize=5, **style)
            best = band["median"].index(min(band["median"]))
            ax.plot(
                band["lrs"][best], band["median"][best], linestyle="none", marker="o", markersize=14,
                markerfacecolor="none", markeredgewidth=1.5, color=style["color"],
            )  # fmt: skip
            everything += band["min"] + band["max"]
            rates |= set(band["lrs"])
    ax.set_xscale("log")
    ticks = sorted(rates)
    ax.set_xticks(ticks, [f"{lr:g}" for lr in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yscale("log")
    _plain_ticks(ax, everything)
    ax.set_xlabel(f"peak learning rate (SGD, momentum, cosine decay, {values[PLAIN]['steps']} steps)")
    ax.set_ylabel("final training loss")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig


@figure(
    "degradation-training-curves",
    claims=[PLAIN, RESIDUAL],
    caption="Mean training loss per epoch of the four nets, each at its own best rate, median and min–max band "
    "over the seeds: the shallow nets level off; the deep plain net stays far above them.",
)
def training_curves(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.8, 3.6))
    everything: list[float] = []
    for cid in (PLAIN, RESIDUAL):
        for net, per_seed in values[cid]["curves"].items():
            median, low, high = _bands(per_seed)
            epochs = range(1, len(median) + 1)
            style = _style(net)
            ax.fill_between(epochs, low, high, color=style["color"], alpha=0.15, linewidth=0)
            ax.plot(epochs, median, markevery=5, markersize=5, **style)
            everything += low + high
    ax.set_yscale("log")
    _plain_ticks(ax, everything)
    ax.set_xlabel("epoch (same batches for every net)")
    ax.set_ylabel("mean training loss")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig


@figure(
    "degradation-digits",
    claims=[DIGITS],
    caption="Plain convolutional nets and ResNets on the handwritten digits, every net at one learning rate: mean "
    "training loss per epoch (left, median and min–max band over the seeds) and final training error against depth "
    "(right, every seed a point, the line through the medians). The "
    "deeper plain net trains worse on every seed; the deeper ResNet far less, and not on every seed.",
)
def digits(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[DIGITS]
    fig, (left, right) = plt.subplots(1, 2, figsize=(MAX_WIDTH, 3.6), gridspec_kw={"width_ratios": [3, 2]})
    everything: list[float] = []
    for kind, by_depth in v["curves"].items():
        for layers, per_seed in by_depth.items():
            name = f"{'ResNet' if kind == 'resnet' else 'plain'}, {layers} layers"
            median, low, high = _bands(per_seed)
            epochs = range(1, len(median) + 1)
            style = _style(name)
            left.fill_between(epochs, low, high, color=style["color"], alpha=0.15, linewidth=0)
            left.plot(epochs, median, markevery=5, markersize=5, **style)
            everything += low + high
    left.set_yscale("log")
    _plain_ticks(left, everything)
    left.set_xlabel(f"epoch ({v['n']} images, same batches for every net)")
    left.set_ylabel("mean training loss")
    left.legend(loc="lower left")
    for kind, by_depth in v["error"].items():
        style = look("residual" if kind == "resnet" else "plain").kw("ResNet" if kind == "resnet" else "plain")
        depths = [int(d) for d in by_depth]
        for d, errs in zip(depths, by_depth.values(), strict=True):
            right.plot([d] * len(errs), [100 * e for e in errs], linestyle="none", marker=style["marker"],
                       color=style["color"], alpha=0.6)  # fmt: skip
        right.plot(depths, [100 * statistics.median(e) for e in by_depth.values()], **style)
    right.set_xticks(depths, [str(d) for d in depths])
    right.set_xlabel("weight layers")
    right.set_ylabel("final training error (%)")
    right.legend(loc="upper left")
    fig.tight_layout()
    return fig
