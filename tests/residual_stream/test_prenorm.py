"""Claims of "The residual stream" about the pre-norm shortcut's Jacobian."""

import pytest

from snippets.residual_stream import prenorm as snippet

PAGE = "module/residual-stream.md"


@pytest.mark.claim(
    "With every branch zeroed, a 12-block pre-norm stack's input Jacobian is exactly the identity matrix "
    "(float64); a zeroed post-norm stack's is not.",
    page=PAGE,
    exact="the float64 Jacobian is torch.equal to the identity matrix (max |J − I| = 0.0)",
)
def test_zeroed_pre_norm_stack_jacobian_is_exactly_identity(claim, device, seeds):
    results = [snippet.measure(device, seed=s) for s in seeds(5)]

    def exactly_identity(equal: list[bool], deviation: list[float]) -> None:
        assert all(equal) and all(d == 0.0 for d in deviation), f"max |J - I| = {max(deviation)}"

    claim.check(exactly_identity, [r.pre_zero_equal for r in results], [r.pre_zero_max_deviation for r in results])
    claim.rejects(
        exactly_identity,
        [r.post_zero_equal for r in results],
        [r.post_zero_max_deviation for r in results],
        because="a zeroed post-norm stack",
    )
    claim.rejects(
        exactly_identity,
        [r.pre_default_equal for r in results],
        [r.pre_default_max_deviation for r in results],
        because="a default-init pre-norm stack",
    )
    r = results[0]
    claim.record(
        seeds=len(results),
        d=r.d,
        depth=r.depth,
        max_deviation=max(x.pre_zero_max_deviation for x in results),
        post_max_deviation=min(x.post_zero_max_deviation for x in results),
        default_max_deviation=min(x.pre_default_max_deviation for x in results),
    )
