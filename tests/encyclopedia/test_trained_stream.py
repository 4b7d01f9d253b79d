"""Claims of the entry "The Trained Stream" that need no training: the stream has no privileged basis up to
LayerNorm's one preferred direction (rotations folded into every read and write leave the logits unchanged)."""

import pytest

from sitekit.margins import below
from snippets.encyclopedia import trained_stream as snippet

PAGE = "encyclopedia/trained-stream.md"
SEEDS = 5
ROUNDING = 1e-10  # float64: the largest logit change over the largest logit, for a rewrite that changes nothing


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(SEEDS)]


@pytest.mark.claim(
    "Rotating the stream of a 6-block pre-norm model by an orthogonal matrix that keeps the all-ones direction, "
    "with the rotation folded into every read and write, leaves its logits unchanged to float64 rounding (within "
    "1e-10 of the largest logit, 5 seeds, random weights and norm gains); a rotation that moves the all-ones "
    "direction changes them, because LayerNorm subtracts the mean.",
    page=PAGE,
    identity="LayerNorm commutes with an orthogonal q when q1 = 1 (the mean and the length are kept), the folded "
    "reads W q undo it and the writes W_out multiplied by q put it in: every step is the same function of h",
)
def test_rotating_the_stream_keeps_the_function_if_it_keeps_the_ones_direction(claim, runs):
    def unchanged(errors: list[float], scales: list[float]) -> None:
        below("max |Δ logit| ÷ max |logit|", [e / s for e, s in zip(errors, scales, strict=True)], ROUNDING)

    scales = [r.logit_max for r in runs]
    claim.check(unchanged, [r.folded_error for r in runs], scales)
    claim.check(unchanged, [r.kept_error for r in runs], scales)
    claim.rejects(unchanged, [r.moved_error for r in runs], scales, because="a rotation that moves the ones direction")
    claim.record(
        seeds=len(runs),
        blocks=runs[0].depth,
        d=runs[0].width,
        rounding=ROUNDING,
        folded=max(r.folded_error / r.logit_max for r in runs),
        kept=max(r.kept_error / r.logit_max for r in runs),
        moved=min(r.moved_error / r.logit_max for r in runs),
        kept_ones=max(r.kept_ones for r in runs),
        moved_ones=min(r.moved_ones for r in runs),
    )
