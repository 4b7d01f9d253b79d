"""Claims of Lab 2 about its 24-block sweep: pre-norm, post-norm and post-norm with warm-up, each at 4 learning
rates of its own grid with 3 seeds, 1,500 steps, on torch's own source text, scored on a fixed held-out split."""

import statistics

import pytest

from sitekit.margins import above, below
from snippets.lab_transformer import stream, sweep
from snippets.lab_transformer import train_deep as snippet

PAGE = "module/lab-transformer-stream.md"
SEEDS = 3
EXPERIMENT = "trains 3 variants x 4 learning rates x 3 seeds of a 24-block character transformer, 1,500 steps each"
TOLERANCE = 0.1  # trained models, as at 6 blocks (test_train_shallow.py)
TRAINS = 0.5  # nats below the unigram loss at each variant's best rate, as at 6 blocks
GAP = 0.03  # nats: the paired difference the 6-block claim uses
STALLED = 0.1  # nats: a model that ends less than this below the unigram loss has learned next to nothing
HELPS = 0.1  # nats: warm-up lowers the loss at that rate by more than the stall line itself


@pytest.fixture(scope="module")
def r(device, seeds):
    ids = seeds(SEEDS)
    return snippet.measure(device, seed=ids[0], seeds=len(ids))


@pytest.mark.claim(
    "At 24 blocks, trained for 1,500 steps at 4 learning rates of its own grid with 3 seeds each, every variant's "
    "best rate lies inside its grid, and at it every variant ends more than 0.5 nats below the loss of "
    "predicting characters from their counts, in every seed.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_every_variant_trains_at_its_best_rate_at_24_blocks(claim, r):
    def trains(losses: dict, best: dict, grids: dict, unigram: float) -> None:
        for name, values in losses.items():
            assert 0 < grids[name].index(best[name]) < len(grids[name]) - 1, f"{name}: best rate at the grid's edge"
            above(
                f"{name}: unigram loss − held-out loss at its best rate (nats)", [unigram - v for v in values], TRAINS
            )

    sweeps = r["sweeps"]
    best = {name: sw.best_rate() for name, sw in sweeps.items()}
    grids = {name: sw.lrs for name, sw in sweeps.items()}
    claim.check(trains, {name: sw.at_best() for name, sw in sweeps.items()}, best, grids, r["unigram"])
    initial = {name: sw.init_loss for name, sw in sweeps.items()}
    claim.rejects(trains, initial, best, grids, r["unigram"], because="before training")
    claim.record(
        table=sweep.summary_table(sweeps),
        best=best,
        grids=grids,
        at_best={name: statistics.median(sw.at_best()) for name, sw in sweeps.items()},
        at_best_low={name: min(sw.at_best()) for name, sw in sweeps.items()},
        at_best_high={name: max(sw.at_best()) for name, sw in sweeps.items()},
        init={name: statistics.median(sw.init_loss) for name, sw in sweeps.items()},
        unigram=r["unigram"],
        rates=len(snippet.GRIDS["pre-norm"]),
        steps=sweep.STEPS,
        batch=sweep.BATCH,
        context=stream.CONTEXT,
        depth=snippet.DEPTH,
        cpu_seconds=r["cpu_seconds"],
        seeds=SEEDS,
    )


@pytest.mark.claim(
    "At 24 blocks, each at its own best rate, pre-norm ends below post-norm in every seed, by more than 0.03 nats "
    "of held-out loss (paired by seed); at post-norm's best rate the gap is not there in every seed.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_prenorm_beats_postnorm_at_each_best_rate_at_24_blocks(claim, r):
    def ahead(pre: list[float], post: list[float]) -> None:
        above(
            "post-norm − pre-norm held-out loss, per seed (nats)", [b - a for a, b in zip(pre, post, strict=True)], GAP
        )

    pre, post = r["sweeps"]["pre-norm"], r["sweeps"]["post-norm"]
    shared = post.best_rate()
    claim.check(ahead, pre.at_best(), post.at_best())
    claim.rejects(ahead, pre.loss[shared], post.loss[shared], because="both at post-norm's best rate")
    diffs = [b - a for a, b in zip(pre.at_best(), post.at_best(), strict=True)]
    shared_diffs = [b - a for a, b in zip(pre.loss[shared], post.loss[shared], strict=True)]
    claim.record(
        diffs=diffs,
        diff_median=statistics.median(diffs),
        diff_min=min(diffs),
        diff_max=max(diffs),
        shared_rate=shared,
        shared_diffs=shared_diffs,
        shared_min=min(shared_diffs),
        shared_max=max(shared_diffs),
        pre_best=pre.best_rate(),
        post_best=post.best_rate(),
        gap=GAP,
        depth=snippet.DEPTH,
        seeds=SEEDS,
    )


@pytest.mark.claim(
    "At 24 blocks, one step above post-norm's best rate, post-norm without warm-up ends less than 0.1 nats below "
    "the unigram loss in every seed, and warm-up lowers its held-out loss there by more than 0.1 nats in every "
    "seed (paired).",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_warmup_widens_postnorms_rates_at_24_blocks(claim, r):
    def stalls(losses: list[float], unigram: float) -> None:
        below("unigram loss − held-out loss (nats)", [unigram - v for v in losses], STALLED)

    def helps(without: list[float], with_warmup: list[float]) -> None:
        above(
            "post-norm − post-norm + warm-up at the same rate, per seed (nats)",
            [a - b for a, b in zip(without, with_warmup, strict=True)],
            HELPS,
        )

    post, warm = (r["sweeps"][k] for k in ("post-norm", "post-norm + warm-up"))
    unigram = r["unigram"]
    above_best = post.lrs[post.lrs.index(post.best_rate()) + 1]  # the best rate is inside the grid (first claim)
    claim.check(stalls, post.loss[above_best], unigram)
    claim.check(helps, post.loss[above_best], warm.loss[above_best])
    top = warm.lrs[-1]
    claim.rejects(stalls, post.at_best(), unigram, because="post-norm at its best rate")
    claim.rejects(helps, post.loss[top], warm.loss[top], because="both at the top of the grid, where both stall")
    diffs = [b - a for a, b in zip(post.at_best(), warm.at_best(), strict=True)]
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
        warmup=sweep.WARMUP,
        top_rate=top,
        stalled=STALLED,
        helps=HELPS,
        helped=[a - b for a, b in zip(post.loss[above_best], warm.loss[above_best], strict=True)],
        helped_min=min(a - b for a, b in zip(post.loss[above_best], warm.loss[above_best], strict=True)),
        depth=snippet.DEPTH,
        seeds=SEEDS,
    )
