"""Figures of Part 4, drawn from the recorded stream-size measurements."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

GROWTH = "stream_growth_over_50_blocks_at_default_init"

COLORS = {"residual": "#2c3e91", "pre-norm": "#27ae60", "post-norm": "#8e44ad", "residual, He init": "#c0392b"}


@figure("stream-rms-vs-depth", claims=[GROWTH])
def stream_rms_vs_depth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    series = values[GROWTH]["series"]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for kind in ("residual", "pre-norm", "post-norm"):
        axes[0].plot(range(len(series[kind])), series[kind], color=COLORS[kind], label=kind)
    axes[0].set_title("PyTorch default init")
    axes[0].set_ylabel("RMS(h_l) / RMS(x), median of 5 seeds")
    axes[0].legend(loc="upper left")
    he = series["residual, He init"]
    axes[1].plot(range(len(he)), he, color=COLORS["residual, He init"], label="residual, He init")
    axes[1].plot(range(len(series["residual"])), series["residual"], color=COLORS["residual"], label="residual")
    axes[1].set_yscale("log")
    axes[1].set_title("He init, log scale")
    axes[1].legend(loc="upper left")
    for ax in axes:
        ax.set_xlabel("block l")
    fig.tight_layout()
    return fig
