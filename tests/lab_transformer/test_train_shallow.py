"""Claims of Lab 2 about its 6-block sweep: pre-norm, post-norm and post-norm with warm-up, each at 4 learning
rates with 3 seeds, 1,500 steps, on torch's own source text, scored on a fixed held-out split."""

import statistics

import pytest

from sitekit import runs
from sitekit.margins import above
from snippets.lab_transformer import sweep
from snippets.lab_transformer import train_shallow as snippet
from tests.lab_transformer import sweep_checks
from tests.lab_transformer.sweep_checks import TOLERANCE

PAGE = "module/lab-transformer-stream.md"
SEEDS = 3
EXPERIMENT = "trains 3 variants x 4 learning rates x 3 seeds of a 6-block character transformer, 1,500 steps each"
# Warm-up's change to post-norm, as a share of pre-norm's lead (a ratio of two medians of small differences over 3
# seeds), is recorded as a reading, not asserted: it measured 0.26 on Intel Xeon, 0.19 on AMD EPYC, 0.22 on a seed set
# nobody tuned against, and 0.43 under CI's held-out condition (held-out seeds, scalar kernels), where a claim that it
# stays under 0.5 missed the margin floor. With 3 seeds this statistic moves with the processor and the seeds.


@pytest.fixture(scope="module")
def r(device, seeds):
    ids = seeds(SEEDS)
    return snippet.measure(device, seed=ids[0], seeds=len(ids))


@pytest.mark.claim(
    "At 6 blocks, trained for 1,500 steps at 4 learning rates with 3 seeds each, every variant's best rate lies "
    "inside its grid, and at it every variant ends more than 0.5 nats below the loss of predicting characters "
    "from their counts, in every seed.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_every_variant_trains_at_its_best_rate_at_6_blocks(claim, r):
    claim.record(**sweep_checks.check_trains(claim, r), lrs=list(sweep.LRS))


# Which grid rate is best for post-norm at 6 blocks is a near-tie between 1e-3 and 3e-3 that another processor's
# rounding flips (AMD EPYC, AVX2: 1e-3; Intel Xeon, AVX-512: 3e-3, where it ties pre-norm's best). So the claims below
# compare the variants each at its own best rate, whichever that is, and say nothing about which rate it is.
@pytest.mark.claim(
    "At 6 blocks, each at its own best rate, pre-norm ends below post-norm in every seed, by more than 0.03 nats "
    "of held-out loss (paired by seed); warm-up, at its own best rate, opens no such gap over post-norm.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_prenorm_beats_postnorm_at_each_best_rate_at_6_blocks(claim, r):
    pre, post, warm = (r["sweeps"][k] for k in ("pre-norm", "post-norm", "post-norm + warm-up"))
    claim.check(sweep_checks.ahead, pre.at_best(), post.at_best())
    claim.rejects(sweep_checks.ahead, warm.at_best(), post.at_best(), because="post-norm + warm-up against post-norm")
    diffs = [b - a for a, b in zip(pre.at_best(), post.at_best(), strict=True)]
    warm_diffs = [b - a for a, b in zip(post.at_best(), warm.at_best(), strict=True)]
    claim.record(
        diffs=diffs,
        diff_median=statistics.median(diffs),
        diff_min=min(diffs),
        diff_max=max(diffs),
        pre_best=pre.best_rate(),
        post_best=post.best_rate(),
        warm_best=warm.best_rate(),
        warm_diffs=warm_diffs,
        warm_diff_min=min(warm_diffs),
        warm_diff_max=max(warm_diffs),
        warm_change_share=statistics.median(abs(d) for d in warm_diffs) / statistics.median(diffs),
        top_rate=warm.lrs[-1],
        at_top={name: statistics.median(sw.loss[warm.lrs[-1]]) for name, sw in r["sweeps"].items()},
        gap=sweep_checks.GAP,
        depth=r["depth"],
        seeds=len(pre.seeds),
    )


@pytest.mark.claim(
    "Training changes how much each block writes: at 6 blocks, pre-norm's first block ends writing more than 3× "
    "its share of the stream at initialisation, and post-norm's median block more than 1.3× its share, in every "
    "seed (each at its seed's best rate).",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_training_raises_the_write_ratios_at_6_blocks(claim, r):
    def grows(pre: dict, post: dict) -> None:
        above("pre-norm: first block's write/stream, trained ÷ initial", pre["first"], 3)
        above("post-norm: median block's write/stream, trained ÷ initial", post["median"], 1.3)

    pre, post, warm = (r["sweeps"][k] for k in ("pre-norm", "post-norm", "post-norm + warm-up"))
    pre_growth, post_growth = runs.run(snippet.growth, pre), runs.run(snippet.growth, post)
    claim.check(grows, pre_growth, post_growth)
    warm_growth = runs.run(snippet.growth, warm)
    claim.rejects(grows, warm_growth, warm_growth, because="post-norm + warm-up's blocks in both places")
    claim.record(
        pre_init={str(s): v for s, v in pre.ratios_init.items()},
        pre_trained={str(s): v for s, v in pre.ratios_trained.items()},
        post_init={str(s): v for s, v in post.ratios_init.items()},
        post_trained={str(s): v for s, v in post.ratios_trained.items()},
        pre_first_growth=pre_growth["first"],
        post_median_growth=post_growth["median"],
        warm_first_growth=warm_growth["first"],
        pre_last_trained=[pre.ratios_trained[s][-1] for s in pre.seeds],
        blocks=snippet.DEPTH,
        seeds=SEEDS,
    )
