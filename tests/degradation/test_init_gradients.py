"""Claims of "The degradation problem" about a deep plain BatchNorm stack's input gradient at initialisation (5
seeds)."""

import inspect
import itertools
import statistics

import pytest

from sitekit.margins import above
from snippets.degradation import init_gradients as snippet
from snippets.gradient_highway.depth_sweep import DEPTHS

PAGE = "module/degradation.md"


@pytest.fixture(scope="module")
def sweep(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def medians(sweep, stack: str) -> dict[int, float]:
    return {L: statistics.median(r.norms[stack][L] for r in sweep) for L in DEPTHS}


GROWTH = 1e6


def explodes(runs: list[dict[int, float]]) -> None:
    """Grows at every step in depth, and by over 1e6 from depth 5 to depth 50, in every seed."""
    steps = [norms[b] / norms[a] for norms in runs for a, b in itertools.pairwise(DEPTHS)]
    above("‖g‖ at the next depth / at this depth", steps, 1.0)
    above("‖g‖ at depth 50 / at depth 5", [norms[50] / norms[5] for norms in runs], GROWTH)


@pytest.mark.claim(
    "At initialisation, BatchNorm does not keep a deep plain stack's gradient steady: with BN, under "
    "He or default init, the input gradient grows at every depth step and by over 1e6× from 5 to 50 "
    "blocks, in every one of 5 seeds.",
    page=PAGE,
)
def test_batchnorm_plain_stack_gradient_explodes_at_init(claim, sweep):
    claim.check(explodes, [r.norms[stack] for r in sweep for stack in ("He + BN", "default + BN")])
    claim.rejects(explodes, [r.norms["default, no BN"] for r in sweep], because="the default-init stack without BN")
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
        growth=GROWTH,
        d=inspect.signature(snippet.measure).parameters["d"].default,
        batch=inspect.signature(snippet.measure).parameters["batch"].default,
        shallow=DEPTHS[0],
        deep=DEPTHS[-1],
    )
