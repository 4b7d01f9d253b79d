"""Claims of "The residual stream" about the size of the stream across depth."""

import inspect
import statistics

import pytest

from sitekit.margins import above, below, between
from snippets.residual_stream import norm_growth as snippet

PAGE = "module/residual-stream.md"
SHOWN = (1, 5, 10, 20, 30, 40, 50)


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def median_series(results, kind: str) -> list[float]:
    return [statistics.median(r.sizes[kind][L] for r in results) for L in range(len(results[0].sizes[kind]))]


RESIDUAL_BAND, PRENORM_BAND = (2, 8), (1.3, 2.5)
# Post-norm: every block's output is a LayerNorm's (weight 1, bias 0 at init), whose rows have mean 0 and
# variance v/(v + eps) with eps = 1e-5, so RMS(h_l) is 1 − O(eps) after every block, whatever came before:
# between blocks it moves by O(eps) plus float32 rounding (under 1e-5), and it sits within 10·eps of 1.
POSTNORM_SPREAD, POSTNORM_LEVEL = 1e-5, 1e-4


def post_norm_rms(sizes: list[float], x_rms: float) -> list[float]:
    """RMS(h_l) itself, l = 1..L, of the post-norm stack, from its sizes relative to RMS(x) and RMS(x)."""
    return [size * x_rms for size in sizes[1:]]


def default_init_growth(
    residual: list[list[float]], prenorm: list[list[float]], postnorm: list[list[float]], postnorm_rms: list[float]
) -> None:
    """At depth 50, in every seed: plain residual 2-8x, pre-norm 1.3-2.5x; post-norm the same after every block.

    `postnorm` and `postnorm_rms` are each seed's RMS(h_l) / RMS(x) and RMS(x): the post-norm test is on
    RMS(h_l) itself, l = 1..L (not relative to RMS(x), whose own sample RMS would otherwise blur the
    comparison by about 1/√(2·N·d) ≈ 1.6 %).
    """
    postnorm = [post_norm_rms(sizes, x_rms) for sizes, x_rms in zip(postnorm, postnorm_rms, strict=True)]
    between("plain residual RMS(h_50) / RMS(x)", [sizes[50] for sizes in residual], *RESIDUAL_BAND)
    between("pre-norm RMS(h_50) / RMS(x)", [sizes[50] for sizes in prenorm], *PRENORM_BAND)
    below("post-norm max/min of RMS(h_l) over the blocks − 1", [max(s) / min(s) - 1 for s in postnorm], POSTNORM_SPREAD)
    below("post-norm |RMS(h_l) − 1|, every block", [abs(v - 1) for s in postnorm for v in s], POSTNORM_LEVEL)


@pytest.mark.claim(
    "At PyTorch's default init, 50 blocks make the stream 2 to 8 times its input's RMS with plain residual "
    "blocks, 1.3 to 2.5 times with pre-norm blocks, and leave it the same after every block with post-norm "
    "blocks (5 seeds).",
    page=PAGE,
)
def test_stream_growth_over_50_blocks_at_default_init(claim, results):
    # The runs' outputs as they came; the check does the post-norm arithmetic, for both cases alike.
    prenorm = [r.sizes["pre-norm"] for r in results]
    postnorm_sizes, postnorm_rms = [r.sizes["post-norm"] for r in results], [r.input_rms["post-norm"] for r in results]
    claim.check(default_init_growth, [r.sizes["residual"] for r in results], prenorm, postnorm_sizes, postnorm_rms)
    claim.rejects(
        default_init_growth,
        [r.sizes["residual, He init"] for r in results],
        prenorm,
        postnorm_sizes,
        postnorm_rms,
        because="He init in the plain residual stack",
    )
    postnorm = [post_norm_rms(sizes, x_rms) for sizes, x_rms in zip(postnorm_sizes, postnorm_rms, strict=True)]
    series = {kind: median_series(results, kind) for kind in snippet.KINDS}
    rows = [[L, *(series[k][L] for k in snippet.KINDS)] for L in SHOWN]
    r = results[0]
    claim.record(
        series=series,
        table={"columns": ["depth L", *snippet.KINDS], "rows": rows},
        residual_50=series["residual"][50],
        prenorm_50=series["pre-norm"][50],
        postnorm_spread=max(max(r.sizes["post-norm"][1:]) / min(r.sizes["post-norm"][1:]) - 1 for r in results),
        postnorm_level_error=max(abs(v - 1) for s in postnorm for v in s),
        residual_per_block=series["residual"][50] ** (2 / 50),
        prenorm_per_block=(series["pre-norm"][50] ** 2 - 1) / 50,
        seeds=len(results),
        depth=len(r.sizes["residual"]) - 1,
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )


@pytest.mark.claim(
    "With He-initialised branches the plain residual stream grows more than 1e10-fold in RMS over 50 blocks (5 seeds).",
    page=PAGE,
)
def test_he_init_stream_grows_over_1e10_in_50_blocks(claim, results):
    threshold = 1e10

    def explodes(sizes: list[list[float]]) -> None:
        above("He-init RMS(h_50) / RMS(x)", [s[50] for s in sizes], threshold)

    claim.check(explodes, [r.sizes["residual, He init"] for r in results])
    claim.rejects(explodes, [r.sizes["residual"] for r in results], because="default init")
    he = median_series(results, "residual, He init")
    claim.record(
        he_50=he[50], he_per_block=he[50] ** (2 / 50), threshold=threshold, depth=len(he) - 1, seeds=len(results)
    )
