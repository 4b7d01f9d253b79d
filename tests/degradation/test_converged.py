"""Claims of "The degradation problem" about the training loop of the converged runs (converged.py):
the schedule every run follows. The runs themselves are test_converged_plain.py and test_converged_residual.py."""

import itertools

import pytest

from sitekit.margins import below
from snippets.degradation import converged as snippet

PAGE = "module/degradation.md"


@pytest.mark.claim(
    "Every run's learning rate starts at its peak and decays along a cosine, its last step taken at below 1e-4 of "
    "the peak, so every run ends at rest; the warm-up control instead climbs linearly to the peak first.",
    page=PAGE,
    identity="rate() evaluates the cosine and the linear ramp it is written as",
    device_independent="arithmetic on Python floats",
)
def test_every_run_decays_its_rate_to_zero(claim):
    steps, peak, warmup = snippet.STEPS, max(snippet.PLAIN_LRS), snippet.WARMUP

    def schedule(rates: list[float], ramp: list[float]) -> None:
        assert rates[0] == peak, rates[0]
        below("last step's rate / peak rate", rates[-1] / peak, 1e-4)
        assert all(a >= b for a, b in itertools.pairwise(rates)), "the cosine never rises"
        assert ramp[warmup - 1] == peak and all(a < b for a, b in itertools.pairwise(ramp[:warmup])), ramp[:warmup]

    rates = [snippet.rate(t, steps, peak) for t in range(steps)]  # the steps train() takes: t = 0 .. T - 1
    ramp = [snippet.rate(t, steps, peak, warmup) for t in range(steps)]
    claim.check(schedule, rates, ramp)
    claim.record(steps=steps, warmup=warmup)
