"""Claims of "The gradient highway": the shortcut guarantees the term g, not a non-zero gradient."""

import pytest

from snippets.gradient_highway import cancelling_branch as snippet

PAGE = "module/gradient-highway.md"


@pytest.fixture(autouse=True, scope="module")
def _one_thread(one_cpu_thread: None) -> None:
    """Tensors this small run faster on one thread; see sitekit.pytest_plugin.one_cpu_thread."""


@pytest.fixture(scope="module")
def results(device, seeds):
    """One run of the experiment per seed, shared by the claim below."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "One block whose branch has Jacobian −I, placed in the middle of a 10-block default-init residual stack, "
    "makes the stack's input gradient exactly zero, every entry; with that block's default branch "
    "restored every entry is non-zero, in each of 5 seeds.",
    page=PAGE,
    exact="x + (−x) is 0.0 in every entry, so the input gradient is exactly zero (a norm of 0.0 and a count of "
    "non-zero entries); with the default branch the count of non-zero entries equals the number of entries",
)
def test_branch_with_minus_identity_jacobian_cancels_the_gradient(claim, results):
    def exactly_zero(norms: list[float], nonzero: list[int]) -> None:
        assert all(n == 0.0 for n in norms) and all(c == 0 for c in nonzero), (norms, nonzero)

    claim.check(exactly_zero, [r.cancelled_norm for r in results], [r.cancelled_nonzero for r in results])
    claim.rejects(
        exactly_zero,
        [r.default_norm for r in results],
        [r.default_nonzero for r in results],
        because="the default-init branch in its place",
    )
    for r in results:
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
