"""Claims of the entry "Depth Scaling" about training: does the best Adam learning rate stay put from 2 to 32
blocks under each branch multiplier (1, 1/√L, 1/L)? Residual stacks on handwritten digits, full batch, a grid of
rates in factors of 2, from 3 seeds. Each seed trains 72 stacks: the file is an experiment."""

import math
import statistics

import pytest

from sitekit.margins import above, below
from snippets.encyclopedia import depth_transfer as snippet

PAGE = "encyclopedia/depth-scaling.md"
SEEDS = 3
EXPERIMENT = "trains residual stacks of 2, 4 and 32 blocks under three branch multipliers at 8 Adam rates, from 3 seeds"
TOLERANCE = 0.25
# The thresholds come from the grid, fixed before the experiment was run: a best rate "stays put" when it moves by
# less than one grid step (a factor of 2), and one multiplier "moves it further" than another when the difference
# is more than half a grid step (a factor of √2). The reasoning behind the order (Adam's steps have a size set by
# the rate alone, so each block's write changes by about s times the rate, and L blocks' changes add up to about
# L·s times the rate: 1/L keeps that fixed, 1/√L lets it grow like √L, 1 like L) predicts the order, not the sizes:
# the embedding and read-out layers, which do not scale with depth, take part of every step.
WITHIN = 2.0  # a ratio of best rates (one grid step)
FURTHER = 0.5  # factors of 2


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(SEEDS)]


DEEP, NEAR = snippet.DEPTHS[-1], snippet.DEPTHS[1]


def shifts(runs, name: str, depth: int = DEEP) -> list[float]:
    """Per seed: log2 of the best rate at `depth` blocks minus log2 of the best rate at 2 blocks."""
    return [r.shift[name][depth] for r in runs]


@pytest.mark.claim(
    "With every branch multiplied by 1/L and one Adam learning rate for every depth, the best rate for a stack of "
    "32 blocks on handwritten digits is within a factor of 2 of the best rate for a stack of 2 blocks, in every one "
    "of 3 seeds (the lowest training loss after 60 full-batch steps, rates on a grid of factors of 2); with 1/√L "
    "it is not.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_one_over_depth_keeps_the_best_rate_within_a_factor_of_two(claim, runs):
    def stays(moves: list[float]) -> None:
        ratios = [2 ** abs(m) for m in moves]  # moves are in factors of 2, up or down
        below("best rate at 32 blocks ÷ best rate at 2 blocks, or its inverse, each seed", ratios, WITHIN)

    inside = [not any(r.edge["1/L"].values()) for r in runs]
    assert all(inside), f"the best rate under 1/L sat at an end of the grid in some seed: {inside}"
    claim.check(stays, shifts(runs, "1/L"))
    claim.rejects(stays, shifts(runs, "1/√L"), because="the same stacks with every branch multiplied by 1/√L")
    first = runs[0]
    claim.record(
        seeds=len(runs),
        depths=list(first.depths),
        steps=snippet.STEPS,
        images=snippet.N,
        width=snippet.D,
        rates=len(first.lrs),
        lowest_rate_log2=math.log2(first.lrs[0]),
        highest_rate_log2=math.log2(first.lrs[-1]),
        within_factor=WITHIN,
        grid_factor=first.lrs[1] / first.lrs[0],
        pixels=snippet.PIXELS,
        shifts={m: shifts(runs, m) for m in snippet.MULTIPLIERS},
        worst_inverse=max(abs(s) for s in shifts(runs, "1/L")),
        least_root=min(abs(s) for s in shifts(runs, "1/√L")),
        best={m: {str(L): [r.best[m][L] for r in runs] for L in first.depths} for m in snippet.MULTIPLIERS},
        worst_inverse_factor=2 ** max(abs(s) for s in shifts(runs, "1/L")),
        cpu_seconds=statistics.median(r.cpu_seconds for r in runs),
    )


@pytest.mark.claim(
    "From 2 to 32 blocks, the best Adam rate falls further the less the branch multiplier shrinks with depth: in "
    "every one of 3 seeds it falls by more than a factor of √2 more under 1/√L than under 1/L, and by more than a "
    "factor of √2 more under a multiplier of 1 than under 1/√L. From 2 to 4 blocks the same runs do not separate "
    "the multipliers by that much.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_the_best_rate_falls_further_the_less_the_multiplier_shrinks(claim, runs):
    def ordered(inverse: list[float], root: list[float], one: list[float]) -> None:
        falls = {n: [-s for s in v] for n, v in (("1/L", inverse), ("1/√L", root), ("1", one))}
        gap = [a - b for a, b in zip(falls["1/√L"], falls["1/L"], strict=True)]
        above("fall under 1/√L − fall under 1/L, each seed (factors of 2)", gap, FURTHER)
        gap = [a - b for a, b in zip(falls["1"], falls["1/√L"], strict=True)]
        above("fall under 1 − fall under 1/√L, each seed (factors of 2)", gap, FURTHER)

    order = ("1/L", "1/√L", "1")
    claim.check(ordered, *(shifts(runs, m) for m in order))
    claim.rejects(
        ordered, *(shifts(runs, m, NEAR) for m in order), because=f"the same multipliers from 2 to {NEAR} blocks"
    )
    falls = {m: [-s for s in shifts(runs, m)] for m in snippet.MULTIPLIERS}
    near = {m: [-s for s in shifts(runs, m, NEAR)] for m in snippet.MULTIPLIERS}
    shown = (snippet.DEPTHS[0], DEEP)
    median_curves = {
        m: {
            str(L): [statistics.median(r.losses[m][L][i] for r in runs) for i in range(len(snippet.LRS))] for L in shown
        }
        for m in snippet.MULTIPLIERS
    }
    claim.record(
        seeds=len(runs),
        near=NEAR,
        deep=DEEP,
        further=FURTHER,
        further_factor=2**FURTHER,
        falls=falls,
        near_falls=near,
        median_fall={m: statistics.median(v) for m, v in falls.items()},
        median_fall_factor={m: 2 ** statistics.median(v) for m, v in falls.items()},
        root_over_inverse_min=min(a - b for a, b in zip(falls["1/√L"], falls["1/L"], strict=True)),
        one_over_root_min=min(a - b for a, b in zip(falls["1"], falls["1/√L"], strict=True)),
        one_at_edge=sum(r.edge["1"][DEEP] for r in runs),
        depth_ratio=DEEP // snippet.DEPTHS[0],
        bookkeeping_root_factor=math.sqrt(DEEP / snippet.DEPTHS[0]),
        rates_log2=[math.log2(lr) for lr in snippet.LRS],
        median_curves=median_curves,
    )
