"""Claims of "Initialisation and scale" about ReZero at α = 0 (its training: test_rezero_training.py)."""

import pytest
import torch

from sitekit.margins import above
from snippets.initialisation import rezero as snippet

PAGE = "module/initialisation.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    """Five seeds: the identity and the α-gradient (no training here)."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "At α = 0 a 50-block ReZero stack returns its input bit-for-bit, whatever the branches' weights (5 seeds).",
    page=PAGE,
    exact="torch.equal(stack(x), x) and a largest |stack(x) − x| of 0.0",
)
def test_rezero_stack_at_alpha_zero_is_exactly_identity(claim, results):
    def identity(equal: list[bool], error: list[float]) -> None:
        assert all(equal) and all(e == 0.0 for e in error), error

    claim.check(identity, [r.identity_exact for r in results], [r.identity_max_error for r in results])
    claim.rejects(
        identity,
        [r.nonzero_alpha_exact for r in results],
        [r.nonzero_alpha_max_error for r in results],
        because="α = 0.1 in the first block",
    )
    claim.record(seeds=len(results), depth=results[0].depth, max_error=max(r.identity_max_error for r in results))


@pytest.mark.claim(
    "At α = 0 autograd's ∂L/∂α equals ⟨∂L/∂y, F(x)⟩ to 1e-12 and is non-zero, while the branch's own weights "
    "get exactly zero gradient (float64, 5 seeds).",
    page=PAGE,
    exact="float64 agreement to a relative 1e-12 (rounding level), and exactly zero branch-weight gradients",
)
def test_rezero_alpha_gradient_is_upstream_dot_branch_output(claim, results, seeds):
    rtol = 1e-12

    def matches_and_moves(autograd: list[float], by_hand: list[float]) -> None:
        for a, h in zip(autograd, by_hand, strict=True):
            torch.testing.assert_close(a, h, rtol=rtol, atol=0.0)
        # "non-zero": the guard 1e-3 is far below a ⟨g, F(x)⟩ of 8 × 16 random entries
        above("|∂L/∂α|", [abs(a) for a in autograd], 1e-3)

    claim.check(matches_and_moves, [r.grad_autograd for r in results], [r.grad_by_hand for r in results])
    assert all(r.branch_grads_zero for r in results)
    claim.rejects(
        matches_and_moves,
        [r.grad_zero_branch for r in results],
        [r.grad_zero_branch_by_hand for r in results],
        because="a branch that writes 0 (F(x) = 0)",
    )
    r = results[0]
    claim.record(
        seeds=len(results),
        rtol=rtol,
        seed=seeds.first(),  # the seed whose autograd and by_hand values the page shows
        autograd=r.grad_autograd,
        by_hand=r.grad_by_hand,
        max_difference=max(abs(x.grad_autograd - x.grad_by_hand) for x in results),
        zero_branch=r.grad_zero_branch,
    )
