"""Claims of Lab 2 about its 6-block sweep: pre-norm, post-norm and post-norm with warm-up, each at 4 learning
rates with 3 seeds, 1,500 steps, on torch's own source text, scored on a fixed held-out split."""

import statistics

import pytest

from sitekit import runs
from sitekit.margins import above, below
from snippets.lab_transformer import sweep
from snippets.lab_transformer import train_shallow as snippet
from tests.lab_transformer import sweep_checks
from tests.lab_transformer.sweep_checks import TOLERANCE

PAGE = "module/lab-transformer-stream.md"
SEEDS = 3
EXPERIMENT = "trains 3 variants x 4 learning rates x 3 seeds of a 6-block character transformer, 1,500 steps each"
SAME = 0.5  # warm-up's change to post-norm is less than this share of pre-norm's lead: small next to placement
# The warm-up statistic is one ratio of two medians of small differences (n = 1: no seed spread to allow for), and it
# moves with the processor and the seeds: 0.257 on Intel Xeon, 0.189 on AMD EPYC (same seeds), 0.218 on a set of seeds
# nobody tuned against. The largest of those drifts is 0.36 of the smaller value; the reproduction check allows twice
# that. The claim itself (< 0.5) holds on all three with room.
WARMUP_TOLERANCE = 0.75


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
    claim.record(
        diffs=diffs,
        diff_median=statistics.median(diffs),
        diff_min=min(diffs),
        diff_max=max(diffs),
        pre_best=pre.best_rate(),
        post_best=post.best_rate(),
        gap=sweep_checks.GAP,
        depth=r["depth"],
        seeds=len(pre.seeds),
    )


@pytest.mark.claim(
    "At 6 blocks, warm-up changes post-norm's held-out loss, each at its own best rate, by less than 0.5 times "
    "pre-norm's lead over post-norm (medians over the seeds); at the top rate of the grid it does not let "
    "post-norm train.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=WARMUP_TOLERANCE,
)
def test_warmup_changes_postnorm_little_at_6_blocks(claim, r):
    pre, post, warm = (r["sweeps"][k] for k in ("pre-norm", "post-norm", "post-norm + warm-up"))

    def little(without: list[float], with_warmup: list[float], prenorm: list[float]) -> None:
        change = statistics.median(abs(b - a) for a, b in zip(without, with_warmup, strict=True))
        lead = statistics.median(a - p for a, p in zip(without, prenorm, strict=True))
        below("median |post-norm + warm-up − post-norm| ÷ median pre-norm lead, at each best rate", change / lead, SAME)

    claim.check(little, post.at_best(), warm.at_best(), pre.at_best())
    top = warm.lrs[-1]
    claim.rejects(little, post.at_best(), warm.loss[top], pre.at_best(), because="warm-up at the top rate")
    diffs = [b - a for a, b in zip(post.at_best(), warm.at_best(), strict=True)]
    claim.record(
        diffs=diffs,
        diff_min=min(diffs),
        diff_max=max(diffs),
        post_best=post.best_rate(),
        warm_best=warm.best_rate(),
        warmup=sweep.WARMUP,
        top_rate=top,
        at_top={name: statistics.median(sw.loss[top]) for name, sw in r["sweeps"].items()},
        same=SAME,
        depth=snippet.DEPTH,
        seeds=SEEDS,
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
