"""Claims of the entry "Long Skips: U-Nets" that are exact: the paths through a U-Net counted from its expanded
output beside a residual stack's, and the share of a digit's energy that two poolings take out."""

import pytest

from sitekit import runs
from sitekit.margins import above, below
from snippets.encyclopedia import unet_skips as snippet

PAGE = "encyclopedia/unet-skips.md"
EXACT = "symbolic algebra on scalars, and float32 pooling of a fixed data set on the CPU: no device is involved"
LOST = 0.5  # more than half of a digit's variation about its mean is gone from its 2×2 summary
KEPT = 1e-6  # a block-constant image loses nothing (float32 round-off only)


@pytest.fixture(scope="module")
def p():
    return runs.run(snippet.measure_paths)


@pytest.mark.claim(
    "Expanded, a linear U-Net with k levels (k = 1 to 4) is a sum of k + 1 paths, of lengths 2, 4, …, 2k and "
    "2k + 1 weight layers, one for each level a path turns back at; a residual stack of k blocks is a sum of 2^k "
    "paths, and fails the same count from k = 2 on.",
    page=PAGE,
    device_independent=EXACT,
    identity="each level returns u·(the level below) + v·(its own features), so expanding k nested levels gives "
    "k + 1 terms, while each residual block doubles the terms, (1 + f)·(sum so far); sympy expands both exactly",
)
def test_unet_paths_are_nested(claim, p):
    def nested(by_depth: dict[int, list[int]]) -> None:
        for k, lengths in by_depth.items():
            assert lengths == [*range(2, 2 * k + 1, 2), 2 * k + 1], (k, lengths)

    claim.check(nested, p.unet)
    claim.rejects(nested, p.residual, because="a residual stack of the same number of blocks")
    claim.record(
        levels=p.levels,
        unet={str(k): v for k, v in p.unet.items()},
        unet_paths={str(k): len(v) for k, v in p.unet.items()},
        residual_paths={str(k): len(v) for k, v in p.residual.items()},
        deepest=p.levels[-1],
        deepest_unet=len(p.unet[p.levels[-1]]),
        deepest_residual=len(p.residual[p.levels[-1]]),
        longest=max(p.unet[p.levels[-1]]),
    )


@pytest.mark.claim(
    "Average-pooling a digit 2×2 twice and upsampling it back keeps a 2×2 summary that misses more than half of "
    "the image's variation about its mean: 93% over scikit-learn's 517 test digits; an image that is already "
    "constant on 4×4 blocks loses nothing (less than 1e-6).",
    page=PAGE,
    device_independent=EXACT,
)
def test_pooling_twice_loses_most_of_a_digit(claim):
    shares = runs.run(snippet.measure_pooling)

    def loses(share: float) -> None:
        above("share of the energy about the mean removed", share, LOST)

    def keeps(share: float) -> None:
        below("share of the energy about the mean removed", share, KEPT)

    claim.check(loses, shares["digits"])
    claim.rejects(
        loses, shares["summaries"], because="the digits' own 4×4-block summaries, which pooling cannot change"
    )
    claim.check(keeps, shares["summaries"])
    claim.rejects(keeps, shares["digits"], because="the digits themselves")
    claim.record(
        share=shares["digits"],
        summary_share=shares["summaries"],
        images=shares["images"],
        pool=snippet.POOL,
        poolings=snippet.POOLINGS,
        block=snippet.POOL**snippet.POOLINGS,
        lost=LOST,
        kept=KEPT,
    )
