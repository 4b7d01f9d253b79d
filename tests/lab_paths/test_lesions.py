"""Claims of Lab 1 about deleting and swapping blocks of trained 30-block nets on the digits (3 seeds); the net
trained with drop-path is recorded beside them and is the deletion curve's counterfactual."""

import statistics

import pytest
import torch

from sitekit.margins import above, below
from snippets.lab_paths import lesions as snippet

PAGE = "module/lab-why-it-trains.md"
CHANCE = 1 - 1 / snippet.K  # the error of guessing one of K classes
EXPERIMENT = "trains 9 nets of 30 blocks (plain, residual, drop-path; 3 seeds) for 500 Adam steps on the digits"
# A fresh run of the same code and seeds under another kernel path (ATEN_CPU_CAPABILITY=default, SITE_THREADS=1)
# moved the margins' medians by at most 7.3% (the deletion curve's ratio; the plain net's shares 4.0% and 6.5%; the
# residual net's lost shares, near 0, by under 0.01, inside what the seeds' spread allows). Training diverges under
# any change of rounding, so that is one sample of a processor's drift: the tolerance covers a little more than twice
# it.
TOLERANCE = 0.2
# Lesions are scored by the share of the way from a net's own intact test error to chance that they take it
# (the share of its gain over chance that a lesion loses), so that the bounds do not depend on how well each net
# trained. Both nets are bounded on that one scale, whose zero is "the lesion costs nothing": a margin relative to
# a bound on the kept share, 1 − this, could never exceed 1/0.9 − 1 = 11 % however little a lesion cost.
LOSES = 0.1  # the residual net's median single-block deletion loses less than this share of its gain over chance
# The plain net's median deletion loses more than this share of its gain. It was 0.5 ("more than it keeps") until a
# run on an Intel Xeon with AVX-512 kernels (records made on AMD EPYC, AVX2) found one seed's plain net at 0.43: that
# sentence held on one processor only. The shares seen on both processors run from 0.43 to 0.83; the residual net's
# stay under 0.1, so the contrast the claim draws survives at a bound that neither processor comes near.
COLLAPSES = 0.25
BREAKS = 0.5  # the plain net's median swap loses more than this share (it held at this bound on both processors)
MOST = snippet.KS[-1]


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(3)]


def nets(runs, name: str) -> list:
    return [r.nets[name] for r in runs]


def share(net, error: float) -> float:
    """The share of the way from the net's intact test error to chance that this error lies."""
    return (error - net.intact) / (CHANCE - net.intact)


def median_single(net, what: str = "deleted") -> float:
    return share(net, statistics.median(getattr(net, what)))


def curve(net) -> list[float]:
    """Share of the way to chance, mean over the random sets, for each k of KS."""
    return [share(net, statistics.mean(errors)) for errors in net.curve.values()]


def weight_layers(blocks: int) -> int:
    """The Linear layers of the residual net of this many blocks, counted on the built net."""
    return sum(isinstance(m, torch.nn.Linear) for m in snippet.make_net(blocks, True).modules())


def graceful(nets_: list) -> None:
    below(
        "median single-block deletion, share lost: (error − intact) / (chance − intact)",
        [median_single(n) for n in nets_],
        LOSES,
    )


def collapses(nets_: list) -> None:
    above(
        "median single-block deletion: (error − intact) / (chance − intact)",
        [median_single(n) for n in nets_],
        COLLAPSES,
    )


def blocks_moved_by_a_swap(blocks: int) -> int:
    """How many of a net's modules swap_blocks puts in another place (the "two" blocks of a swap), counted."""
    net = snippet.make_net(blocks, True)
    return sum(a is not b for a, b in zip(net, snippet.swap_blocks(net, 0), strict=True))


def med(values) -> float:
    return statistics.median(values)


@pytest.mark.claim(
    "Delete one block of the trained 30-block residual net and, for the median block, it loses less than 0.1 of "
    "its intact gain over chance in test error on held-out digits; the plain net of the same depth loses more than "
    "0.25 of its gain to the median deletion, in every one of 3 seeds.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_residual_net_degrades_gracefully_when_a_block_is_deleted(claim, runs):
    claim.check(graceful, nets(runs, "residual"))
    claim.check(collapses, nets(runs, "plain"))
    claim.rejects(graceful, nets(runs, "plain"), because="the trained plain net")
    claim.rejects(collapses, nets(runs, "residual"), because="the trained residual net")
    deleted = {
        name: [med(col) for col in zip(*(n.deleted for n in nets(runs, name)), strict=True)] for name in snippet.NETS
    }
    rows = [[str(i + 1), *(deleted[name][i] for name in snippet.NETS)] for i in range(runs[0].blocks)]
    claim.record(
        table={"columns": ["deleted block", *snippet.NETS], "rows": rows},
        deleted=deleted,
        intact={name: med(n.intact for n in nets(runs, name)) for name in snippet.NETS},
        train_error={name: med(n.train_error for n in nets(runs, name)) for name in snippet.NETS},
        median_deleted={name: med(med(n.deleted) for n in nets(runs, name)) for name in snippet.NETS},
        median_share={name: med(median_single(n) for n in nets(runs, name)) for name in snippet.NETS},
        first_deleted=deleted["residual"][0],
        worst_residual_share=max(median_single(n) for n in nets(runs, "residual")),
        least_plain_share=min(median_single(n) for n in nets(runs, "plain")),
        blocks=runs[0].blocks,
        weight_layers=weight_layers(runs[0].blocks),
        train_images=runs[0].train_images,
        test_images=runs[0].test_images,
        steps=snippet.STEPS,
        loses=LOSES,
        collapses=COLLAPSES,
        residual_lost=med(median_single(n) for n in nets(runs, "residual")),
        chance=CHANCE,
        classes=snippet.K,
        seeds=len(runs),
    )


def stays_below(lower: list, upper: list) -> None:
    """At every k, the first net's share of the way to chance is below the second's, per seed."""
    ratios = [max(lo / u for lo, u in zip(curve(a), curve(b), strict=True)) for a, b in zip(lower, upper, strict=True)]
    below("largest over k: lower net's share / upper net's share", ratios, 1)


@pytest.mark.claim(
    "Delete k random blocks at once (10 random sets for each k of 1, 2, 3, 4, 6, 8 and 10): at every k the "
    "trained residual net's test error has gone a smaller share of the way from its intact error to chance than "
    "the plain net's, in every one of 3 seeds.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_residual_net_error_rises_gradually_with_blocks_deleted(claim, runs):
    claim.check(stays_below, nets(runs, "residual"), nets(runs, "plain"))
    claim.rejects(
        stays_below, nets(runs, "residual"), nets(runs, "drop-path"), because="the residual net trained with drop-path"
    )
    ks = list(runs[0].nets["residual"].curve)
    errors = {name: [med(statistics.mean(n.curve[k]) for n in nets(runs, name)) for k in ks] for name in snippet.NETS}
    claim.record(
        ks=ks,
        curve=errors,
        intact={name: med(n.intact for n in nets(runs, name)) for name in snippet.NETS},
        table={
            "columns": ["blocks deleted", *snippet.NETS],
            "rows": [[k, *(errors[n][i] for n in snippet.NETS)] for i, k in enumerate(ks)],
        },
        residual_most=errors["residual"][-1],
        plain_one=errors["plain"][0],
        residual_one=errors["residual"][0],
        most=MOST,
        samples=snippet.SAMPLES,
        share={name: [med(curve(n)[i] for n in nets(runs, name)) for i in range(len(ks))] for name in snippet.NETS},
        drop_path_most=errors["drop-path"][-1],
        top_drop=snippet.TOP_DROP,
        worst_ratio=max(
            max(a / b for a, b in zip(curve(r), curve(p), strict=True))
            for r, p in zip(nets(runs, "residual"), nets(runs, "plain"), strict=True)
        ),
        train_error={name: med(n.train_error for n in nets(runs, name)) for name in snippet.NETS},
        seeds=len(runs),
    )


@pytest.mark.claim(
    "Swap two neighbouring blocks of the trained residual net and, for the median swap, it loses less than 0.1 of "
    "its intact gain over chance in test error; the plain net loses more than 0.5 of its gain to the median swap, "
    "in every one of 3 seeds.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_residual_net_survives_reordering(claim, runs):
    def tolerates(nets_: list) -> None:
        below(
            "median swap, share lost: (error − intact) / (chance − intact)",
            [median_single(n, "swapped") for n in nets_],
            LOSES,
        )

    def breaks(nets_: list) -> None:
        above("median swap: (error − intact) / (chance − intact)", [median_single(n, "swapped") for n in nets_], BREAKS)

    claim.check(tolerates, nets(runs, "residual"))
    claim.check(breaks, nets(runs, "plain"))
    claim.rejects(tolerates, nets(runs, "plain"), because="the trained plain net")
    claim.rejects(breaks, nets(runs, "residual"), because="the trained residual net")
    claim.record(
        residual_median=med(med(n.swapped) for n in nets(runs, "residual")),
        plain_median=med(med(n.swapped) for n in nets(runs, "plain")),
        swaps=len(runs[0].nets["residual"].swapped),
        swapped_blocks=blocks_moved_by_a_swap(runs[0].blocks),
        residual_lost=med(median_single(n, "swapped") for n in nets(runs, "residual")),
        loses=LOSES,
        collapses=BREAKS,
        seeds=len(runs),
    )
