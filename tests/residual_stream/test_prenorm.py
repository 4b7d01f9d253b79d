"""Claims of "The residual stream" about the pre-norm shortcut's Jacobian."""

import pytest

from snippets.residual_stream import prenorm as snippet

PAGE = "module/residual-stream.md"


@pytest.mark.claim(
    "With every branch zeroed, a 12-block pre-norm stack's input Jacobian is exactly the identity matrix "
    "(float64, 5 seeds); a zeroed post-norm stack's is not.",
    page=PAGE,
)
def test_zeroed_pre_norm_stack_jacobian_is_exactly_identity(claim, device):
    results = [snippet.measure(device, seed=s) for s in range(5)]

    def exactly_identity(equal: bool, deviation: float) -> None:
        assert equal and deviation == 0.0, f"max |J - I| = {deviation}"

    for r in results:
        claim.check(exactly_identity, r.pre_zero_equal, r.pre_zero_max_deviation)
    r = results[0]
    claim.rejects(exactly_identity, r.post_zero_equal, r.post_zero_max_deviation, because="a zeroed post-norm stack")
    claim.rejects(
        exactly_identity, r.pre_default_equal, r.pre_default_max_deviation, because="a default-init pre-norm stack"
    )
    claim.record(
        seeds=len(results),
        d=r.d,
        depth=r.depth,
        max_deviation=max(x.pre_zero_max_deviation for x in results),
        post_max_deviation=min(x.post_zero_max_deviation for x in results),
        default_max_deviation=min(x.pre_default_max_deviation for x in results),
    )
