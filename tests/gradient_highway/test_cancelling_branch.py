"""Claims of "The gradient highway": the shortcut guarantees the term g, not a non-zero gradient."""

import pytest

from snippets.gradient_highway import cancelling_branch as snippet

PAGE = "module/gradient-highway.md"


@pytest.fixture(autouse=True, scope="module")
def _one_thread(one_cpu_thread: None) -> None:
    """Tensors this small run faster on one thread; see sitekit.pytest_plugin.one_cpu_thread."""


@pytest.fixture(scope="module")
def results(device):
    """One run of the experiment per seed, shared by the claim below."""
    return [snippet.measure(device, seed=s) for s in range(5)]


@pytest.mark.claim(
    "One block whose branch has Jacobian −I, placed in the middle of a 10-block default-init residual stack, "
    "makes the stack's input gradient exactly zero, every entry, over 5 seeds; with that block's default branch "
    "restored every entry is non-zero.",
    page=PAGE,
)
def test_branch_with_minus_identity_jacobian_cancels_the_gradient(claim, results):
    def exactly_zero(norm: float, nonzero: int) -> None:
        assert norm == 0.0 and nonzero == 0, (norm, nonzero)

    for r in results:
        claim.check(exactly_zero, r.cancelled_norm, r.cancelled_nonzero)
        claim.rejects(exactly_zero, r.default_norm, r.default_nonzero, because="the default-init branch in its place")
        assert r.default_nonzero == r.entries, "with the default branch, every entry of the gradient is non-zero"
    r = results[0]
    claim.record(
        depth=r.depth,
        position=r.position,
        d=r.d,
        seeds=len(results),
        cancelled_norm=max(x.cancelled_norm for x in results),
        default_norm_min=min(x.default_norm for x in results),
        default_nonzero_min=min(x.default_nonzero for x in results),
        entries=r.entries,
    )
