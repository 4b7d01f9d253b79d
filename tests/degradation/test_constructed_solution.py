"""Claims of "The degradation problem" about the constructed solution and how far blocks start from the identity."""

import pytest
import torch

from snippets.degradation import constructed_solution as snippet
from snippets.degradation.training_curves import DEEP, SHALLOW, make_net

PAGE = "module/degradation.md"


def weight_layers(blocks: int) -> int:
    """Layers with weights (Linear) in the net of that many blocks, as the page counts them."""
    return sum(isinstance(m, torch.nn.Linear) for m in make_net(blocks, True).modules())


SEEDS = range(5)


@pytest.fixture(scope="module")
def results(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


@pytest.mark.claim(
    "A 22-layer residual net holding an 8-layer residual net's weights, with the last BatchNorm of "
    "each of its 7 extra blocks set to γ = β = 0, computes exactly the 8-layer net's outputs "
    "(bit for bit, 5 seeds).",
    page=PAGE,
)
def test_deep_residual_net_can_copy_shallow_net_exactly(claim, results):
    def exactly_equal(deep: torch.Tensor, shallow: torch.Tensor) -> None:
        assert torch.equal(deep, shallow)

    for r in results:
        claim.check(exactly_equal, r.deep_out, r.shallow_out)
    claim.rejects(exactly_equal, results[0].untouched_out, results[0].shallow_out, because="extra blocks left at init")
    claim.record(
        seeds=len(results),
        residual_untouched=max(r.residual_untouched_difference for r in results),
        plain_untouched=min(r.plain_untouched_difference for r in results),
        plain_zeroed=min(r.plain_zeroed_difference for r in results),
        weight_layers={"deep": weight_layers(DEEP), "shallow": weight_layers(SHALLOW)},
        extra_blocks=DEEP - SHALLOW,
        max_difference=max((r.deep_out - r.shallow_out).abs().max().item() for r in results),
    )


@pytest.mark.claim(
    "At He init a plain block moves its input by more than half its norm, and so does a residual block "
    "whose last BN has γ = 1; the residual block with γ = β = 0 moves it by exactly 0.0 (5 seeds).",
    page=PAGE,
)
def test_blocks_at_init_are_far_from_identity_unless_zeroed(claim, results):
    def far_from_identity(deviation: float) -> None:
        assert deviation > 0.5, deviation

    for r in results:
        claim.check(far_from_identity, r.plain_block_deviation)
        claim.check(far_from_identity, r.residual_block_deviation)
        assert r.zeroed_block_deviation == 0.0
    claim.rejects(far_from_identity, results[0].zeroed_block_deviation, because="the zeroed residual block")
    claim.record(
        plain_min=min(r.plain_block_deviation for r in results),
        plain_max=max(r.plain_block_deviation for r in results),
        residual_min=min(r.residual_block_deviation for r in results),
        residual_max=max(r.residual_block_deviation for r in results),
        zeroed=max(r.zeroed_block_deviation for r in results),
        seeds=len(results),
    )
