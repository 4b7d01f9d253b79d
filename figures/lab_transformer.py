"""Figures of Lab 2 (the stream of a small transformer), drawn from the recorded training runs and readings."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

LOSSES = "postnorm_without_warmup_stalls_at_depth_24"
RATIOS = "write_to_stream_ratios_after_training"
LENS = "logit_lens_loss_falls_block_by_block"
DLA = "direct_logit_attribution_sums_to_the_logit"
PATCH = "patching_finds_the_character_carried_by_several_blocks"
SHALLOW = "every_variant_trains_at_its_best_rate_at_6_blocks"
DEEP = "prenorm_and_postnorm_train_at_their_best_rates_at_24_blocks"
DEEP_WARM = "warmup_postnorm_trains_at_its_best_rate_at_24_blocks"  # the same sweep's warm-up half

# Each variant's look in sitekit/style.py.
LOOK = {
    "pre-norm": "pre-norm",
    "post-norm": "post-norm",
    "post-norm + warm-up": "post-norm + warm-up",
    "DeepNorm": "deepnorm",
    "ReZero": "zero",  # the zero-initialised gate, as in the initialisation part's figure
    "1/√L scaled": "scaled",
}


@figure(
    "lab2-final-losses",
    claims=[LOSSES],
    caption="Held-out loss after training, by variant, at the two depths (one seed each): open circles for the "
    "shallow stack, filled ones for the deep stack; the dotted line is the loss of predicting each character from "
    "its frequency alone.",
)
def final_losses(values: Values) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from sitekit.style import INK, PAPER

    v = values[LOSSES]
    names = list(LOOK)
    fig, ax = plt.subplots(figsize=(6.8, 3.6))
    low = min(min(by.values()) for by in v["losses"].values())
    faces = (PAPER, None)  # shallow: open circles (filled with the page's background), deep: filled
    for j, (depth, face) in enumerate(zip(v["depths"], faces, strict=True)):
        for i, name in enumerate(names):
            st = look(LOOK[name])
            x = i + (j - 0.5) * 0.36
            loss = v["losses"][name][str(depth)]  # a dot, not a bar: the axis does not start at 0
            ax.plot(x, loss, "o", markersize=8, markeredgewidth=1.8, color=st.color, markerfacecolor=face or st.color)
    ax.axhline(v["unigram"], **{**look("neutral").kw("character frequencies only", marker=False)})
    depths = [
        Line2D([], [], linestyle="none", marker="o", markersize=8, markeredgewidth=1.8, color=INK,
               markerfacecolor=face or INK, label=f"{depth} blocks")
        for depth, face in zip(v["depths"], faces, strict=True)
    ]  # fmt: skip
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_ylabel("held-out loss (nats)")
    ax.set_ylim(low - 0.3, v["unigram"] + 0.2)
    handles = [*depths, *ax.get_legend_handles_labels()[0]]  # under the plot: the points reach the dotted line
    fig.legend(handles=handles, loc="lower center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    return fig


@figure(
    "lab2-rate-sweep",
    claims=[SHALLOW, DEEP, DEEP_WARM],
    caption="Held-out loss after training against the learning rate, for each variant at each depth: the "
    "median over seeds, with a bar from the lowest seed to the highest; the dotted line is the loss of "
    "predicting each character from its frequency alone.",
)
def rate_sweep(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.9), sharey=True)
    for ax, cids in zip(axes, ((SHALLOW,), (DEEP, DEEP_WARM)), strict=True):
        v = values[cids[0]]
        table = [row for cid in cids for row in values[cid]["table"]["rows"]]
        for i, name in enumerate(name for cid in cids for name in values[cid]["best"]):
            rows = [row for row in table if row[0] == name]
            rate = [row[1] * (1.09 ** (i - 1)) for row in rows]  # nudged apart: the bars would overlap
            median = [row[2] for row in rows]
            spread = [[row[2] - row[3] for row in rows], [row[4] - row[2] for row in rows]]
            st = look(LOOK[name])
            ax.errorbar(rate, median, yerr=spread, capsize=2, **st.kw(name))
        ax.axhline(v["unigram"], **{**look("neutral").kw("character frequencies only", marker=False)})
        ax.set_xscale("log")
        ax.set_xlabel("learning rate")
        ax.set_title(f"{v['depth']} blocks")
    axes[0].set_ylabel("held-out loss (nats)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=2)
    fig.tight_layout(rect=(0, 0.2, 1, 1))
    return fig


@figure(
    "lab2-write-ratios",
    claims=[RATIOS],
    caption="How large each block's write is next to the stream it joins: block by block after training "
    "(left), and the median over blocks through training (right).",
)
def write_ratios(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[RATIOS]
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 4.4))
    for name, ratios in v["final"].items():
        st = look(LOOK[name])
        blocks = range(1, len(ratios) + 1)
        axes[0].plot(blocks, ratios, markevery=4, **st.kw(name))
        axes[1].plot(v["checkpoints"], v["through_training"][name], **st.kw(name))
    axes[0].set_xlabel(f"block (of {v['blocks']})")
    axes[0].set_ylabel(r"$\|\mathrm{write}\| \,/\, \|\mathrm{stream}\|$")
    axes[0].set_title("After training")
    axes[1].set_xlabel("training step")
    axes[1].set_title("Median over blocks")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=3)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    return fig


@figure(
    "lab2-logit-lens",
    claims=[LENS],
    caption="The logit lens: the stream after each block, decoded through the final LayerNorm and the "
    "unembedding, for the trained model and the same model before training.",
)
def logit_lens(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[LENS]
    k = range(len(v["loss"]))
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4))
    trained = look("pre-norm").kw("trained")
    untrained = {**look("neutral").kw("untrained"), "marker": "o"}
    axes[0].plot(k, v["loss"], **trained)
    axes[0].plot(k, v["untrained_loss"], **untrained)
    axes[1].plot(k, v["agree"], **trained)
    axes[1].plot(k, v["untrained_agree"], **untrained)
    for ax in axes:
        ax.set_xticks(list(k), ["emb.", *(str(i) for i in k[1:])])
        ax.set_xlabel("stream after block")
    axes[0].set_ylabel("lens loss (nats)")
    axes[1].set_ylabel("agrees with the final top-1")
    axes[1].set_ylim(0, 1.05)
    axes[0].legend(loc="lower left")
    fig.tight_layout()
    return fig


@figure(
    "lab2-attribution",
    claims=[DLA, PATCH],
    caption="Two readings of the trained model: each part's direct share of the right character's logit "
    "(left), and, for each block, the share of the corruption's cost its clean write restores in the corrupted "
    "run (denoising) and the share its corrupted write costs in the clean run (noising) (right).",
)
def attribution(values: Values) -> Any:
    import matplotlib.pyplot as plt

    d, p = values[DLA], values[PATCH]
    st = look("pre-norm")
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4))
    parts = range(len(d["shares"]))
    axes[0].bar(parts, d["shares"], color=st.color)
    axes[0].set_xticks(list(parts), ["emb.", *(str(i) for i in parts[1:])])
    axes[0].set_xlabel("part of the stream (block)")
    axes[0].set_ylabel("direct share of the logit")
    blocks = range(1, len(p["restored"]) + 1)
    left, right = [k - 0.2 for k in blocks], [k + 0.2 for k in blocks]
    axes[1].bar(left, p["restored"], width=0.4, color=st.color, label="denoising: restored")
    axes[1].bar(right, p["noised"], width=0.4, color=look("neutral").color, label="noising: lost")
    axes[1].legend(loc="upper left")
    axes[1].axhline(0, color=look("neutral").color, linewidth=1)
    axes[1].set_xticks(list(blocks))
    axes[1].set_xlabel("patched block")
    axes[1].set_ylabel("share of the gap")
    fig.tight_layout()
    return fig
