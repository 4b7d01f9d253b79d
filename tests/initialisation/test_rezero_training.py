"""Claim of "Initialisation and scale": a deep ReZero stack trains where the plain stack of its branches does not,
from the same starting loss (snippets/initialisation/rezero_training.py)."""

import statistics

import pytest

from sitekit.margins import above
from snippets.initialisation import rezero_training as snippet

PAGE = "module/initialisation.md"
FACTOR = 10.0  # "more than 10× below": the plain stack's best final loss over the ReZero stack's
pytestmark = pytest.mark.timeout(1800)  # about 3 CPU-minutes; a busy machine stretches it


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def best(curves: dict[float, list[float]]) -> float:
    """The rate whose run ends lowest."""
    return min(curves, key=lambda lr: curves[lr][-1])


@pytest.mark.claim(
    "From the same starting loss (every stack read out through a zero-initialised linear layer), a 50-block "
    "ReZero stack trained for 150 full-batch Adam steps ends more than 10× below the plain stack of the same 50 "
    "branches without shortcuts, and more than 2× below the same ReZero stack with its gates frozen at α = 0 (a "
    "linear read-out of the input), on every one of 5 seeds, each stack at its own best of the learning rates "
    "3e-3, 1e-2 and 3e-2; the frozen read-out alone also ends more than 10× below the plain stack.",
    page=PAGE,
    experiment="trains 50-block ReZero, frozen-gate and plain stacks for 150 Adam steps at 3 rates, 5 seeds",
    tolerance=0.25,
)
def test_deep_rezero_stack_trains(claim, results, seeds):
    def ends_below(
        ours: list[dict[float, list[float]]],
        frozen: list[dict[float, list[float]]],
        plain: list[dict[float, list[float]]],
    ) -> None:
        # The same start: all read out through a zeroed layer, so every first loss is mean(y²), bit for bit.
        starts = {c[lr][0] for runs in (ours, frozen, plain) for c in runs for lr in c}
        assert len(starts) == len(ours), starts  # one starting loss per seed, shared by every stack and rate
        end = lambda c: c[best(c)][-1]  # noqa: E731  (each stack at its own best rate)
        above(
            "plain stack's final loss / ReZero's", [end(b) / end(a) for a, b in zip(ours, plain, strict=True)], FACTOR
        )
        above(
            "frozen read-out's final loss / ReZero's", [end(f) / end(a) for a, f in zip(ours, frozen, strict=True)], 2
        )
        above(
            "plain stack's final loss / frozen read-out's",
            [end(b) / end(f) for f, b in zip(frozen, plain, strict=True)],
            FACTOR,
        )

    rezero, frozen, plain = [r.rezero for r in results], [r.frozen for r in results], [r.plain for r in results]
    claim.check(ends_below, rezero, frozen, plain)
    # Another run from the same start: the ReZero stack stopped after a few steps. It has not yet gone 2× below
    # the frozen read-out trained for the full run, so the check sees the training of the gates and branches.
    early = [r.early for r in results]
    claim.rejects(ends_below, early, frozen, plain, because=f"the ReZero stack after {snippet.EARLY} steps")
    end = lambda c: c[best(c)][-1]  # noqa: E731
    over = [end(r.plain) / end(r.rezero) for r in results]
    first = results[0]
    claim.record(
        steps=first.steps,
        early_steps=snippet.EARLY,
        depth=first.depth,
        d=first.d,
        n=first.n,
        seeds=len(results),
        rates=list(first.rates),
        factor=FACTOR,
        start_median=statistics.median(r.rezero[first.rates[0]][0] for r in results),
        rezero_final_median=statistics.median(end(r.rezero) for r in results),
        frozen_final_median=statistics.median(end(r.frozen) for r in results),
        plain_final_median=statistics.median(end(r.plain) for r in results),
        plain_over_rezero_min=min(over),
        plain_over_rezero_median=statistics.median(over),
        frozen_over_rezero_min=min(end(r.frozen) / end(r.rezero) for r in results),
        frozen_over_rezero_median=statistics.median(end(r.frozen) / end(r.rezero) for r in results),
        plain_over_frozen_min=min(end(r.plain) / end(r.frozen) for r in results),
        rezero_best_rates=[best(r.rezero) for r in results],
        plain_best_rates=[best(r.plain) for r in results],
        frozen_best_rates=[best(r.frozen) for r in results],
        # The figure's two curves: the first seed, each stack at its own best rate.
        rezero_curve=first.rezero[best(first.rezero)],
        plain_curve=first.plain[best(first.plain)],
        curve_seed=seeds.first(),
    )
