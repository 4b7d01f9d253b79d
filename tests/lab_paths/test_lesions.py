"""Claims of Lab 1 about deleting blocks of the degradation miniature's trained nets, with and without drop-path (5
seeds)."""

import statistics

import pytest
import torch

from sitekit.margins import above, below
from snippets.degradation.training_curves import K, make_net
from snippets.lab_paths import lesions as snippet

PAGE = "module/lab-why-it-trains.md"
CHANCE = 1 - 1 / K  # the error of guessing one of K classes
SURVIVES, LAST = 0.5, 0.25  # bounds on the residual net's mean error over deletions, and its last block's
# The plain net collapses: every lesion takes its error more than this share of the way from its intact
# error to chance (more than halfway: it loses more of what training gained than it keeps). Measured
# against each seed's own intact error, so the bound does not depend on how well that net trained.
COLLAPSES = 0.5
CHEAP, COSTLY = 0.15, 0.2  # deletion cost (mean error over deletions minus intact) with, without drop-path


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def nets(runs, name: str) -> list:
    return [r.nets[name] for r in runs]


def by_block(runs, name: str, what: str) -> list[float]:
    """Median over the seeds of the error with block i deleted (or pair i swapped)."""
    return [statistics.median(col) for col in zip(*(getattr(n, what) for n in nets(runs, name)), strict=True)]


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def weight_layers(blocks: int) -> int:
    """The Linear layers of the degradation miniature's residual net of this many blocks, counted."""
    return sum(isinstance(m, torch.nn.Linear) for m in make_net(blocks, True).modules())


def blocks_moved_by_a_swap(blocks: int) -> int:
    """How many of a net's modules swap_blocks puts in another place (the "two" blocks of a swap), counted."""
    net = make_net(blocks, True)
    return sum(a is not b for a, b in zip(net, snippet.swap_blocks(net, 0), strict=True))


def survives(nets_: list) -> None:
    below("mean error over the single-block deletions", [mean(n.deleted) for n in nets_], SURVIVES)
    below("error with the last block deleted", [n.deleted[-1] for n in nets_], LAST)


def towards_chance(net, errors: list[float]) -> float:
    """The share of the way from its intact error to chance that the least harmful of these lesions went."""
    return (min(errors) - net.intact) / (CHANCE - net.intact)


def collapses(nets_: list) -> None:
    above(
        "least-harmful deletion: (error − intact) / (chance − intact)",
        [towards_chance(n, n.deleted) for n in nets_],
        COLLAPSES,
    )


@pytest.mark.claim(
    "Delete any one block of the degradation miniature's trained 6-block plain net and its training error rises "
    "more than halfway from its intact error to chance (0.9); delete one of the trained residual net's and its "
    "mean error over the six deletions stays below 0.5, below 0.25 for the last block, in every one of 5 seeds.",
    page=PAGE,
)
def test_residual_net_survives_losing_a_block(claim, runs):
    claim.check(survives, nets(runs, "residual"))
    claim.check(collapses, nets(runs, "plain"))
    claim.rejects(survives, nets(runs, "plain"), because="the trained plain net")
    claim.rejects(collapses, nets(runs, "residual"), because="the trained residual net")
    deleted = {name: by_block(runs, name, "deleted") for name in snippet.NETS}
    rows = [[str(i + 1), *(deleted[name][i] for name in snippet.NETS)] for i in range(runs[0].blocks)]
    claim.record(
        table={"columns": ["deleted block", *snippet.NETS], "rows": rows},
        deleted=deleted,
        swapped={name: by_block(runs, name, "swapped") for name in snippet.NETS},
        intact={name: statistics.median(n.intact for n in nets(runs, name)) for name in snippet.NETS},
        mean_deleted={name: statistics.median(mean(n.deleted) for n in nets(runs, name)) for name in snippet.NETS},
        blocks=runs[0].blocks,
        deletions=len(runs[0].nets["residual"].deleted),
        weight_layers=weight_layers(runs[0].blocks),
        survives=SURVIVES,
        last=LAST,
        collapses=COLLAPSES,
        plain_min_deleted=min(min(n.deleted) for n in nets(runs, "plain")),
        plain_towards_chance=min(towards_chance(n, n.deleted) for n in nets(runs, "plain")),
        chance=CHANCE,
        classes=K,
        seeds=len(runs),
    )


@pytest.mark.claim(
    "Swap two neighbouring blocks of the trained residual net and its mean error over the five swaps stays "
    "below 0.5 in every one of 5 seeds; every swap in the trained plain net takes its error more than halfway "
    "from its intact error to chance.",
    page=PAGE,
)
def test_residual_net_survives_reordering(claim, runs):
    def tolerates(nets_: list) -> None:
        below("mean error over the swaps of neighbouring blocks", [mean(n.swapped) for n in nets_], SURVIVES)

    def breaks(nets_: list) -> None:
        above(
            "least-harmful swap: (error − intact) / (chance − intact)",
            [towards_chance(n, n.swapped) for n in nets_],
            COLLAPSES,
        )

    claim.check(tolerates, nets(runs, "residual"))
    claim.check(breaks, nets(runs, "plain"))
    claim.rejects(tolerates, nets(runs, "plain"), because="the trained plain net")
    claim.rejects(breaks, nets(runs, "residual"), because="the trained residual net")
    claim.record(
        residual_mean=statistics.median(mean(n.swapped) for n in nets(runs, "residual")),
        plain_min=min(min(n.swapped) for n in nets(runs, "plain")),
        plain_towards_chance=min(towards_chance(n, n.swapped) for n in nets(runs, "plain")),
        swaps=len(runs[0].nets["residual"].swapped),
        swapped_blocks=blocks_moved_by_a_swap(runs[0].blocks),
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
    def cheap(nets_: list) -> None:
        below("mean error over deletions − intact error", [deletion_cost(n) for n in nets_], CHEAP)

    def costly(nets_: list) -> None:
        above("mean error over deletions − intact error", [deletion_cost(n) for n in nets_], COSTLY)

    def pays(dropped: list, undropped: list) -> None:
        # the same seed's two nets, paired: a sign, not a threshold
        assert all(d.intact > u.intact for d, u in zip(dropped, undropped, strict=True)), (dropped, undropped)

    claim.check(cheap, nets(runs, "drop-path"))
    claim.check(costly, nets(runs, "residual"))
    claim.check(pays, nets(runs, "drop-path"), nets(runs, "residual"))
    claim.rejects(cheap, nets(runs, "residual"), because="the same net trained without drop-path")
    claim.rejects(costly, nets(runs, "drop-path"), because="the same net trained with drop-path")
    claim.record(
        cost={name: statistics.median(deletion_cost(n) for n in nets(runs, name)) for name in snippet.NETS},
        cheap=CHEAP,
        costly=COSTLY,
        top_drop=snippet.TOP_DROP,
        seeds=len(runs),
    )
