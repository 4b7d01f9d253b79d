"""Claims of "The degradation problem" about its nets and its short fixed-budget run (training_curves.py).

The converged experiment (test_converged_*.py) carries the page's comparison; this file shows why a short budget
cannot: after 200 steps the deep plain net is still far from every other net at every rate.
"""

import inspect
import math
import statistics

import pytest

from sitekit import runs
from sitekit.margins import above
from snippets.degradation import training_curves as snippet

PAGE = "module/degradation.md"
SHALLOW, DEEP, RESIDUAL = snippet.NETS
FAR = 3.0  # "far from": more than three times the shallow plain net's best loss


@pytest.mark.claim(
    "The plain and the residual net of the same depth have the same weight layers and the same number of "
    "parameters: the shortcut adds none.",
    page=PAGE,
    identity="the residual block is the plain block's layers with an addition, which has no weights",
    device_independent="parameter shapes only, counted on the meta device",
)
def test_plain_and_residual_nets_have_the_same_weights(claim):
    def counts(blocks: int, residual: bool) -> tuple[int, int]:
        net = runs.run(snippet.make_net, blocks, residual)
        return snippet.weight_layers(blocks, residual), sum(p.numel() for p in net.parameters())

    def same(plain: tuple[int, int], residual: tuple[int, int]) -> None:
        assert plain == residual, (plain, residual)

    for blocks in (snippet.SHALLOW, snippet.DEEP):
        claim.check(same, counts(blocks, False), counts(blocks, True))
    claim.record(
        layers={
            "shallow": snippet.weight_layers(snippet.SHALLOW, False),
            "deep": snippet.weight_layers(snippet.DEEP, False),
        },
        params={"shallow": counts(snippet.SHALLOW, False)[1], "deep": counts(snippet.DEEP, False)[1]},
    )


@pytest.fixture(scope="module")
def short(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "After a short budget of 200 SGD steps at one rate, the 22-layer plain net's final loss is more than 3× the "
    "8-layer plain net's best at every rate of a grid of 5 (factors of 2), in every one of 5 seeds: a budget that "
    "short compares a net that has barely started with one that has nearly finished.",
    page=PAGE,
    experiment="trains the two plain nets at 5 rates and the residual net at one, 200 steps each, 5 seeds",
    tolerance=0.25,
)
def test_a_short_budget_leaves_the_deep_plain_net_far_behind(claim, short):
    def far_behind(losses: list[dict[float, float]], shallow: list[dict[float, float]]) -> None:
        ratios = [
            loss / min(s.values()) for by_rate, s in zip(losses, shallow, strict=True) for loss in by_rate.values()
        ]
        above("final loss / the 8-layer plain net's best, every rate and seed", ratios, FAR)

    claim.check(far_behind, [r.lr_loss[DEEP] for r in short], [r.lr_loss[SHALLOW] for r in short])
    claim.rejects(
        far_behind,
        [{snippet.LR: r.final_loss[RESIDUAL]} for r in short],
        [r.lr_loss[SHALLOW] for r in short],
        because="the 22-layer residual net, trained the same 200 steps at the shared rate",
    )
    lrs = sorted(short[0].lr_loss[DEEP])
    claim.record(
        steps=math.ceil(snippet.N / snippet.BATCH) * inspect.signature(snippet.measure).parameters["epochs"].default,
        lr_count=len(lrs),
        rates=lrs,
        seeds=len(short),
        layers={
            "shallow": snippet.weight_layers(snippet.SHALLOW, False),
            "deep": snippet.weight_layers(snippet.DEEP, False),
        },
        far=FAR,
        deep_median={str(lr): statistics.median(r.lr_loss[DEEP][lr] for r in short) for lr in lrs},
        shallow_median={str(lr): statistics.median(r.lr_loss[SHALLOW][lr] for r in short) for lr in lrs},
        shallow_best_median=statistics.median(min(r.lr_loss[SHALLOW].values()) for r in short),
        residual_median=statistics.median(r.final_loss[RESIDUAL] for r in short),
        chance=math.log(snippet.K),
    )
