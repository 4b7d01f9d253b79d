"""Claims of Part 4 about the stream as a running sum of writes."""

import inspect

import pytest

from snippets.residual_stream import running_sum as snippet

PAGE = "module/residual-stream.md"
SEEDS = range(5)


@pytest.fixture(scope="module")
def results(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


def is_input_plus_writes(same_order_equal: bool, float64_error: float) -> None:
    """Bit-for-bit in the blocks' own order; in float64, any order agrees to 1e-12."""
    assert same_order_equal, "h_L differs from x + F_1 + ... + F_L added in the same order"
    assert float64_error < 1e-12, float64_error


@pytest.mark.claim(
    "After 50 blocks the stream is the input plus the 50 recorded writes: bit-for-bit when added in the "
    "blocks' order, within float rounding in any other order; a post-norm stack is not.",
    page=PAGE,
)
def test_stream_is_input_plus_every_write(claim, results):
    for r in results:
        is_input_plus_writes(r.same_order_equal, r.float64_reordered_max_error)
        # Summing the writes first is a different float32 computation: only rounding separates them.
        assert r.float32_relative_error < 1e-5, r.float32_relative_error
    r = results[0]
    claim.rejects(is_input_plus_writes, False, r.post_norm_max_error, because="a post-norm stack, LN(x + F(x))")
    claim.record(
        depth=r.depth,
        seeds=len(results),
        float32_reordered_bitwise=sum(x.float32_reordered_equal for x in results),
        float32_reordered_max_error=max(x.float32_reordered_max_error for x in results),
        float32_relative_error=max(x.float32_relative_error for x in results),
        float64_reordered_max_error=max(x.float64_reordered_max_error for x in results),
        post_norm_max_error=min(x.post_norm_max_error for x in results),
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )


@pytest.mark.claim(
    "Three blocks unroll to h3 = x + F1(x) + F2(h1) + F3(h2), bit-for-bit; a plain stack F3(F2(F1(x))) does not.",
    page=PAGE,
)
def test_three_block_walk_unrolls_exactly(claim, results):
    def unrolls(equal: bool, error: float) -> None:
        assert equal and error == 0.0, error

    for r in results:
        unrolls(r.walk_equal, r.walk_max_error)
    claim.rejects(unrolls, False, results[0].plain_max_error, because="the plain stack")
    claim.record(
        max_error=max(r.walk_max_error for r in results),
        plain_max_error=results[0].plain_max_error,
        seeds=len(results),
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )
