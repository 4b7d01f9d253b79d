"""Figures of "Initialisation and scale", drawn from the recorded initialisation experiments."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

DEVIATION = "default_init_deviation_grows_with_depth"
ZERO = "zero_init_last_layer_is_exactly_identity_at_any_depth"
REZERO = "deep_rezero_stack_trains"
FIXUP = "fixup_rescaling_keeps_stream_bounded"


@figure(
    "deviation-vs-depth",
    claims=[DEVIATION, ZERO],
    caption="How far a residual stack is from the identity at initialisation, against depth: exactly "
    "zero with zeroed last layers, growing slowly with the default init (left, linear scale) and "
    "geometrically with He init (right, log scale).",
)
def deviation_vs_depth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    series = values[DEVIATION]["series"]
    depth = range(1, len(series["default"]) + 1)
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4))
    every = max(1, len(depth) // 8)
    axes[0].plot(depth, series["default"], markevery=every, **look("default").kw("PyTorch default"))
    axes[0].plot(depth, series["zero last layer"], markevery=every, **look("zero").kw("zeroed last layer"))
    axes[0].set_ylabel(r"$\|h_L - x\| \,/\, \|x\|$")
    axes[0].set_title("linear scale")
    axes[0].legend(loc="upper left")
    axes[1].plot(depth, series["he"], markevery=every, **look("he").kw("He"))
    axes[1].plot(depth, series["default"], markevery=every, **look("default").kw("PyTorch default"))
    axes[1].set_yscale("log")
    axes[1].set_title("log scale")
    axes[1].legend(loc="upper left")
    for ax in axes:
        ax.set_xlabel("depth $L$ (blocks)")
    fig.tight_layout()
    return fig


@figure(
    "rezero-training",
    claims=[REZERO],
    caption="Training loss of a deep ReZero stack (every branch scaled by a learned α that starts at "
    "zero) and of the plain stack built from the same branches.",
)
def rezero_training(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[REZERO]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    every = max(1, len(v["rezero_curve"]) // 8)
    ax.plot(v["rezero_curve"], markevery=every, **look("zero").kw("ReZero (α = 0 at the start)"))
    ax.plot(v["plain_curve"], markevery=every, **look("plain").kw("plain, same branches"))
    ax.set_yscale("log")
    ax.set_xlabel("Adam step")
    ax.set_ylabel(f"training loss (MSE), seed {v['curve_seed']}")
    ax.legend()
    fig.tight_layout()
    return fig


@figure(
    "fixup-stream-growth",
    claims=[FIXUP],
    caption="The stream's second moment once the branches are non-zero, against the number of branches. "
    "Left, on a linear scale: with Fixup's rescaling it stays near the predicted bound for both branch lengths. "
    "Right, on a log scale: without it, He-initialised branches make it grow without limit.",
)
def fixup_stream_growth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    table = values[FIXUP]["table"]
    cols = table["columns"]
    depth = [row[0] for row in table["rows"]]
    column = {name: [row[cols.index(name)] for row in table["rows"]] for name in cols[1:]}
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.4))
    predicted = {**look("neutral").kw(r"predicted $(1 + 2/L)^L$"), "linestyle": "--"}
    left.plot(depth, column[cols[1]], **predicted)
    fixup = look("zero")
    left.plot(depth, column["Fixup m=2"], **{**fixup.kw("Fixup, m = 2"), "marker": "o"})
    left.plot(depth, column["Fixup m=3"], **{**fixup.kw("Fixup, m = 3"), "marker": "s", "linestyle": ":"})
    left.set_ylim(bottom=0, top=1.25 * max(max(column["Fixup m=2"]), max(column["Fixup m=3"])))
    left.set_title("with Fixup (linear)")
    left.set_ylabel(r"$E[h_L^2] \,/\, E[x^2]$")
    left.legend(loc="lower right")
    he = look("he")
    right.plot(depth, column["unscaled m=2"], **{**he.kw("m = 2"), "marker": "o"})
    right.plot(depth, column["unscaled m=3"], **{**he.kw("m = 3"), "marker": "s", "linestyle": ":"})
    right.set_yscale("log")
    right.set_title("He init, unscaled (log)")
    right.legend(loc="upper left")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xticks(depth, [str(L) for L in depth])
        ax.minorticks_off()
        ax.set_xlabel("branches $L$")
    fig.tight_layout()
    return fig
