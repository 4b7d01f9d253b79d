"""Claims of "The degradation problem" about the constructed solution and how far blocks start from the identity."""

import pytest
import torch

from sitekit.margins import above
from snippets.degradation import constructed_solution as snippet
from snippets.degradation.training_curves import DEEP, SHALLOW, make_net

PAGE = "module/degradation.md"


def weight_layers(blocks: int) -> int:
    """Layers with weights (Linear) in the net of that many blocks, as the page counts them."""
    return sum(isinstance(m, torch.nn.Linear) for m in make_net(blocks, True).modules())


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "A 22-layer residual net holding an 8-layer residual net's weights, with the last BatchNorm of "
    "each of its 7 extra blocks set to γ = β = 0, computes exactly the 8-layer net's outputs "
    "(bit for bit, 5 seeds).",
    page=PAGE,
    exact="torch.equal on the two nets' outputs: a zero branch adds exactly 0 and ReLU(x) is x for x ≥ 0",
)
def test_deep_residual_net_can_copy_shallow_net_exactly(claim, results):
    def exactly_equal(deep: list[torch.Tensor], shallow: list[torch.Tensor]) -> None:
        assert all(torch.equal(d, s) for d, s in zip(deep, shallow, strict=True))

    claim.check(exactly_equal, [r.deep_out for r in results], [r.shallow_out for r in results])
    claim.rejects(
        exactly_equal,
        [r.untouched_out for r in results],
        [r.shallow_out for r in results],
        because="extra blocks left at init",
    )
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
    half = 0.5

    def far_from_identity(plain: list[float], residual: list[float]) -> None:
        above("plain block ‖block(h) − h‖ / ‖h‖", plain, half)
        above("residual block (γ = 1) ‖block(h) − h‖ / ‖h‖", residual, half)

    claim.check(
        far_from_identity,
        [r.plain_block_deviation for r in results],
        [r.residual_block_deviation for r in results],
    )
    assert all(r.zeroed_block_deviation == 0.0 for r in results), [r.zeroed_block_deviation for r in results]
    claim.rejects(
        far_from_identity,
        [r.plain_block_deviation for r in results],
        [r.zeroed_block_deviation for r in results],
        because="the zeroed residual block in place of the γ = 1 one",
    )
    claim.record(
        plain_min=min(r.plain_block_deviation for r in results),
        plain_max=max(r.plain_block_deviation for r in results),
        residual_min=min(r.residual_block_deviation for r in results),
        residual_max=max(r.residual_block_deviation for r in results),
        zeroed=max(r.zeroed_block_deviation for r in results),
        threshold=half,
        seeds=len(results),
    )
