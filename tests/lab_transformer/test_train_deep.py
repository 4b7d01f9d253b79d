"""Claims of Lab 2 at 24 blocks: pre-norm, post-norm and post-norm with warm-up, each at 4 learning rates of its
own grid with 3 seeds, 1,500 steps, on torch's own source text, scored on a fixed held-out split."""

import statistics

import pytest

from sitekit.margins import above, below
from snippets.lab_transformer import sweep
from snippets.lab_transformer import train_deep as snippet
from tests.lab_transformer import sweep_checks
from tests.lab_transformer.sweep_checks import TOLERANCE

PAGE = "module/lab-transformer-stream.md"
SEEDS = 3
EXPERIMENT = (
    "trains pre-norm, post-norm and post-norm with warm-up x 4 learning rates x 3 seeds of a 24-block character "
    "transformer, 1,500 steps each"
)
STALLED = 0.1  # nats: a model that ends less than this below the unigram loss has learned next to nothing
HELPS = 0.1  # nats: warm-up lowers the loss at that rate by more than the stall line itself


@pytest.fixture(scope="module")
def r(device, seeds):
    ids = seeds(SEEDS)
    return snippet.measure(device, seed=ids[0], seeds=len(ids))


def placement(r: dict) -> dict:
    """The two variants without warm-up: what placement decides."""
    return {**r, "sweeps": {k: r["sweeps"][k] for k in ("pre-norm", "post-norm")}}


@pytest.mark.claim(
    "At 24 blocks, trained for 1,500 steps at 4 learning rates of its own grid with 3 seeds each, pre-norm's and "
    "post-norm's best rates lie inside their grids, and at them both end more than 0.5 nats below the loss of "
    "predicting characters from their counts, in every seed.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_prenorm_and_postnorm_train_at_their_best_rates_at_24_blocks(claim, r):
    claim.record(**sweep_checks.check_trains(claim, placement(r)))


@pytest.mark.claim(
    "At 24 blocks, each at its own best rate, pre-norm ends below post-norm in every seed, by more than 0.03 nats "
    "of held-out loss (paired by seed); at post-norm's best rate the gap is not there in every seed.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_prenorm_beats_postnorm_at_each_best_rate_at_24_blocks(claim, r):
    claim.record(**sweep_checks.check_ahead(claim, r))


@pytest.mark.claim(
    "At 24 blocks, trained for 1,500 steps at 4 learning rates with 3 seeds each, post-norm with warm-up has its "
    "best rate inside its grid, and at it ends more than 0.5 nats below the loss of predicting characters from "
    "their counts, in every seed.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_warmup_postnorm_trains_at_its_best_rate_at_24_blocks(claim, r):
    warm = {"post-norm + warm-up": r["sweeps"]["post-norm + warm-up"]}
    claim.record(**sweep_checks.check_trains(claim, {**r, "sweeps": warm}))


@pytest.mark.claim(
    "At 24 blocks, one step above post-norm's best rate, post-norm without warm-up ends less than 0.1 nats below "
    "the unigram loss in every seed, and warm-up lowers its held-out loss there by more than 0.1 nats in the "
    "median seed (paired).",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_warmup_widens_postnorms_rates_at_24_blocks(claim, r):
    def stalls(losses: list[float], unigram: float) -> None:
        below("unigram loss − held-out loss (nats)", [unigram - v for v in losses], STALLED)

    # The median, not every seed: at this rate warm-up rescues most seeds but not all (on the held-out seeds, on
    # Intel, one of three improved by 0.037 nats only), so "in every seed" was not true anywhere.
    def helps(without: list[float], with_warmup: list[float]) -> None:
        above(
            "median over seeds of post-norm − post-norm + warm-up at the same rate, paired (nats)",
            statistics.median(a - b for a, b in zip(without, with_warmup, strict=True)),
            HELPS,
        )

    post, warm = (r["sweeps"][k] for k in ("post-norm", "post-norm + warm-up"))
    unigram = r["unigram"]
    best = post.lrs.index(post.best_rate())
    assert 0 < best < len(post.lrs) - 1, (
        "post-norm's best rate at the grid's edge (the first claim above checks it too)"
    )
    above_best = post.lrs[best + 1]
    claim.check(stalls, post.loss[above_best], unigram)
    claim.check(helps, post.loss[above_best], warm.loss[above_best])
    top = warm.lrs[-1]
    claim.rejects(stalls, post.at_best(), unigram, because="post-norm at its best rate")
    claim.rejects(helps, post.loss[top], warm.loss[top], because="both at the top of the grid, where both stall")
    diffs = [b - a for a, b in zip(post.at_best(), warm.at_best(), strict=True)]
    helped = [a - b for a, b in zip(post.loss[above_best], warm.loss[above_best], strict=True)]
    claim.record(
        rate=above_best,
        post_at_rate=post.loss[above_best],
        warm_at_rate=warm.loss[above_best],
        post_below=[unigram - v for v in post.loss[above_best]],
        warm_below=[unigram - v for v in warm.loss[above_best]],
        post_below_max=max(unigram - v for v in post.loss[above_best]),
        warm_below_min=min(unigram - v for v in warm.loss[above_best]),
        diffs=diffs,
        diff_min=min(diffs),
        diff_max=max(diffs),
        post_best=post.best_rate(),
        warm_best=warm.best_rate(),
        post_table=sweep.summary_table({"post-norm": post}),
        warmup=sweep.WARMUP,
        top_rate=top,
        stalled=STALLED,
        helps=HELPS,
        helped=helped,
        helped_min=min(helped),
        helped_median=statistics.median(helped),
        depth=snippet.DEPTH,
        seeds=SEEDS,
    )
