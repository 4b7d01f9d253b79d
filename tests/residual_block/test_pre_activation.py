"""Claims of "The residual block" about pre- versus post-activation order."""

import pytest

from snippets.residual_block import pre_activation as snippet

PAGE = "module/residual-block.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    """One run of the experiment per seed, shared by every claim below."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def exactly_identity(equal: list[bool], deviation: list[float]) -> None:
    """torch.equal(y, x) and max |y − x| = 0.0, in every seed."""
    assert all(equal) and all(d == 0.0 for d in deviation), f"max |y - x| per seed = {deviation}"


@pytest.mark.claim(
    "With its branch zeroed, a pre-activation block is exactly the identity on any input (max |y − x| = 0.0).",
    page=PAGE,
    exact="torch.equal(y, x) and max |y − x| == 0.0: x + 0 is x in floating point",
)
def test_zeroed_pre_activation_block_is_exactly_identity(claim, results):
    claim.check(exactly_identity, [r.pre_equal for r in results], [r.pre_max_deviation for r in results])
    claim.rejects(
        exactly_identity,
        [r.post_equal for r in results],
        [r.post_max_deviation for r in results],
        because="the zero-branch post-activation block",
    )
    claim.rejects(
        exactly_identity,
        [r.pre_unzeroed_equal for r in results],
        [r.pre_unzeroed_max_deviation for r in results],
        because="an un-zeroed pre-activation block",
    )
    claim.record(max_deviation=max(x.pre_max_deviation for x in results), seeds=len(results))


@pytest.mark.claim(
    "With its branch zeroed, the original post-activation block computes ReLU(x), not x: every negative entry changes.",
    page=PAGE,
    exact="the share of entries that change equals the share of negative inputs, compared with ==",
)
def test_zeroed_post_activation_block_is_relu_not_identity(claim, results):

    def relu_of_input(changed: list[float], negative: list[float], deviation: list[float]) -> None:
        assert all(d > 0 for d in deviation), deviation
        assert changed == negative, (changed, negative)

    claim.check(
        relu_of_input,
        [r.post_changed_fraction for r in results],
        [r.negative_fraction for r in results],
        [r.post_max_deviation for r in results],
    )
    claim.rejects(
        relu_of_input,
        [r.pre_changed_fraction for r in results],
        [r.negative_fraction for r in results],
        [r.pre_max_deviation for r in results],
        because="the pre-activation block",
    )
    r = results[0]
    claim.record(
        changed_fraction=r.post_changed_fraction,
        negative_fraction=r.negative_fraction,
        max_deviation=r.post_max_deviation,
    )
