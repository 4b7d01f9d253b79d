"""Figures of "The residual stream", drawn from the recorded stream-size measurements."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

GROWTH = "stream_growth_over_50_blocks_at_default_init"
# The recorded series, the look each is drawn in, and its legend label.
SERIES = {
    "residual": ("residual", "residual, no norm"),
    "pre-norm": ("pre-norm", "pre-norm"),
    "post-norm": ("post-norm", "post-norm"),
    "residual, He init": ("he", "residual, He init"),
}


def stream_data(values: Values) -> dict[str, Any]:
    """What the explorable shows: the recorded medians, block by block, nothing computed."""
    series = values[GROWTH]["series"]
    return {
        "kind": "block-slider",
        "series": {name: series[name] for name in SERIES},
        "labels": {name: label for name, (_, label) in SERIES.items()},
        "colors": {name: look(kind).color for name, (kind, _) in SERIES.items()},
        "dashes": {name: look(kind).line for name, (kind, _) in SERIES.items()},
        "seeds": values[GROWTH]["seeds"],
    }


@figure(
    "stream-rms-vs-depth",
    claims=[GROWTH],
    caption="The stream's size relative to the input, block by block (median over the seeds): at PyTorch's "
    "default init the residual stream grows fastest, pre-norm more slowly, post-norm stays flat; with "
    "He-initialised branches it grows geometrically, a straight line on a log scale. Pick the series and the "
    "scale above the chart; the slider reads every series at one block. Without JavaScript the figure has two "
    "panels: the default init (left), and He init against it on a log scale (right).",
    explore=stream_data,
)
def stream_rms_vs_depth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    series = values[GROWTH]["series"]
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4))
    for name in ("residual", "pre-norm", "post-norm"):
        kind, label = SERIES[name]
        axes[0].plot(range(len(series[name])), series[name], markevery=10, **look(kind).kw(label))
    axes[0].set_title("PyTorch default init")
    axes[0].set_ylabel(r"RMS$(h_\ell)$ / RMS$(x)$")
    axes[0].legend(loc="upper left")
    for name in ("residual, He init", "residual"):
        kind, label = SERIES[name]
        axes[1].plot(range(len(series[name])), series[name], markevery=10, **look(kind).kw(label))
    axes[1].set_yscale("log")
    axes[1].set_title("log scale")
    axes[1].legend(loc="upper left")
    for ax in axes:
        ax.set_xlabel(r"block $\ell$")
    fig.tight_layout()
    return fig
