"""Claims of the exercise page: two controls for the early loss spike (snippets/exercise/spike_control.py).

The spike claim itself (test_solution.py) reads the notebook's run; these controls train the same model on the
harness's seeds with one thing changed: ReZero gates in place of the zeroed last layers, or SGD in place of Adam.
Every counterfactual is another of this run's models on the same seeds.
"""

from __future__ import annotations

import statistics

import pytest

from sitekit.margins import above, below
from snippets.exercise import spike_control as snippet

PAGE = "module/exercise.md"
SPIKE = 2.0  # an early peak above this multiple of the starting loss is a spike (test_solution.py's FACTOR)
EXPERIMENT = (
    "trains the exercise's 16-block MLP three ways (zeroed last layers, ReZero gates, SGD), 100 epochs, 5 seeds"
)
# Native kernels against ATEN_CPU_CAPABILITY=default, one thread, the tuned seeds: the margins' medians moved by at
# most 0.0006 (relative). The tolerance is twice the floor for a trained result.
TOLERANCE = 0.1
pytestmark = pytest.mark.timeout(1800)  # about 45 CPU-seconds; a busy machine stretches it


@pytest.fixture(scope="module")
def result(device, seeds) -> snippet.Result:
    return snippet.measure(device, seeds=tuple(seeds(5)))


def peaks(runs: list[snippet.Run], warmup: int) -> list[float]:
    """Each seed's highest loss in the epochs a warm-up would cover, as a multiple of its starting loss."""
    return [max(r.losses[1:warmup]) / r.losses[0] for r in runs]


def finals(runs: list[snippet.Run]) -> list[float]:
    return [r.losses[-1] for r in runs]


def config(r: snippet.Result) -> dict:
    return {
        "depth": r.depth,
        "width": r.width,
        "epochs": r.epochs,
        "lr": r.lr,
        "warmup": r.warmup,
        "seeds": len(r.seeds),
        "spike": SPIKE,
    }


@pytest.mark.claim(
    "With a ReZero gate (α = 0) on each of the 16 He-initialised branches in place of a zeroed last layer, the "
    "same Adam run (lr 1e-2, no warm-up) starts from the same loss and never rises above it in the first 20 epochs "
    "on any of 5 seeds, while the model with zeroed last layers rises above 2× it on each; the ReZero model ends "
    "with less than 2× the zeroed model's final training MSE.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_rezero_gates_remove_the_early_spike(claim, result):
    w = result.warmup

    def spikes(runs: list[snippet.Run]) -> None:
        above("highest early loss / starting loss, zeroed last layers", peaks(runs, w), SPIKE)

    def no_spike(runs: list[snippet.Run], same_start: list[bool]) -> None:
        assert all(same_start), same_start  # both models are the identity at the start: the same first loss
        below("highest early loss / starting loss, ReZero gates", peaks(runs, w), 1.0)

    def trains_as_far(runs: list[snippet.Run], reference: list[snippet.Run]) -> None:
        # "as far": within a factor of two of the zeroed model, so the spike is not avoided by not learning
        ratios = [a / b for a, b in zip(finals(runs), finals(reference), strict=True)]
        below("final training MSE / the zeroed model's", ratios, 2.0)

    claim.check(spikes, result.zeroed_adam)
    claim.check(no_spike, result.rezero_adam, result.identity_at_start)
    claim.check(trains_as_far, result.rezero_adam, result.zeroed_adam)
    claim.rejects(spikes, result.rezero_adam, because="the ReZero-gated model, same seeds")
    claim.rejects(no_spike, result.zeroed_adam, result.identity_at_start, because="the zeroed-last-layer model")
    claim.rejects(trains_as_far, result.zeroed_sgd, result.zeroed_adam, because="the SGD run, which trains slower")
    ratios = [a / b for a, b in zip(finals(result.rezero_adam), finals(result.zeroed_adam), strict=True)]
    claim.record(
        **config(result),
        zeroed_peak_min=min(peaks(result.zeroed_adam, w)),
        zeroed_peak_max=max(peaks(result.zeroed_adam, w)),
        rezero_peak_max=max(peaks(result.rezero_adam, w)),
        rezero_final_median=statistics.median(finals(result.rezero_adam)),
        zeroed_final_median=statistics.median(finals(result.zeroed_adam)),
        final_ratio_max=max(ratios),
        final_ratio_min=min(ratios),
        rezero_parameters=result.rezero_parameters,
        zeroed_parameters=result.zeroed_parameters,
    )


@pytest.mark.claim(
    "With SGD at the same lr 1e-2 in place of Adam, the model with zeroed last layers does not rise above its "
    "starting loss in the first 20 epochs either, on any of 5 seeds, but it ends with a higher final training MSE "
    "than the Adam run on every seed.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_sgd_avoids_the_spike_but_trains_slower(claim, result):
    w = result.warmup

    def small_steps(runs: list[snippet.Run], adam: list[snippet.Run]) -> None:
        below("highest early loss / starting loss, SGD", peaks(runs, w), 1.0)
        ratios = [a / b for a, b in zip(finals(runs), finals(adam), strict=True)]
        above("final training MSE / the Adam run's", ratios, 1.0)  # "higher": a sign

    claim.check(small_steps, result.zeroed_sgd, result.zeroed_adam)
    claim.rejects(small_steps, result.rezero_adam, result.zeroed_adam, because="Adam with ReZero gates")
    ratios = [a / b for a, b in zip(finals(result.zeroed_sgd), finals(result.zeroed_adam), strict=True)]
    claim.record(
        **config(result),
        sgd_peak_max=max(peaks(result.zeroed_sgd, w)),
        sgd_final_median=statistics.median(finals(result.zeroed_sgd)),
        adam_final_median=statistics.median(finals(result.zeroed_adam)),
        sgd_over_adam_min=min(ratios),
        sgd_over_adam_max=max(ratios),
    )
