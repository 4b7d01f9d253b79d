"""Claim of Lab 3 about the worked answer to its task: one part's direct share of the logit, with the final
LayerNorm's division fixed at the whole stream's sigma, so that the shares of every part and the constant add up
to the logit; putting each part through the LayerNorm on its own does not."""

import pytest

from sitekit.margins import below
from snippets.lab_transformer import reading_tasks_solution as snippet

PAGE = "module/lab-reading-stream.md"
CPU_FLOAT64 = "the task file builds its stacks in float64 on the CPU, whatever the device"
EXACT = 1e-12  # float64 rounding over a few dozen coordinates and parts; the shortcut misses by whole logits


@pytest.fixture(scope="module")
def r(seeds):
    ids = seeds(3)
    return snippet.measure(seed=ids[0], seeds=len(ids))


@pytest.mark.claim(
    "In each of 3 random pre-norm stacks, the worked answer's shares of the embedding and every block's write, with "
    "the constant, add up to the stack's own logit of the right character to below 1e-12 (float64); putting each "
    "part through the final LayerNorm on its own fails the same check.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
)
def test_worked_shares_add_up_to_the_logit(claim, r):
    def exact(errors: list[float]) -> None:
        below("|sum of the shares + constant − logit|, every stack", errors, EXACT)

    claim.check(exact, r["errors"])
    claim.rejects(exact, r["alone_errors"], because="each part through the final LayerNorm on its own")
    claim.record(
        stacks=len(r["seeds"]),
        parts=r["parts"],
        error=max(r["errors"]),
        alone_min=min(r["alone_errors"]),
        largest_logit=max(r["logits"]),
        tolerance=EXACT,
    )
