"""Figures of Lab 1 (why the sum trains), drawn from the recorded paths, lesions and writes."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

PATHS = "short_paths_carry_the_gradient"
LESIONS = "residual_net_survives_losing_a_block"
SHATTER = "residual_gradients_do_not_shatter"
WRITES = "batchnorm_block_writes_shrink_like_inverse_sqrt_depth"
PLAIN, RESIDUAL, DROP, OTHER = "#c0392b", "#2c3e91", "#16a085", "#7f8c8d"


@figure("lab-path-lengths", claims=[PATHS])
def path_lengths(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[PATHS]
    k = range(len(v["count_share"]))
    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.plot(k, v["count_share"], color=OTHER, label="share of the paths")
    ax.plot(k, v["default_share"], color=RESIDUAL, label="share of the gradient, default init")
    ax.plot(k, v["he_share"], color=PLAIN, linestyle="--", label="share of the gradient, He init")
    ax.set_xlabel(f"path length k (branches passed, of L = {v['deepest']})")
    ax.set_ylabel("share (sums to 1)")
    ax.set_title(f"Median of {v['seeds']} seeds")
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


@figure("lab-lesions", claims=[LESIONS])
def lesions(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[LESIONS]
    blocks = range(1, v["blocks"] + 1)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for name, color in (("plain", PLAIN), ("residual", RESIDUAL), ("drop-path", DROP)):
        ax.plot(blocks, v["deleted"][name], "o-", color=color, label=f"{name}, one block deleted")
        ax.axhline(v["intact"][name], color=color, linestyle=":", linewidth=1.2)
    ax.set_xlabel("deleted block (1 = nearest the input); dotted: the intact net")
    ax.set_ylabel("training error")
    ax.set_ylim(0, 1)
    ax.set_title(f"Median of {v['seeds']} seeds")
    ax.legend(loc="upper right", bbox_to_anchor=(1, 0.85))
    fig.tight_layout()
    return fig


@figure("lab-shattered", claims=[SHATTER])
def shattered(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[SHATTER]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for kind, color in (("plain", PLAIN), ("residual", RESIDUAL)):
        s = v["curves"][kind]
        top = max(abs(x) for x in s)
        t = [-2 + 4 * (v["curve_start"] + i) / (v["points"] - 1) for i in range(len(s))]
        axes[0].plot(t, [x / top for x in s], color=color, linewidth=1, label=kind)
    axes[0].set_xlabel("t (input x = t·v)")
    axes[0].set_ylabel("s(t) / max |s|")
    axes[0].set_title(f"Gradient along the line, {v['curve_depth']} blocks")
    axes[0].legend(loc="lower left")
    rows = v["table"]["rows"]
    depth = [int(r[0]) for r in rows]
    for offset, kind, color in ((1, "plain", PLAIN), (4, "residual", RESIDUAL)):
        axes[1].fill_between(
            depth, [r[offset + 1] for r in rows], [r[offset + 2] for r in rows], color=color, alpha=0.2
        )
        axes[1].plot(depth, [r[offset] for r in rows], "o-", color=color, label=kind)
    axes[1].set_xscale("log", base=2)
    axes[1].set_xticks(depth, [str(d) for d in depth])
    axes[1].set_xlabel("depth L (blocks)")
    axes[1].set_ylabel("r, neighbouring points")
    axes[1].set_title(f"Median, min–max of {v['seeds']} seeds")
    axes[1].legend(loc="lower left")
    fig.tight_layout()
    return fig


@figure("lab-bn-writes", claims=[WRITES])
def bn_writes(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[WRITES]
    blocks = range(1, len(v["ratio"]) + 1)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.plot(blocks, v["no_norm_ratio"], color=OTHER, label="same blocks, no BatchNorm (one seed)")
    ax.plot(blocks, v["ratio"], color=RESIDUAL, label=f"BatchNorm blocks (median of {v['seeds']} seeds)")
    ax.plot(blocks, [b**-0.5 for b in blocks], color=PLAIN, linestyle="--", label="1/√l")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("block l")
    ax.set_ylabel("‖write‖ / ‖stream‖")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig
