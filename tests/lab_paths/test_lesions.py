"""Claims of Lab 1 about deleting blocks of the degradation miniature's trained nets, with and without drop-path (5
seeds)."""

import statistics

import pytest

from snippets.degradation.training_curves import K
from snippets.lab_paths import lesions as snippet

PAGE = "module/lab-why-it-trains.md"
SEEDS = range(5)
CHANCE = 1 - 1 / K  # the error of guessing one of K classes
SURVIVES, LAST = 0.5, 0.25  # bounds on the residual net's mean error over deletions, and its last block's
COLLAPSES = 0.7  # every deletion leaves the plain net's error above this
CHEAP, COSTLY = 0.15, 0.2  # deletion cost (mean error over deletions minus intact) with, without drop-path


@pytest.fixture(scope="module")
def runs(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


def nets(runs, name: str) -> list:
    return [r.nets[name] for r in runs]


def by_block(runs, name: str, what: str) -> list[float]:
    """Median over the seeds of the error with block i deleted (or pair i swapped)."""
    return [statistics.median(col) for col in zip(*(getattr(n, what) for n in nets(runs, name)), strict=True)]


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def survives(net) -> None:
    assert mean(net.deleted) < SURVIVES and net.deleted[-1] < LAST, net.deleted


def collapses(net) -> None:
    assert min(net.deleted) > COLLAPSES, net.deleted


@pytest.mark.claim(
    "Delete any one block of the degradation miniature's trained 6-block plain net and its training error rises "
    "above 0.7 "
    "(chance is 0.9); delete one of the trained residual net's and its mean error over the six deletions "
    "stays below 0.5, below 0.25 for the last block, in every one of 5 seeds.",
    page=PAGE,
)
def test_residual_net_survives_losing_a_block(claim, runs):
    for net in nets(runs, "residual"):
        claim.check(survives, net)
    for net in nets(runs, "plain"):
        claim.check(collapses, net)
    claim.rejects(survives, runs[0].nets["plain"], because="the trained plain net")
    claim.rejects(collapses, runs[0].nets["residual"], because="the trained residual net")
    deleted = {name: by_block(runs, name, "deleted") for name in snippet.NETS}
    rows = [[str(i + 1), *(deleted[name][i] for name in snippet.NETS)] for i in range(runs[0].blocks)]
    claim.record(
        table={"columns": ["deleted block", *snippet.NETS], "rows": rows},
        deleted=deleted,
        swapped={name: by_block(runs, name, "swapped") for name in snippet.NETS},
        intact={name: statistics.median(n.intact for n in nets(runs, name)) for name in snippet.NETS},
        mean_deleted={name: statistics.median(mean(n.deleted) for n in nets(runs, name)) for name in snippet.NETS},
        blocks=runs[0].blocks,
        weight_layers=2 * runs[0].blocks + 2,
        survives=SURVIVES,
        last=LAST,
        collapses=COLLAPSES,
        chance=CHANCE,
        classes=K,
        seeds=len(runs),
    )


@pytest.mark.claim(
    "Swap two neighbouring blocks of the trained residual net and its mean error over the five swaps stays "
    "below 0.5 in every one of 5 seeds; every swap in the trained plain net leaves it above 0.7.",
    page=PAGE,
)
def test_residual_net_survives_reordering(claim, runs):
    def tolerates(net) -> None:
        assert mean(net.swapped) < SURVIVES, net.swapped

    for net in nets(runs, "residual"):
        claim.check(tolerates, net)
    for net in nets(runs, "plain"):
        assert min(net.swapped) > COLLAPSES, net.swapped
    claim.rejects(tolerates, runs[0].nets["plain"], because="the trained plain net")
    claim.record(
        residual_mean=statistics.median(mean(n.swapped) for n in nets(runs, "residual")),
        plain_min=min(min(n.swapped) for n in nets(runs, "plain")),
        swaps=len(runs[0].nets["residual"].swapped),
        survives=SURVIVES,
        collapses=COLLAPSES,
        seeds=len(runs),
    )


def deletion_cost(net) -> float:
    return mean(net.deleted) - net.intact


@pytest.mark.claim(
    "Trained with drop-path, the residual net's mean error over single-block deletions exceeds its intact "
    "error by less than 0.15 in every one of 5 seeds, against more than 0.2 for the same net trained "
    "without it; the price is a higher intact training error.",
    page=PAGE,
)
def test_drop_path_makes_deleting_a_block_cheap(claim, runs):
    def cheap(net) -> None:
        assert deletion_cost(net) < CHEAP, (net.intact, net.deleted)

    for dropped, undropped in zip(nets(runs, "drop-path"), nets(runs, "residual"), strict=True):
        claim.check(cheap, dropped)
        assert deletion_cost(undropped) > COSTLY, undropped.deleted
        assert dropped.intact > undropped.intact, (dropped.intact, undropped.intact)
    claim.rejects(cheap, runs[0].nets["residual"], because="the same net trained without drop-path")
    claim.record(
        cost={name: statistics.median(deletion_cost(n) for n in nets(runs, name)) for name in snippet.NETS},
        cheap=CHEAP,
        costly=COSTLY,
        top_drop=snippet.TOP_DROP,
        seeds=len(runs),
    )
