"""Figures of the Measured costs page, drawn from recorded claims (benchmarks included)."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

ADD = "add_share_benchmark_sweep"
WIDTH = "depth_width_benchmark_throughput"
CONCAT = "concatenation_memory_grows_quadratically_addition_linearly"


@figure(
    "add-share-vs-width",
    claims=[ADD],
    caption="The residual add's cost relative to its MLP branch, against the stream width: its share "
    "of the FLOPs (the formula) and of the measured time.",
)
def add_share_vs_width(values: Values) -> Any:
    import matplotlib.pyplot as plt

    rows = values[ADD]["table"]["rows"]
    d = [r[0] for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(d, [r[1] for r in rows], **{**look("neutral").kw("FLOP share $= 1/(16d)$"), "linestyle": "--"})
    ax.plot(d, [r[2] for r in rows], **look("residual").kw("share of measured time"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("stream width $d$")
    ax.set_ylabel("add / MLP branch (forward)")
    ax.legend()
    fig.tight_layout()
    return fig


@figure(
    "throughput-narrow-deep-vs-wide-shallow",
    claims=[WIDTH],
    caption="Training throughput of a narrow, deep residual stack and a wide, shallow one against the batch size.",
)
def throughput(values: Values) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import ScalarFormatter

    rows = values[WIDTH]["table"]["rows"]
    n = [r[0] for r in rows]
    label = {name: f"{name}: $d$ = {s['width']}, {s['blocks']} blocks" for name, s in values[WIDTH]["shapes"].items()}
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(n, [r[1] for r in rows], **look("residual").kw(label["narrow-deep"]))
    ax.plot(n, [r[2] for r in rows], **look("wide").kw(label["wide-shallow"]))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_minor_formatter(ScalarFormatter())
    ax.set_xlabel("tokens per batch $N$")
    ax.set_ylabel("training tokens per second")
    ax.legend()
    fig.tight_layout()
    return fig


@figure(
    "saved-activations-vs-depth",
    claims=[CONCAT],
    caption="Bytes autograd keeps for backward per token, against depth, for addition and concatenation.",
)
def saved_activations(values: Values) -> Any:
    import matplotlib.pyplot as plt

    rows = values[CONCAT]["table"]["rows"]
    depth = [r[0] for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(depth, [r[1] for r in rows], **look("residual").kw("residual (addition)"))
    ax.plot(depth, [r[2] for r in rows], **look("dense").kw())
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("depth $L$")
    ax.set_ylabel("bytes kept for backward, per token")
    ax.legend()
    fig.tight_layout()
    return fig
