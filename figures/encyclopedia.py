"""Figures of the encyclopedia entries, drawn from their recorded claims."""

from __future__ import annotations

import math
from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

NORMS = "prenorm_stream_norm_grows_with_depth"
GRADS = "postnorm_gradients_are_flat_and_larger_near_the_output"


@figure(
    "prenorm-postnorm-depth-profile",
    claims=[NORMS, GRADS],
    caption="At initialisation, block by block: the pre-norm stream grows while the post-norm stream "
    "stays at the norm LayerNorm sets (left); pre-norm gradients fall from input to output while "
    "post-norm ones stay level (right).",
)
def depth_profile(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.4))
    norms, grads = values[NORMS], values[GRADS]
    for key, kind in (("median_pre", "pre-norm"), ("median_post", "post-norm")):
        kw = look(kind).kw()
        left.plot(range(len(norms[key])), norms[key], markersize=4, markevery=3, **kw)
        right.plot(range(1, len(grads[key]) + 1), grads[key], markersize=4, markevery=3, **kw)
    left.set_xlabel("block $l$ (0 = input)")
    left.set_ylabel(r"mean token norm $\|x_l\|$")
    left.set_title("Stream norm")
    right.set_xlabel("block $l$")
    right.set_ylabel(r"$\|\partial \ell / \partial W\|$, last MLP weight")
    right.set_title("Per-block gradient")
    right.set_ylim(bottom=0)
    left.legend(loc="upper left")
    fig.tight_layout()
    return fig


WRITES = "prenorm_writes_keep_their_size_and_lose_their_share"
STEP = "one_sgd_step_grows_with_depth_in_postnorm_not_in_deepnorm"


@figure(
    "norm-placement-writes-and-steps",
    claims=[WRITES, STEP],
    caption="Left: each sublayer's write relative to the stream it joins, at initialisation; post-norm "
    "and DeepNorm keep the same share at every depth, pre-norm and peri-norm writes are diluted by the "
    "growing stream. Right: how much one SGD step changes the output, against the number of sublayers.",
)
def norm_placement(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.8))
    profiles, step = values[WRITES]["profiles"], values[STEP]
    names = {"post": "post-norm", "pre": "pre-norm", "peri": "peri-norm", "deepnorm": "deepnorm"}
    for key, name in names.items():
        rho = profiles[key]
        left.plot(range(1, len(rho) + 1), rho, markersize=4, markevery=6, **look(name).kw())
    for key in ("post", "pre", "deepnorm"):
        right.plot(step["depths"], step["step"][f"sgd {key}"], **look(names[key]).kw())
    left.set_yscale("log")
    left.set_xlabel("sublayer $l$")
    left.set_ylabel(r"relative write $\rho_l$")
    left.set_title("Share of each write")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xlabel("sublayers $L$")
    right.set_ylabel(r"output change, $\|\Delta y\| / \|y\|$")
    right.set_title("One SGD step")
    handles, labels = left.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4)
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    return fig


EULER = "shared_branch_stack_is_eulers_method"
IID = "iid_branches_need_one_over_root_depth"
MULTIPLIER_LOOK = {"1": "residual", "1/√L": "scaled", "1/L": "inverse"}


@figure(
    "depth-scaling-limits",
    claims=[EULER, IID],
    caption="Left: blocks that share one branch, against the exact solution of the differential equation "
    "they step through; with 1/L the distance shrinks as the depth grows, with 1/√L it grows. Right: "
    "blocks with their own random branches; the logarithm of the stream's squared-norm growth over the "
    "whole stack, by the multiplier on every branch (median over seeds; the dotted line is growth by e).",
)
def depth_scaling(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.8))
    euler, iid = values[EULER], values[IID]
    for name in ("1/L", "1/√L"):
        by = euler["error_median"][name]
        depths = [int(L) for L in by]
        left.plot(depths, list(by.values()), **look(MULTIPLIER_LOOK[name]).kw(f"s = {name}"))
    for name in ("1", "1/√L", "1/L"):
        by = iid["growth_median"][name]
        depths = [int(L) for L in by]
        logs = [math.log(v) for v in by.values()]  # a log axis of the log: all three regimes show
        right.plot(depths, logs, **look(MULTIPLIER_LOOK[name]).kw(f"s = {name}"))
    right.axhline(math.log(iid["e"]), **{**look("neutral").kw("growth by e", marker=False)})
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("blocks $L$")
    left.set_ylabel(r"$\|h_L - e^{A} h_0\| \,/\, \|e^{A} h_0\|$")
    left.set_title("One shared branch")
    right.set_ylabel(r"$\ln\,(\|h_L\|^2 / \|h_0\|^2)$")
    right.set_title("A fresh branch per block")
    handles, labels = right.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4)
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    return fig


LIGHT_WIN = "long_skips_win_at_light_noise"
INK_LEVELS = 12  # shades of ink the digit images are drawn in
HEAVY_NARROWS = "long_skips_matter_less_at_heavy_noise"


@figure(
    "unet-denoising",
    claims=[LIGHT_WIN, HEAVY_NARROWS],
    caption="Left: test digits, the noisy inputs at light and heavy noise, and what the U-Net returns without its "
    "long skips and with them after training (one seed; the more ink, the brighter the pixel, clipped to the pixel "
    "range). Right: the test error through training, median over seeds; filled markers light noise, open markers "
    "heavy noise.",
)
def unet_denoising(values: Values) -> Any:
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path
    from matplotlib.transforms import Affine2D

    from sitekit.style import INK

    r = values[LIGHT_WIN]  # both claims record the same runs
    shown = r["shown"]
    rows = [("clean", shown["clean"])]
    for level in ("light", "heavy"):
        rows += [(f"σ = {r['sigma'][level]}", shown[level]["noisy"])]
        rows += [("no skips", shown[level]["none"]), ("skips", shown[level]["skip"])]
    count, side, gap = len(rows[0][1]), len(rows[0][1][0]), 2
    grid = np.full((len(rows) * (side + gap), count * (side + gap)), np.nan)
    for i, (_, images) in enumerate(rows):
        for j, image in enumerate(images):
            top, left_ = i * (side + gap), j * (side + gap)
            grid[top : top + side, left_ : left_ + side] = np.clip(np.array(image), 0.0, 1.0)
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 5.2), gridspec_kw={"width_ratios": [1.25, 1]})
    # One path per ink level (INK_LEVELS of them), each pixel a square in it: an SVG of a few hundred
    # bytes per image, where a mesh writes every pixel as its own styled element (a megabyte a page).
    levels = np.rint(np.nan_to_num(grid, nan=0.0) * INK_LEVELS).astype(int)
    for level in range(1, INK_LEVELS + 1):
        ys, xs = np.nonzero(levels == level)
        if len(xs):
            squares = [
                Path.unit_rectangle().transformed(Affine2D().translate(x, y)) for x, y in zip(xs, ys, strict=True)
            ]
            left.add_patch(
                PathPatch(Path.make_compound_path(*squares), facecolor=INK, edgecolor="none", alpha=level / INK_LEVELS)
            )
    left.set_xlim(0, grid.shape[1])
    left.set_ylim(len(rows) * (side + gap), 0)
    left.set_aspect("equal")
    left.set_xticks([])
    left.set_yticks([i * (side + gap) + side / 2 for i in range(len(rows))], [name for name, _ in rows])
    left.tick_params(length=0)
    left.grid(False)
    for spine in left.spines.values():
        spine.set_visible(False)
    steps = [i * r["every"] for i in range(len(r["curve_median"]["light"]["skip"]))]
    for level, filled in (("light", True), ("heavy", False)):
        for net, name in (("skip", "residual"), ("none", "plain")):
            kw = look(name).kw(f"{'skips' if net == 'skip' else 'no skips'}, σ = {r['sigma'][level]}")
            if not filled:
                kw.update(markerfacecolor="none", linestyle=":")
            right.plot(steps[1:], r["curve_median"][level][net][1:], markevery=2, **kw)
    right.set_yscale("log")
    right.set_xlabel("Adam steps")
    right.set_ylabel("test mean squared error")
    right.set_title("Test error while training")
    handles, labels = right.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    return fig


GROWTH = "the_trained_stream_grows_block_by_block"
LENS = "the_tuned_lens_reads_what_the_logit_lens_misses"


@figure(
    "trained-stream-size-and-lens",
    claims=[GROWTH, LENS],
    caption="Lab 2's reading model, median over the trained models. Left: the stream's size grows "
    "block by block once trained, and hardly at all before. Right: the loss a lens reads from the stream; "
    "the tuned lens is closest to the model's own output at every block, the logit lens farthest.",
)
def trained_stream(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.4))
    growth, lens = values[GROWTH], values[LENS]
    trained = look("pre-norm").kw("trained")
    untrained = {**look("neutral").kw("untrained"), "marker": "o"}
    for key, kw in (("median_trained", trained), ("median_untrained", untrained)):
        left.plot(range(len(growth[key])), growth[key], markersize=4, **kw)
    left.set_xlabel("block $k$ (0 = embedding)")
    left.set_ylabel("RMS of the stream $h_k$")
    left.set_title("Size")
    left.set_ylim(bottom=0)
    left.legend(loc="lower right")
    blocks = lens["blocks_read"]
    for key, name in (("logit", "logit lens"), ("shift", "shift-only lens"), ("tuned", "tuned lens")):
        right.plot(blocks, lens["median"][key], markersize=4, **look(name).kw())
    right.axhline(lens["median_output"], **look("neutral").kw("model's output"))
    right.set_xlabel("block $k$ (0 = embedding)")
    right.set_ylabel("held-out loss (nats)")
    right.set_title("Read through a lens")
    right.legend(loc="upper right")
    fig.tight_layout()
    return fig


HC_GAIN = "trained_mixing_moves_the_composite_gain_off_one"
MHC_GAIN = "sinkhorn_mixing_holds_the_trained_gain_at_one"


@figure(
    "hyper-connections-trained-gain",
    claims=[HC_GAIN, MHC_GAIN],
    caption="Lab 2's model with hyper-connections, trained: the largest singular value of the "
    "product of the first l mixing matrices (one per update: attention, then MLP, in each block), one line per "
    "seed. Unconstrained, training moves it off 1; "
    "with Sinkhorn's constraint it stays at 1.",
)
def hyper_connections_trained_gain(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 3.4))
    for key, name, label in (
        (HC_GAIN, "hyper-connections", "unconstrained mixing"),
        (MHC_GAIN, "sinkhorn", "Sinkhorn-constrained mixing"),
    ):
        for i, curve in enumerate(values[key]["curves"]):
            kw = look(name).kw(label if i == 0 else "_nolegend_")
            ax.plot(range(1, len(curve) + 1), curve, markersize=5, **kw)
    ax.axhline(1.0, **look("neutral").kw("identity"))
    ax.set_xlabel("update $l$ (two per block)")
    ax.set_ylabel("largest singular value\nof the product up to l")  # no subscripts: they shrink below 10 px
    ax.set_ylim(0.2, None)  # room under the curves for the legend
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig


STAYS = "one_over_depth_keeps_the_best_rate_within_a_factor_of_two"
DIVERGED = 1e5  # a mean loss above this is a run that blew up: not drawn
FALLS = "the_best_rate_falls_further_the_less_the_multiplier_shrinks"


@figure(
    "depth-transfer",
    claims=[STAYS, FALLS],
    caption="Training loss averaged over the run against Adam's learning rate, one panel per depth rule, for the "
    "shallow stack (solid, filled markers) and the deep one (dashed, open markers); median over seeds, and a "
    "vertical line at each depth's best rate on the median curve. Under 1/L, and under 1/√L with depth-μP's rate "
    "rule, the two curves share their best rate; under 1/√L at one rate the deep stack's best rate is lower, under "
    "1 lower still.",
)
def depth_transfer(values: Values) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullFormatter

    from sitekit.style import INK, PAPER

    r = values[FALLS]
    rates = r["rates_log2"]
    mu_p = "1/√L, depth-μP rate"  # snippets.encyclopedia.depth_transfer.MU_P (figures import no snippets)
    panels = {"1": "s = 1", "1/√L": "s = 1/√L", mu_p: "s = 1/√L,\nblocks' rate ÷ √(L/2)", "1/L": "s = 1/L"}
    names = tuple(panels)
    styles = (("-", None), ("--", PAPER))  # shallow: solid, filled markers; deep: dashed, open markers
    fig, axes = plt.subplots(1, len(names), figsize=(6.8, 3.3))  # each panel its own scale
    for ax, name in zip(axes, names, strict=True):
        colour = look(MULTIPLIER_LOOK[name.split(",")[0]]).color
        for depth, (line, face) in zip(r["median_curves"][name], styles, strict=True):
            curve = r["median_curves"][name][depth]
            shown = [(x, y) for x, y in zip(rates, curve, strict=True) if y < DIVERGED]
            ax.plot(
                [x for x, _ in shown],
                [y for _, y in shown],
                color=colour,
                linestyle=line,
                marker="o",
                markersize=4,
                markerfacecolor=face or colour,
            )
            best = min(shown, key=lambda p: p[1])[0]
            ax.axvline(best, color=colour, linewidth=0.9, linestyle=line, alpha=0.7)
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(NullFormatter())  # decades only: the minor labels crowd
        ax.set_title(panels[name])
        ax.set_xlabel(r"$\log_2$ rate")
    axes[0].set_ylabel("mean training loss")
    depths = list(r["median_curves"][names[0]])
    handles = [
        Line2D([], [], color=INK, linestyle=line, marker="o", markersize=4, markerfacecolor=face or INK)
        for line, face in styles
    ]
    fig.legend(handles, [f"{d} blocks" for d in depths], loc="lower center", ncol=2)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig
