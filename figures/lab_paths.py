"""Figures of Lab 1 (why the sum trains), drawn from the recorded paths, lesions and writes."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

PATHS = "short_paths_carry_the_gradient"
LESIONS = "residual_net_degrades_gracefully_when_a_block_is_deleted"
CURVE = "residual_net_error_rises_gradually_with_blocks_deleted"
SHATTER = "residual_gradients_do_not_shatter"
WRITES = "batchnorm_block_writes_shrink_like_inverse_sqrt_depth"


@figure(
    "lab-path-lengths",
    claims=[PATHS],
    caption="How the paths through a deep residual stack, and the energy of the gradient they carry, spread "
    "over path length (median over the seeds): the paths bunch in the middle of the range; with the default init "
    "the gradient's energy travels on short paths (the count × size weighting, dashed, puts it further right), "
    "with He init on long ones.",
)
def path_lengths(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[PATHS]
    k = range(len(v["count_share"]))
    fig, ax = plt.subplots(figsize=(6.8, 3.6))
    every = max(1, len(k) // 10)
    ax.plot(k, v["count_share"], markevery=every, **look("neutral").kw("share of the paths"))
    ax.plot(k, v["default_share"], markevery=every, **look("default").kw("share of the energy, default init"))
    heuristic = {**look("default").kw("count × size, default init", marker=False), "linestyle": "--"}
    ax.plot(k, v["heuristic_share"], **heuristic)
    ax.plot(k, v["he_share"], markevery=every, **look("he").kw("share of the energy, He init"))
    ax.set_xlabel(f"path length $k$ (branches passed, of $L$ = {v['deepest']})")
    ax.set_ylabel("share (sums to 1)")
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


@figure(
    "lab-lesions",
    claims=[LESIONS, CURVE],
    caption="Test error on held-out digits after deleting blocks of the trained deep nets: one block, block by "
    "block (left), and k random blocks at once (right), for a plain net, a residual net and a residual net trained "
    "with drop-path (median over the seeds; on the right, each the mean over random sets of k blocks); dotted "
    "lines are the intact nets.",
)
def lesions(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v, c = values[LESIONS], values[CURVE]
    blocks = range(1, v["blocks"] + 1)
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4), sharey=True)
    for name in ("plain", "residual", "drop-path"):
        st = look(name)
        axes[0].plot(blocks, v["deleted"][name], markevery=3, **st.kw(name))
        axes[1].plot(c["ks"], c["curve"][name], **st.kw(name))
        for ax in axes:
            ax.axhline(v["intact"][name], color=st.color, linestyle=":", linewidth=1.2)
    axes[0].set_xlabel("deleted block (1 = nearest the input)")
    axes[0].set_ylabel("test error")
    axes[0].set_ylim(0, 1)
    axes[0].set_title("One block deleted")
    axes[1].set_xlabel("blocks deleted at random, $k$")
    axes[1].set_title("Random blocks deleted")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


@figure(
    "lab-shattered",
    claims=[SHATTER],
    caption="The gradient along a line through input space (left) and how strongly neighbouring points' "
    "gradients agree, against depth (right: median and min–max band over the seeds).",
)
def shattered(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[SHATTER]
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4))
    for kind in ("plain", "residual"):
        s = v["curves"][kind]
        top = max(abs(x) for x in s)
        t = [-2 + 4 * (v["curve_start"] + i) / (v["points"] - 1) for i in range(len(s))]
        axes[0].plot(t, [x / top for x in s], linewidth=1, **look(kind).kw(marker=False))
    axes[0].set_xlabel(r"$t$ (input $x = t \cdot v$)")
    axes[0].set_ylabel(r"$s(t) \,/\, \max |s|$")
    axes[0].set_title(f"Along the line, {v['curve_depth']} blocks")
    axes[0].legend(loc="lower left")
    rows = v["table"]["rows"]
    depth = [int(r[0]) for r in rows]
    for offset, kind in ((1, "plain"), (4, "residual")):
        st = look(kind)
        axes[1].fill_between(
            depth, [r[offset + 1] for r in rows], [r[offset + 2] for r in rows], color=st.color, alpha=0.2
        )
        axes[1].plot(depth, [r[offset] for r in rows], **st.kw())
    axes[1].set_xscale("log", base=2)
    axes[1].set_xticks(depth, [str(d) for d in depth])
    axes[1].set_xlabel("depth $L$ (blocks)")
    axes[1].set_ylabel("$r$, neighbouring points")
    axes[1].set_title("Against depth")
    axes[1].legend(loc="lower left")
    fig.tight_layout()
    return fig


@figure(
    "lab-bn-writes",
    claims=[WRITES],
    caption="How large each block's write is next to the stream it adds to, block by block, with and "
    "without BatchNorm in the branch.",
)
def bn_writes(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[WRITES]
    blocks = range(1, len(v["ratio"]) + 1)
    fig, ax = plt.subplots(figsize=(6.8, 3.6))
    no_norm = {
        **look("residual").kw(f"same blocks, no BatchNorm (median of {v['seeds']} seeds)", marker=False),
        "linestyle": ":",
    }
    ax.plot(blocks, v["no_norm_ratio"], **no_norm)
    ax.plot(blocks, v["ratio"], **look("residual").kw(f"BatchNorm blocks (median of {v['seeds']} seeds)", marker=False))
    ax.plot(blocks, [b**-0.5 for b in blocks], **{**look("neutral").kw("1/√$l$", marker=False), "linestyle": "--"})
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("block $l$")
    ax.set_ylabel(r"$\|\mathrm{write}\| \,/\, \|\mathrm{stream}\|$")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig
