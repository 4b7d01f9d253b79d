"""Claim of "Initialisation and scale": ReZero plus a zeroed last layer never learns."""

import pytest

from snippets.initialisation import rezero_zero_last as snippet

PAGE = "module/initialisation.md"


@pytest.fixture(scope="module")
def results(device):
    """One run per seed, shared by the claim below."""
    return [snippet.measure(device, seed=s) for s in range(5)]


@pytest.mark.claim(
    "A 10-block ReZero stack whose branches' last layers are also zeroed does not move in 20 Adam steps: no "
    "parameter changes and the loss stays bit-identical (5 seeds); ReZero alone moves every parameter tensor "
    "and lowers its loss.",
    page=PAGE,
)
def test_rezero_with_zeroed_last_layer_never_learns(claim, results):
    def stuck(run: snippet.Run) -> None:
        assert run.moved == 0 and run.last == run.first, run

    for r in results:
        claim.check(stuck, r.both)
        claim.rejects(stuck, r.rezero_only, because="ReZero with its branches' last layers left random")
        assert r.rezero_only.last < r.rezero_only.first and r.rezero_only.moved == r.rezero_only.tensors
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
