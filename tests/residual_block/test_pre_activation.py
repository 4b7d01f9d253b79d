"""Claims of "The residual block" about pre- versus post-activation order."""

import pytest

from snippets.residual_block import pre_activation as snippet

PAGE = "module/residual-block.md"


@pytest.fixture(scope="module")
def results(device):
    """One run of the experiment, shared by every claim below."""
    return [snippet.measure(device, seed=s) for s in range(5)]


def exactly_identity(equal: bool, deviation: float) -> None:
    assert equal and deviation == 0.0, f"max |y - x| = {deviation}"


@pytest.mark.claim(
    "With its branch zeroed, a pre-activation block is exactly the identity on any input (max |y − x| = 0.0), "
    "over 5 seeds.",
    page=PAGE,
)
def test_zeroed_pre_activation_block_is_exactly_identity(claim, results):
    for r in results:
        claim.check(exactly_identity, r.pre_equal, r.pre_max_deviation)
    r = results[0]
    claim.rejects(exactly_identity, r.post_equal, r.post_max_deviation, because="the zero-branch post-activation block")
    claim.rejects(
        exactly_identity,
        r.pre_unzeroed_equal,
        r.pre_unzeroed_max_deviation,
        because="an un-zeroed pre-activation block",
    )
    claim.record(max_deviation=max(x.pre_max_deviation for x in results), seeds=len(results))


@pytest.mark.claim(
    "With its branch zeroed, the original post-activation block computes ReLU(x), not x: every negative entry changes.",
    page=PAGE,
)
def test_zeroed_post_activation_block_is_relu_not_identity(claim, results):

    def relu_of_input(changed: float, negative: float, deviation: float) -> None:
        assert deviation > 0 and changed == negative, (changed, negative)

    for r in results:
        claim.check(relu_of_input, r.post_changed_fraction, r.negative_fraction, r.post_max_deviation)
    r = results[0]
    claim.rejects(
        relu_of_input,
        r.pre_changed_fraction,
        r.negative_fraction,
        r.pre_max_deviation,
        because="the pre-activation block",
    )
    claim.record(
        changed_fraction=r.post_changed_fraction,
        negative_fraction=r.negative_fraction,
        max_deviation=r.post_max_deviation,
    )
