"""Claims of the entry "Depth Scaling" about training: does the best Adam learning rate stay put from 2 to 32
blocks under each branch multiplier (1, 1/√L, 1/L), and under 1/√L with depth-μP's rate rule? Residual stacks on
handwritten digits, full batch, a grid of rates in factors of 2, from 3 seeds. Each seed trains 64 stacks: the file
is an experiment."""

import math
import statistics

import pytest

from sitekit.margins import above, below
from snippets.encyclopedia import depth_transfer as snippet

PAGE = "encyclopedia/depth-scaling.md"
SEEDS = 3
EXPERIMENT = "trains residual stacks of 2 and 32 blocks under four depth rules at 8 Adam rates, from 3 seeds"
TOLERANCE = 0.25
# The thresholds come from the grid: a best rate "stays put" when it moves by less than one grid step (a factor of
# 2), and "falls" when it moves down by more than one. The reasoning behind the claims (Adam's steps have a size set
# by the rate alone, so each block's write changes by about s times the rate, and L blocks' changes add up to about
# L·s times the rate: 1/L keeps that fixed, 1/√L lets it grow like √L, 1 like L) predicts the order, not the sizes:
# the embedding and read-out layers, which do not scale with depth, take part in every step.
# History: a first version scored each rate by the training loss at the end of the run and asked, per seed, for a
# gap of more than half a grid step between the falls under 1/√L and 1/L, and between 1 and 1/√L. On a third seed
# set (--seeds 12345) both failed (1/L moved one seed's best rate by 2.20x; one gap was 0.39 steps): every good rate
# ends near zero loss on a set this small, and which near-zero loss is lowest is noise. Scored by the loss averaged
# over the run, 12 exploratory seeds (0-5, 777-779, 12345-12347; not the harness's sets) gave |moves| under 1/L of
# at most 0.34 steps and falls under 1/√L of at least 1.32; the claims below were then fixed and run on the tuned,
# held-out and 12345 sets. The fall under 1 beyond 1/√L was at least 0.38 steps there, so it is claimed as a sign.
# The depth-μP arm (1/√L with the blocks' rate divided by √(L/2)) was added after an independent read pointed out
# that 1/√L at one rate is not depth-μP; it is held to the same factor of 2 as 1/L, fixed before it was run.
WITHIN = 2.0  # a ratio of best rates (one grid step)
FALLS = 2.0  # a ratio of best rates (one grid step)


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(SEEDS)]


def shifts(runs, name: str) -> list[float]:
    """Per seed: log2 of the best rate at 32 blocks minus log2 of the best rate at 2 blocks."""
    return [r.shift[name] for r in runs]


@pytest.mark.claim(
    "With every branch multiplied by 1/L and one Adam learning rate for every depth, and with every branch "
    "multiplied by 1/√L and the blocks' rate divided by √(L/2) (depth-μP's rule, from a base of 2 blocks), the best "
    "rate for a stack of 32 blocks on handwritten digits is within a factor of 2 of the best rate for a stack of 2 "
    "blocks, in every one of 3 seeds (the rate whose training loss averaged over 60 full-batch steps is lowest, on a "
    "grid of factors of 2); with 1/√L at one rate it is not.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_one_over_depth_keeps_the_best_rate_within_a_factor_of_two(claim, runs):
    def stays(moves: list[float]) -> None:
        ratios = [2 ** abs(m) for m in moves]  # moves are in factors of 2, up or down
        below("best rate at 32 blocks ÷ best rate at 2 blocks, or its inverse, each seed", ratios, WITHIN)

    for arm in ("1/L", snippet.MU_P):
        inside = [not any(r.edge[arm].values()) for r in runs]
        assert all(inside), f"the best rate under {arm} sat at an end of the grid in some seed: {inside}"
    claim.check(stays, shifts(runs, "1/L"))
    claim.check(stays, shifts(runs, snippet.MU_P))
    claim.rejects(stays, shifts(runs, "1/√L"), because="the same stacks with 1/√L at one rate for every depth")
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
        shifts={m: shifts(runs, m) for m in (*snippet.MULTIPLIERS, snippet.MU_P)},
        worst_inverse=max(abs(s) for s in shifts(runs, "1/L")),
        least_root=min(abs(s) for s in shifts(runs, "1/√L")),
        best={m: {str(L): [r.best[m][L] for r in runs] for L in first.depths} for m in snippet.MULTIPLIERS},
        worst_inverse_factor=2 ** max(abs(s) for s in shifts(runs, "1/L")),
        worst_mup_factor=2 ** max(abs(s) for s in shifts(runs, snippet.MU_P)),
        mup_base=snippet.DEPTHS[0],
        cpu_seconds=statistics.median(r.cpu_seconds for r in runs),
    )


@pytest.mark.claim(
    "From 2 to 32 blocks, the best Adam rate falls by more than a factor of 2 with every branch multiplied by 1/√L, "
    "and further still with a multiplier of 1, in every one of 3 seeds; with 1/L in place of 1/√L it does not.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_the_best_rate_falls_further_the_less_the_multiplier_shrinks(claim, runs):
    def falls(smaller: list[float], larger: list[float]) -> None:
        down = [2**-m for m in smaller]  # best rate at 2 blocks ÷ best rate at 32 blocks
        above("best rate at 2 blocks ÷ best rate at 32 blocks, each seed", down, FALLS)
        further = [a - b for a, b in zip(smaller, larger, strict=True)]  # in factors of 2
        above("how much further the best rate falls with the larger multiplier, each seed", further, 0)

    claim.check(falls, shifts(runs, "1/√L"), shifts(runs, "1"))
    claim.rejects(falls, shifts(runs, "1/L"), shifts(runs, "1"), because="the same stacks with 1/L in place of 1/√L")
    fall = {m: [-s for s in shifts(runs, m)] for m in snippet.MULTIPLIERS}
    median_curves = {
        m: {
            str(L): [statistics.median(r.losses[m][L][i] for r in runs) for i in range(len(snippet.LRS))]
            for L in snippet.DEPTHS
        }
        for m in (*snippet.MULTIPLIERS, snippet.MU_P)
    }
    claim.record(
        seeds=len(runs),
        deep=snippet.DEPTHS[-1],
        falls_factor=FALLS,
        falls=fall,
        median_fall={m: statistics.median(v) for m, v in fall.items()},
        median_fall_factor={m: 2 ** statistics.median(v) for m, v in fall.items()},
        least_root_factor=2 ** min(fall["1/√L"]),
        one_over_root_min=min(a - b for a, b in zip(fall["1"], fall["1/√L"], strict=True)),
        one_over_root_min_factor=2 ** min(a - b for a, b in zip(fall["1"], fall["1/√L"], strict=True)),
        one_at_edge=sum(r.edge["1"][snippet.DEPTHS[-1]] for r in runs),
        depth_ratio=snippet.DEPTHS[-1] // snippet.DEPTHS[0],
        bookkeeping_root_factor=math.sqrt(snippet.DEPTHS[-1] / snippet.DEPTHS[0]),
        rates_log2=[math.log2(lr) for lr in snippet.LRS],
        median_curves=median_curves,
        end_fall_factor={m: [2 ** -r.end_shift[m] for r in runs] for m in (*snippet.MULTIPLIERS, snippet.MU_P)},
        end_fall_median={
            m: statistics.median(2 ** -r.end_shift[m] for r in runs) for m in (*snippet.MULTIPLIERS, snippet.MU_P)
        },
        end_inverse_max=max(2 ** -r.end_shift["1/L"] for r in runs),
        end_inverse_min=min(2 ** -r.end_shift["1/L"] for r in runs),
    )
