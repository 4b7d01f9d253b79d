"""Claims of "The degradation problem" about a deep plain BatchNorm stack's input gradient at initialisation (5
seeds)."""

import inspect
import itertools
import statistics

import pytest

from snippets.degradation import init_gradients as snippet
from snippets.gradient_highway.depth_sweep import DEPTHS

PAGE = "module/degradation.md"
SEEDS = range(5)


@pytest.fixture(scope="module")
def sweep(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


def medians(sweep, stack: str) -> dict[int, float]:
    return {L: statistics.median(r.norms[stack][L] for r in sweep) for L in DEPTHS}


def explodes(norms: dict[int, float]) -> None:
    """Grows at every step in depth, and by over 1e6 from depth 5 to depth 50."""
    assert all(norms[a] < norms[b] for a, b in itertools.pairwise(DEPTHS)), norms
    assert norms[50] / norms[5] > 1e6, norms


@pytest.mark.claim(
    "At initialisation, BatchNorm does not keep a deep plain stack's gradient steady: with BN, under "
    "He or default init, the input gradient grows at every depth step and by over 1e6× from 5 to 50 "
    "blocks, in every one of 5 seeds.",
    page=PAGE,
)
def test_batchnorm_plain_stack_gradient_explodes_at_init(claim, sweep):
    for r in sweep:
        claim.check(explodes, r.norms["He + BN"])
        claim.check(explodes, r.norms["default + BN"])
    claim.rejects(explodes, sweep[0].norms["default, no BN"], because="the default-init stack without BN")
    m = {stack: medians(sweep, stack) for stack in snippet.STACKS}
    rows = [[L, *(m[stack][L] for stack in snippet.STACKS)] for L in DEPTHS]
    ratio = m["He + BN"][50] / m["He + BN"][5]
    lo = min(r.norms["He + BN"][50] / r.norms["He + BN"][5] for r in sweep)
    hi = max(r.norms["He + BN"][50] / r.norms["He + BN"][5] for r in sweep)
    claim.record(
        table={"columns": ["depth L (blocks)", *snippet.STACKS], "rows": rows},
        bn_ratio_50_5=ratio,
        bn_ratio_min=lo,
        bn_ratio_max=hi,
        he_ratio_50_5=m["He, no BN"][50] / m["He, no BN"][5],
        default_bn_ratio_50_5=m["default + BN"][50] / m["default + BN"][5],
        default_ratio_50_5=m["default, no BN"][50] / m["default, no BN"][5],
        # 45 blocks of 2 weight layers lie between depth 5 and depth 50
        bn_factor_per_layer=ratio ** (1 / 90),
        seeds=len(sweep),
        d=inspect.signature(snippet.measure).parameters["d"].default,
        batch=inspect.signature(snippet.measure).parameters["batch"].default,
        shallow=DEPTHS[0],
        deep=DEPTHS[-1],
    )
