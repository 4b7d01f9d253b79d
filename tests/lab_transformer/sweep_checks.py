"""What Lab 2's sweep claims check at every depth (test_train_shallow.py at 6 blocks, test_train_deep.py at 24):
one definition of "trains at its best rate" and of "pre-norm is ahead"."""

import statistics

from sitekit.margins import above
from snippets.lab_transformer import stream, sweep

TOLERANCE = 0.1  # trained models: not measured between kernels for these files (see the report); twice the floor
TRAINS = 0.5  # nats below the unigram loss: far more learned than the character counts give
GAP = 0.03  # nats: a paired difference this large is about 1 % of the loss, well beyond rounding


def trains(losses: dict, best: dict, grids: dict, unigram: float) -> None:
    """Each variant's best rate lies inside its grid, and at it the loss is TRAINS below the unigram's per seed."""
    for name, values in losses.items():
        assert 0 < grids[name].index(best[name]) < len(grids[name]) - 1, f"{name}: best rate at the grid's edge"
        above(f"{name}: unigram loss − held-out loss at its best rate (nats)", [unigram - v for v in values], TRAINS)


def ahead(pre: list[float], post: list[float]) -> None:
    """Pre-norm's held-out loss is GAP below post-norm's in every seed (paired)."""
    above("post-norm − pre-norm held-out loss, per seed (nats)", [b - a for a, b in zip(pre, post, strict=True)], GAP)


def check_trains(claim, r: dict) -> dict:
    """`trains` on every variant `r` trained, rejected on the same models before training; returns the record."""
    sweeps, unigram = r["sweeps"], r["unigram"]
    best = {name: sw.best_rate() for name, sw in sweeps.items()}
    grids = {name: sw.lrs for name, sw in sweeps.items()}
    claim.check(trains, {name: sw.at_best() for name, sw in sweeps.items()}, best, grids, unigram)
    initial = {name: sw.init_loss for name, sw in sweeps.items()}
    claim.rejects(trains, initial, best, grids, unigram, because="before training")
    return dict(
        table=sweep.summary_table(sweeps),
        best=best,
        grids=grids,
        at_best={name: statistics.median(sw.at_best()) for name, sw in sweeps.items()},
        at_best_low={name: min(sw.at_best()) for name, sw in sweeps.items()},
        at_best_high={name: max(sw.at_best()) for name, sw in sweeps.items()},
        init={name: statistics.median(sw.init_loss) for name, sw in sweeps.items()},
        unigram=unigram,
        rates=len(next(iter(grids.values()))),
        steps=sweep.STEPS,
        warmup=sweep.WARMUP,
        batch=sweep.BATCH,
        context=stream.CONTEXT,
        d=stream.D,
        heads=stream.HEADS,
        windows=sweep.EVAL_WINDOWS,
        depth=r["depth"],
        cpu_seconds=r["cpu_seconds"],
        seeds=len(next(iter(sweeps.values())).seeds),
    )


def check_ahead(claim, r: dict) -> dict:
    """`ahead` at each variant's own best rate, rejected with both at post-norm's best rate; returns the record."""
    pre, post = r["sweeps"]["pre-norm"], r["sweeps"]["post-norm"]
    shared = post.best_rate()  # post-norm's best rate, where pre-norm is not at its own best
    claim.check(ahead, pre.at_best(), post.at_best())
    claim.rejects(ahead, pre.loss[shared], post.loss[shared], because="both at post-norm's best rate")
    diffs = [b - a for a, b in zip(pre.at_best(), post.at_best(), strict=True)]
    shared_diffs = [b - a for a, b in zip(pre.loss[shared], post.loss[shared], strict=True)]
    return dict(
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
        depth=r["depth"],
        seeds=len(pre.seeds),
    )
