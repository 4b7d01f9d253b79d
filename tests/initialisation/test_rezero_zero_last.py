"""Claim of "Initialisation and scale": ReZero plus a zeroed last layer never learns."""

import pytest

from sitekit.margins import above
from snippets.initialisation import rezero_zero_last as snippet

PAGE = "module/initialisation.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    """One run per seed, shared by the claim below."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "A 10-block ReZero stack whose branches' last layers are also zeroed does not move in 20 Adam steps: no "
    "parameter changes and the loss stays bit-identical (5 seeds); ReZero alone moves every parameter tensor "
    "and lowers its loss.",
    page=PAGE,
    exact="no parameter tensor differs from its initial value (torch.equal) and the loss is bit-identical",
)
def test_rezero_with_zeroed_last_layer_never_learns(claim, results):
    def stuck(runs: list[snippet.Run]) -> None:
        assert all(run.moved == 0 and run.last == run.first for run in runs), runs

    claim.check(stuck, [r.both for r in results])
    claim.rejects(stuck, [r.rezero_only for r in results], because="ReZero with its branches' last layers left random")

    def learns(runs: list[snippet.Run]) -> None:
        assert all(run.moved == run.tensors for run in runs), runs  # every parameter tensor moves
        # "lowers its loss": a sign, so the threshold is 0
        above("first loss − last loss", [run.first - run.last for run in runs], 0.0)

    claim.check(learns, [r.rezero_only for r in results])
    claim.rejects(learns, [r.both for r in results], because="ReZero with its branches' last layers zeroed too")
    r = results[0]
    claim.record(
        depth=r.depth,
        steps=r.steps,
        seeds=len(results),
        moved=max(x.both.moved for x in results),
        rezero_only_moved_min=min(x.rezero_only.moved for x in results),
        tensors=r.rezero_only.tensors,
        rezero_only_ratio=max(x.rezero_only.last / x.rezero_only.first for x in results),
    )
