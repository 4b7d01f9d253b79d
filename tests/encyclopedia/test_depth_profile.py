"""Claims of the encyclopedia entry about pre-norm and post-norm stacks across depth, at initialisation."""

import inspect
import itertools
import math
import statistics

import pytest

from sitekit.margins import above, below, between
from snippets.encyclopedia import depth_profile as snippet

PAGE = "encyclopedia/residual-stream.md"


# Twenty seeds: one post-norm stack's output/input-end ratio scatters by about a quarter in log from seed to
# seed, and the no-trend claim below is about its typical value, so it needs that many to pin it down.
SEED_COUNT = 20


@pytest.fixture(scope="module")
def r(device, seeds):
    """Twenty seeds of both 24-block stacks, shared by every claim below."""
    ids = seeds(SEED_COUNT)
    return snippet.measure(device, seed=ids[0], seeds=len(ids))


def geometric_mean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def per_layer_table(r, which: str) -> dict:
    pre, post = r.median(which, "pre"), r.median(which, "post")
    offset = 0 if which == "norms" else 1
    rows = [[i + offset, pre[i], post[i]] for i in range(len(pre)) if (i + offset) % 4 == 0 or i + offset == 1]
    first = "after block l" if which == "norms" else "block l"
    return {"columns": [first, "pre-norm", "post-norm"], "rows": rows}


@pytest.mark.claim(
    "In a 24-block pre-norm stack at initialisation the stream's norm, averaged over 20 seeds, grows after every "
    "block, and in each seed it ends more than twice its input norm.",
    page=PAGE,
)
def test_prenorm_stream_norm_grows_with_depth(claim, r):
    factor = 2

    def grows(runs: list[list[float]]) -> None:
        # Each block adds a write that is, in expectation, orthogonal to the stream, so the expected norm rises at
        # every block; one seed's can dip where a deep block's write is small next to the stream it joins.
        mean = [statistics.fmean(column) for column in zip(*runs, strict=True)]
        assert all(b > a for a, b in itertools.pairwise(mean)), mean
        above("‖x_L‖ / ‖x_0‖", [norms[-1] / norms[0] for norms in runs], factor)

    claim.check(grows, r.norms["pre"])
    claim.rejects(grows, r.norms["post"], because="the post-norm stack, renormalised after every addition")
    med = r.median("norms", "pre")
    squares = [n * n for n in med]
    slope = (squares[-1] - squares[0]) / r.L
    claim.record(
        L=r.L,
        d=r.d,
        heads=r.heads,
        B=r.B,
        T=r.T,
        seeds=r.seeds,
        norm_in=med[0],
        norm_out=med[-1],
        growth=med[-1] / med[0],
        square_per_block=slope,
        square_at_half=squares[r.L // 2],
        square_at_half_linear=squares[0] + slope * r.L / 2,
        table=per_layer_table(r, "norms"),
        median_pre=med,
        median_post=r.median("norms", "post"),
        mean_pre=[statistics.fmean(column) for column in zip(*r.norms["pre"], strict=True)],
        seeds_rising_everywhere=sum(all(b > a for a, b in itertools.pairwise(n)) for n in r.norms["pre"]),
        factor=factor,
    )


@pytest.mark.claim(
    "In the post-norm stack the stream's norm after every block is √d to within 1e-4 (relative), in each of 20 seeds.",
    page=PAGE,
)
def test_postnorm_stream_norm_stays_at_sqrt_d(claim, r):
    rtol = 1e-4

    def pinned(runs: list[list[float]], d: int) -> None:
        below("|‖x_l‖/√d − 1|", [abs(n / math.sqrt(d) - 1) for norms in runs for n in norms[1:]], rtol)

    claim.check(pinned, r.norms["post"], r.d)
    claim.rejects(pinned, r.norms["pre"], r.d, because="the pre-norm stack, whose stream is never rescaled")
    claim.record(
        sqrt_d=math.sqrt(r.d),
        max_relative_error=max(abs(n / math.sqrt(r.d) - 1) for run in r.norms["post"] for n in run[1:]),
        rtol=rtol,
        seeds=r.seeds,
    )


@pytest.mark.claim(
    "At initialisation the pre-norm stack's last-MLP-weight gradients fall from input to output: the 4 blocks "
    "nearest the output get under 0.6× the gradient of the 4 nearest the input, in each of 20 seeds.",
    page=PAGE,
)
def test_prenorm_gradients_fall_toward_the_output(claim, r):
    bound = 0.6

    def falls(ratios: list[float]) -> None:
        below("output-end / input-end gradient", ratios, bound)

    claim.check(falls, r.end_ratio("pre"))
    claim.rejects(falls, r.end_ratio("post"), because="the post-norm stack's ratios")
    claim.record(
        ratios=r.end_ratio("pre"),
        median_ratio=statistics.median(r.end_ratio("pre")),
        table=per_layer_table(r, "grads"),
        bound=bound,
        blocks_at_each_end=inspect.signature(type(r).end_ratio).parameters["k"].default,
        seeds=r.seeds,
    )


@pytest.mark.claim(
    "At initialisation the post-norm stack's gradients show no trend with depth (the output/input-end ratio's "
    "geometric mean over 20 seeds is within 2/3 to 3/2), yet near the output they exceed the pre-norm stack's by "
    "more than 2× in each seed.",
    page=PAGE,
)
def test_postnorm_gradients_are_flat_and_larger_near_the_output(claim, r):
    band, factor = (2 / 3, 3 / 2), 2

    def flat_and_larger(ratios: list[float], post: list[list[float]], pre: list[list[float]]) -> None:
        # A band symmetric in the factor (2/3 = 1/(3/2)): "no trend" is a log ratio near 0, so its margin is read
        # in log, where the band is ±log(3/2).
        between(
            "log of the output-end / input-end gradient's geometric mean",
            math.log(geometric_mean(ratios)),
            math.log(band[0]),
            math.log(band[1]),
        )
        above(
            "post-norm / pre-norm gradient near the output",
            [sum(a[-4:]) / sum(b[-4:]) for a, b in zip(post, pre, strict=True)],
            factor,
        )

    claim.check(flat_and_larger, r.end_ratio("post"), r.grads["post"], r.grads["pre"])
    claim.rejects(flat_and_larger, r.end_ratio("pre"), r.grads["post"], r.grads["pre"], because="pre-norm's trend")
    claim.rejects(flat_and_larger, r.end_ratio("post"), r.grads["pre"], r.grads["post"], because="the stacks swapped")
    near_output = [sum(a[-4:]) / sum(b[-4:]) for a, b in zip(r.grads["post"], r.grads["pre"], strict=True)]
    claim.record(
        ratios=r.end_ratio("post"),
        geometric_mean_ratio=geometric_mean(r.end_ratio("post")),
        median_ratio=statistics.median(r.end_ratio("post")),
        min_ratio=min(r.end_ratio("post")),
        max_ratio=max(r.end_ratio("post")),
        post_over_pre_near_output=statistics.median(near_output),
        sqrt_L=math.sqrt(r.L),
        median_pre=r.median("grads", "pre"),
        median_post=r.median("grads", "post"),
        band=band,
        factor=factor,
        seeds=r.seeds,
    )
