"""Claims of "The residual stream" about the size of the stream across depth."""

import inspect
import statistics

import pytest

from snippets.residual_stream import norm_growth as snippet

PAGE = "module/residual-stream.md"
SEEDS = range(5)
SHOWN = (1, 5, 10, 20, 30, 40, 50)


@pytest.fixture(scope="module")
def results(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


def median_series(results, kind: str) -> list[float]:
    return [statistics.median(r.sizes[kind][L] for r in results) for L in range(len(results[0].sizes[kind]))]


RESIDUAL_BAND, PRENORM_BAND = (2, 8), (1.3, 2.5)


def default_init_growth(residual: list[float], prenorm: list[float], postnorm: list[float]) -> None:
    """At depth 50: plain residual 2-8x, pre-norm 1.3-2.5x; post-norm the same after every block.

    LayerNorm gives each row mean 0 and variance 1, so RMS(h_l) is 1 up to its eps; the ratio to
    RMS(x) then differs from 1 only by the sample RMS of x (within 5 %).
    """
    assert RESIDUAL_BAND[0] < residual[50] < RESIDUAL_BAND[1], residual[50]
    assert PRENORM_BAND[0] < prenorm[50] < PRENORM_BAND[1], prenorm[50]
    assert max(postnorm[1:]) / min(postnorm[1:]) < 1 + 1e-5, (min(postnorm[1:]), max(postnorm[1:]))
    assert abs(postnorm[50] - 1) < 0.05, postnorm[50]


@pytest.mark.claim(
    "At PyTorch's default init, 50 blocks make the stream 2 to 8 times its input's RMS with plain residual "
    "blocks, 1.3 to 2.5 times with pre-norm blocks, and leave it the same after every block with post-norm "
    "blocks (5 seeds).",
    page=PAGE,
)
def test_stream_growth_over_50_blocks_at_default_init(claim, results):
    for r in results:
        claim.check(default_init_growth, r.sizes["residual"], r.sizes["pre-norm"], r.sizes["post-norm"])
    r = results[0]
    claim.rejects(
        default_init_growth,
        r.sizes["residual, He init"],
        r.sizes["pre-norm"],
        r.sizes["post-norm"],
        because="He init in the plain residual stack",
    )
    series = {kind: median_series(results, kind) for kind in snippet.KINDS}
    rows = [[L, *(series[k][L] for k in snippet.KINDS)] for L in SHOWN]
    claim.record(
        series=series,
        table={"columns": ["depth L", *snippet.KINDS], "rows": rows},
        residual_50=series["residual"][50],
        prenorm_50=series["pre-norm"][50],
        postnorm_spread=max(max(r.sizes["post-norm"][1:]) / min(r.sizes["post-norm"][1:]) - 1 for r in results),
        residual_per_block=series["residual"][50] ** (2 / 50),
        prenorm_per_block=(series["pre-norm"][50] ** 2 - 1) / 50,
        seeds=len(results),
        depth=len(r.sizes["residual"]) - 1,
        residual_band=RESIDUAL_BAND,
        prenorm_band=PRENORM_BAND,
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )


@pytest.mark.claim(
    "With He-initialised branches the plain residual stream grows more than 1e10-fold in RMS over 50 blocks (5 seeds).",
    page=PAGE,
)
def test_he_init_stream_grows_over_1e10_in_50_blocks(claim, results):
    threshold = 1e10

    def explodes(sizes: list[float]) -> None:
        assert sizes[50] > threshold, sizes[50]

    for r in results:
        claim.check(explodes, r.sizes["residual, He init"])
    claim.rejects(explodes, results[0].sizes["residual"], because="default init")
    he = median_series(results, "residual, He init")
    claim.record(
        he_50=he[50], he_per_block=he[50] ** (2 / 50), threshold=threshold, depth=len(he) - 1, seeds=len(results)
    )
