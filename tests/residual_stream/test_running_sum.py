"""Claims of "The residual stream" about the stream as a running sum of writes."""

import inspect

import pytest

from sitekit.margins import below
from snippets.residual_stream import running_sum as snippet

PAGE = "module/residual-stream.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


ROUNDING = 1e-5  # float32 keeps about 7 digits; 50 additions cost at most a few more ulps


def is_input_plus_writes(relative_errors: list[float]) -> None:
    """The output against x + its writes summed independently (float64, last write first), per seed."""
    below("relative distance of h_50 from x + its writes (float64, last first)", relative_errors, ROUNDING)


# An identity: run_stream records each write in the loop that adds it, so h_50 is x plus the writes by
# construction, and summing them again (in float64, last first) measures float32 rounding only. What is not
# by construction is the contrast: a post-norm stack, run, is not the sum of its writes.
@pytest.mark.claim(
    "After 50 blocks the stream is the input plus the 50 recorded writes: summed independently (in "
    "float64, last write first) they give the float32 stream to within 1e-5 relative; "
    "a post-norm stack's output is not the sum of its writes.",
    page=PAGE,
    identity="run_stream computes h = h + write for each write it records, so h_L is x plus the writes; "
    "re-summing them in float64 measures the float32 rounding of those additions, and replay() repeats "
    "the same additions in the same order",
)
def test_stream_is_input_plus_every_write(claim, results):
    claim.check(is_input_plus_writes, [r.independent_relative_error for r in results])
    for r in results:
        assert r.same_order_equal, "replay() is the same float32 additions in the same order: part of the identity"
    claim.rejects(
        is_input_plus_writes,
        [r.post_norm_independent_relative_error for r in results],
        because="a post-norm stack, LN(x + F(x)), against its own writes",
    )
    r = results[0]
    claim.record(
        depth=r.depth,
        seeds=len(results),
        independent_relative_error=max(x.independent_relative_error for x in results),
        post_norm_independent_relative_error=min(x.post_norm_independent_relative_error for x in results),
        float32_reordered_bitwise=sum(x.float32_reordered_equal for x in results),
        float32_reordered_max_error=max(x.float32_reordered_max_error for x in results),
        float32_relative_error=max(x.float32_relative_error for x in results),
        float64_reordered_max_error=max(x.float64_reordered_max_error for x in results),
        post_norm_max_error=min(x.post_norm_max_error for x in results),
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )


# An identity too: `unrolled` is the listing's h3 written as the same additions in the same order (its own
# comment says so), and the float64 recomputation measures rounding. The plain stack is a real run of the
# same three branches without shortcuts.
@pytest.mark.claim(
    "Three blocks unroll to h3 = x + F1(x) + F2(h1) + F3(h2): bit-for-bit when the listing adds the terms "
    "in the blocks' order, and to within 1e-5 relative when each term is recomputed in float64 and summed "
    "last-first; a plain stack F3(F2(F1(x))) does not.",
    page=PAGE,
    identity="three_blocks computes h3 by the additions it then writes out as `unrolled`, so the two are "
    "equal bit for bit, and the four terms re-summed in float64 differ from h3 by float32 rounding only",
)
def test_three_block_walk_unrolls_exactly(claim, results):
    def unrolls(relative_errors: list[float]) -> None:
        """The stack's output against x + F1(x) + F2(h1) + F3(h2), computed independently in float64."""
        below("relative distance of h3 from the four terms (float64, last first)", relative_errors, ROUNDING)

    claim.check(unrolls, [r.walk_independent_error for r in results])
    for r in results:
        assert r.walk_equal and r.walk_max_error == 0.0, r.walk_max_error  # the listing's own order: bit for bit
    claim.rejects(unrolls, [r.plain_independent_error for r in results], because="the plain stack F3(F2(F1(x)))")
    claim.record(
        max_error=max(r.walk_max_error for r in results),
        plain_max_error=results[0].plain_max_error,
        independent_error=max(r.walk_independent_error for r in results),
        plain_independent_error=results[0].plain_independent_error,
        blocks=results[0].walk_blocks,
        seeds=len(results),
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )
