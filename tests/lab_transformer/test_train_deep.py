"""Claims of Lab 2 about what placement decides at 24 blocks: pre-norm and post-norm, each at 4 learning rates of
its own grid with 3 seeds, 1,500 steps, on torch's own source text, scored on a fixed held-out split.
(test_train_deep_warmup.py has the other half of the 24-block sweep: post-norm with and without warm-up.)"""

import pytest

from snippets.lab_transformer import train_deep as snippet
from tests.lab_transformer import sweep_checks
from tests.lab_transformer.sweep_checks import TOLERANCE

PAGE = "module/lab-transformer-stream.md"
SEEDS = 3
EXPERIMENT = (
    "trains pre-norm and post-norm x 4 learning rates x 3 seeds of a 24-block character transformer, 1,500 steps each"
)


@pytest.fixture(scope="module")
def r(device, seeds):
    ids = seeds(SEEDS)
    return snippet.measure(device, seed=ids[0], seeds=len(ids))


@pytest.mark.claim(
    "At 24 blocks, trained for 1,500 steps at 4 learning rates of its own grid with 3 seeds each, pre-norm's and "
    "post-norm's best rates lie inside their grids, and at them both end more than 0.5 nats below the loss of "
    "predicting characters from their counts, in every seed.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_prenorm_and_postnorm_train_at_their_best_rates_at_24_blocks(claim, r):
    claim.record(**sweep_checks.check_trains(claim, r))


@pytest.mark.claim(
    "At 24 blocks, each at its own best rate, pre-norm ends below post-norm in every seed, by more than 0.03 nats "
    "of held-out loss (paired by seed); at post-norm's best rate the gap is not there in every seed.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_prenorm_beats_postnorm_at_each_best_rate_at_24_blocks(claim, r):
    claim.record(**sweep_checks.check_ahead(claim, r))
