"""Claims of "Initialisation and scale" about ReZero."""

import inspect
import statistics

import pytest
import torch

from snippets.initialisation import rezero as snippet

PAGE = "module/initialisation.md"
SEEDS = range(5)


@pytest.fixture(scope="module")
def results(device):
    return [snippet.measure(device, seed=s, plain=(s == 0)) for s in SEEDS]


@pytest.mark.claim(
    "At α = 0 a 50-block ReZero stack returns its input bit-for-bit, whatever the branches' weights (5 seeds).",
    page=PAGE,
)
def test_rezero_stack_at_alpha_zero_is_exactly_identity(claim, results):
    def identity(equal: bool, error: float) -> None:
        assert equal and error == 0.0, error

    for r in results:
        claim.check(identity, r.identity_exact, r.identity_max_error)
    r = results[0]
    claim.rejects(identity, r.nonzero_alpha_exact, r.nonzero_alpha_max_error, because="α = 0.1 in the first block")
    claim.record(seeds=len(results), depth=results[0].depth, max_error=max(r.identity_max_error for r in results))


@pytest.mark.claim(
    "At α = 0 autograd's ∂L/∂α equals ⟨∂L/∂y, F(x)⟩ to 1e-12 and is non-zero, while the branch's own weights "
    "get exactly zero gradient (float64, 5 seeds).",
    page=PAGE,
)
def test_rezero_alpha_gradient_is_upstream_dot_branch_output(claim, results):
    rtol = 1e-12

    def matches_and_moves(autograd: float, by_hand: float) -> None:
        torch.testing.assert_close(autograd, by_hand, rtol=rtol, atol=0.0)
        assert abs(autograd) > 1e-3, autograd

    for r in results:
        claim.check(matches_and_moves, r.grad_autograd, r.grad_by_hand)
        assert r.branch_grads_zero
    r = results[0]
    claim.rejects(
        matches_and_moves, r.grad_zero_branch, r.grad_zero_branch_by_hand, because="a branch that writes 0 (F(x) = 0)"
    )
    claim.record(
        seeds=len(results),
        rtol=rtol,
        autograd=r.grad_autograd,
        by_hand=r.grad_by_hand,
        max_difference=max(abs(x.grad_autograd - x.grad_by_hand) for x in results),
        zero_branch=r.grad_zero_branch,
    )


FRACTION = 0.1


def trains(losses: list[float]) -> None:
    """The loss falls below 10 % of where it started."""
    assert losses[-1] < FRACTION * losses[0], (losses[0], losses[-1])


@pytest.mark.claim(
    "A 50-block ReZero stack trains: in 40 full-batch Adam steps its loss falls below 10 % of its starting value "
    "(5 seeds); a plain stack of 50 such branches, without shortcuts, does not (seed 0).",
    page=PAGE,
)
def test_deep_rezero_stack_trains(claim, results):
    for r in results:
        claim.check(trains, r.rezero_losses)
    plain = results[0].plain_losses
    claim.rejects(trains, plain, because="the plain stack without shortcuts")
    final = [r.rezero_losses[-1] / r.rezero_losses[0] for r in results]
    claim.record(
        steps=len(plain),
        median_ratio=statistics.median(final),
        worst_ratio=max(final),
        plain_ratio=plain[-1] / plain[0],
        rezero_curve=results[0].rezero_losses,
        plain_curve=plain,
        fraction=FRACTION,
        depth=results[0].depth,
        seeds=len(results),
        plain_seed=0,
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )
