"""Claims of "The residual block" about the post-activation block on the stream it really receives."""

import statistics

import pytest

from sitekit.margins import between
from snippets.residual_block import post_activation_stream as snippet

PAGE = "module/residual-block.md"


@pytest.fixture(autouse=True, scope="module")
def _one_thread(one_cpu_thread: None) -> None:
    """Tensors this small run faster on one thread; see sitekit.pytest_plugin.one_cpu_thread."""


@pytest.fixture(scope="module")
def results(device, seeds):
    """One run of the experiment per seed, shared by every claim below."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "Fed the non-negative stream that a preceding post-activation block produces, a zeroed post-activation "
    "block returns its input bit for bit; fed signed inputs, it does not.",
    page=PAGE,
    exact="torch.equal on the stream and max |y − x| == 0.0: ReLU(x + 0) is x bit for bit when x ≥ 0",
)
def test_zeroed_post_activation_block_is_identity_on_its_real_stream(claim, results):
    def identity(equal: list[bool], deviation: list[float]) -> None:
        assert all(equal) and all(d == 0.0 for d in deviation), deviation

    assert all(r.stream_min >= 0.0 for r in results), [r.stream_min for r in results]
    claim.check(identity, [r.zeroed_on_stream_equal for r in results], [r.zeroed_on_stream_deviation for r in results])
    # Every seed's signed batch must fail on its own, not just one of them.
    for r in results:
        claim.rejects(
            identity,
            [r.zeroed_on_signed_equal],
            [r.zeroed_on_signed_deviation],
            because="the same block on signed inputs",
        )
    claim.record(
        seeds=len(results),
        max_deviation=max(r.zeroed_on_stream_deviation for r in results),
        stream_min=min(r.stream_min for r in results),
        signed_negative_fraction=statistics.median(r.signed_negative_fraction for r in results),
        signed_max_deviation=statistics.median(r.zeroed_on_signed_deviation for r in results),
    )


BAND = (0.2, 0.4)


@pytest.mark.claim(
    "With an active default-init branch on that non-negative stream, x + F(x) is negative in 20 % to 40 % of "
    "entries; the post-activation block's final ReLU zeroes exactly those and cuts the gradient there, shortcut "
    "term included, while a pre-activation block's sum gets the upstream gradient in every entry (5 seeds).",
    page=PAGE,
)
def test_post_activation_relu_clips_the_sum_and_its_gradient(claim, results):
    def clips(negative: list[float], cut: list[float]) -> None:
        between("share of x + F(x) below zero", negative, *BAND)
        assert cut == negative, (negative, cut)  # the gradient is cut exactly where the sum was clipped

    claim.check(clips, [r.post_negative_sum for r in results], [r.post_cut_gradient for r in results])
    claim.rejects(
        clips,
        [r.pre_negative_sum for r in results],
        [r.pre_cut_gradient for r in results],
        because="the pre-activation block",
    )
    assert all(r.pre_cut_gradient == 0.0 for r in results), [r.pre_cut_gradient for r in results]
    claim.record(
        negative_band=list(BAND),
        seeds=len(results),
        negative_min=min(r.post_negative_sum for r in results),
        negative_max=max(r.post_negative_sum for r in results),
        negative_median=statistics.median(r.post_negative_sum for r in results),
        pre_cut=max(r.pre_cut_gradient for r in results),
    )
