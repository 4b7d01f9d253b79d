"""Figures of Part 5, drawn from the recorded initialisation experiments."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

DEVIATION = "default_init_deviation_grows_with_depth"
ZERO = "zero_init_last_layer_is_exactly_identity_at_any_depth"
REZERO = "deep_rezero_stack_trains"
FIXUP = "fixup_rescaling_keeps_stream_bounded"


@figure("deviation-vs-depth", claims=[DEVIATION, ZERO])
def deviation_vs_depth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    series = values[DEVIATION]["series"]
    depth = range(1, len(series["default"]) + 1)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    axes[0].plot(depth, series["default"], color="#2c3e91", label="PyTorch default")
    axes[0].plot(depth, series["zero last layer"], color="#27ae60", label="zero last layer (exactly 0)")
    axes[0].set_ylabel("‖h_L − x‖ / ‖x‖, median of 5 seeds")
    axes[0].legend(loc="upper left")
    axes[1].plot(depth, series["he"], color="#c0392b", label="He init")
    axes[1].plot(depth, series["default"], color="#2c3e91", label="PyTorch default")
    axes[1].set_yscale("log")
    axes[1].set_title("log scale")
    axes[1].legend(loc="upper left")
    for ax in axes:
        ax.set_xlabel("depth L (blocks)")
    fig.tight_layout()
    return fig


@figure("rezero-training", claims=[REZERO])
def rezero_training(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[REZERO]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(v["rezero_curve"], color="#27ae60", label="ReZero, 50 blocks")
    ax.plot(v["plain_curve"], color="#c0392b", label="plain, same 50 branches")
    ax.set_yscale("log")
    ax.set_xlabel("Adam step")
    ax.set_ylabel("training loss (MSE), seed 0")
    ax.legend()
    fig.tight_layout()
    return fig


@figure("fixup-stream-growth", claims=[FIXUP])
def fixup_stream_growth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    table = values[FIXUP]["table"]
    depth = [row[0] for row in table["rows"]]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    styles = ["--", "o-", "s-", "o:", "s:"]
    colors = ["black", "#27ae60", "#16a085", "#c0392b", "#e67e22"]
    for i, (style, color) in enumerate(zip(styles, colors, strict=True), start=1):
        ax.plot(depth, [row[i] for row in table["rows"]], style, color=color, label=table["columns"][i])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("number of residual branches L")
    ax.set_ylabel("E[h_L²] / E[x²], median of 5 seeds")
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig
