"""Claims of the Measured costs page about how long the exercise's worked solution takes, from the committed benchmark.

The sweep (snippets/costs/exercise_pair.py) times the notebook's own code, so its numbers are only as
fresh as the notebook: the store refuses a sweep recorded before the notebook last changed.
"""

from __future__ import annotations

import pytest

from benchmarks import store
from sitekit.margins import above, below
from snippets.costs import exercise_pair as snippet
from tests.costs import display, machines

PAGE = "costs.md"
TARGET_SECONDS = 20.0  # the exercise's speed target for one pair, on a 2-core CPU
DEFAULT_ADAM = "side by side, default Adam"  # the benchmark's variant with PyTorch's default Adam
# "Faster" is the statement: the notebook's way against one model after the other with the default
# Adam, fastest round against fastest round (other work slows a round, never speeds it up).
FASTER = 1.0


def fast_enough(seconds: float, baseline: float) -> None:
    """A variant's fastest seconds per pair against the target and against the baseline's fastest."""
    below("fastest seconds per pair", seconds, TARGET_SECONDS)
    above("baseline's fastest / this way's fastest", baseline / seconds, FASTER)


@pytest.mark.claim(
    "In the benchmark committed from a 2-core Intel Xeon (3 rounds, one seed each; the fastest round of each way "
    "counts, since other work slows rounds down but never speeds them up), the exercise's worked solution trains its "
    "deep pair (the 16-block plain and residual MLPs, 100 epochs each) in under 20 s, and faster than training them "
    "one after the other with PyTorch's default Adam.",
    page=PAGE,
    cpu_only="the speed target is set for a 2-core CPU, and the sweep it reads times CPU threads",
)
def test_exercise_pair_benchmark_speed(claim, device):
    record = store.load(device, "exercise_pair", machine=machines.INTEL_XEON)
    values = record["values"]
    rows = values["table"]["rows"]
    fastest = {row[0]: row[2] for row in rows}  # columns: variant, median s, fastest s, slowest s, speed-up
    claim.check(fast_enough, fastest[snippet.NOTEBOOK_VARIANT], fastest[snippet.BASELINE])
    claim.rejects(
        fast_enough,
        fastest[DEFAULT_ADAM],
        fastest[snippet.BASELINE],
        because="side by side with PyTorch's default Adam",
    )
    claim.record(
        table=display.rounded(values["table"]),
        provenance=display.provenance(record),
        rounds=values["rounds"],
        notebook_median=values["notebook_median"],
        baseline_median=values["baseline_median"],
        speedup=values["baseline_median"] / values["notebook_median"],
        notebook_fastest=fastest[snippet.NOTEBOOK_VARIANT],
        baseline_fastest=fastest[snippet.BASELINE],
        speedup_fastest=fastest[snippet.BASELINE] / fastest[snippet.NOTEBOOK_VARIANT],
        target=TARGET_SECONDS,
        threads=values["threads"],
        faster=FASTER,
        epochs=values["epochs"],
        depth=values["depth"],
    )


def same_numbers(a: list[dict[str, float]], b: list[dict[str, float]]) -> None:
    assert a == b, (a, b)


ONE_THREAD = "one after the other, fused Adam, 1 thread"


@pytest.mark.claim(
    "Training the two models side by side changes no number: on every benchmark seed both final losses are "
    "bit-identical to training them one after the other on one thread with the same (fused) Adam.",
    page=PAGE,
    exact="bit-for-bit equal final losses",
)
def test_side_by_side_gives_identical_losses(claim, device):
    finals = store.load(device, "exercise_pair")["values"]["finals"]
    claim.check(same_numbers, finals[snippet.NOTEBOOK_VARIANT], finals[ONE_THREAD])
    claim.rejects(
        same_numbers, finals[snippet.NOTEBOOK_VARIANT], finals[DEFAULT_ADAM], because="another optimizer (default Adam)"
    )
    claim.record(
        seeds=len(finals[ONE_THREAD]),
        models=len(finals[snippet.NOTEBOOK_VARIANT][0]),  # the final losses each seed holds: one per model trained
        residual_finals=[f["residual, deep"] for f in finals[ONE_THREAD]],
    )
