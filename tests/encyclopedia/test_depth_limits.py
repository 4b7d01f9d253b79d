"""Claims of the entry "Depth Scaling": a residual stack as Euler's method (blocks that share one branch, s = 1/L),
and what the branch multiplier does to a stack whose blocks draw their own random branches (float64)."""

import itertools
import math
import statistics

import pytest

from sitekit.margins import above, below, between
from snippets.encyclopedia import depth_limits as snippet

PAGE = "encyclopedia/depth-scaling.md"
CPU_FLOAT64 = "the snippet builds every stack in float64 on the CPU whatever the device"
SEEDS = 5
FIRST_ORDER = (3.5, 4.5)  # Euler's error is first order: each 4x in depth divides it by about 4
NEAR_E = 0.25  # "near e": within this fraction of e at every depth
FADES = 0.1  # "about 1/√L of its size": the move times √L within this fraction of 1
DOUBLING = 0.1  # "grows like 2^L": the log of the growth within this fraction of L·ln 2
BASE = 2  # each block with multiplier 1 doubles the squared norm on average (1 + ρ² with ρ² = 1)


@pytest.fixture(scope="module")
def r(seeds):
    ids = seeds(SEEDS)
    return snippet.measure(seed=ids[0], seeds=len(ids))


@pytest.mark.claim(
    "A stack whose blocks all share one random linear branch A, each adding 1/L of its write, is Euler's method "
    "for dh/dt = A h: its distance from exp(A) h₀ falls by between 3.5× and 4.5× for each 4× in depth, from 16 to "
    "256 blocks, in every one of 5 seeds; with 1/√L in place of 1/L the same stack moves further from exp(A) h₀ "
    "with every 4× in depth.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
)
def test_shared_branch_stack_is_eulers_method(claim, r):
    def first_order(errors: dict[int, list[float]]) -> None:
        depths = sorted(errors)
        for a, b in itertools.pairwise(depths):
            assert b == 4 * a, (a, b)
            between(
                f"error at L = {a} ÷ error at L = {b}",
                [x / y for x, y in zip(errors[a], errors[b], strict=True)],
                *FIRST_ORDER,
            )

    def diverges(errors: dict[int, list[float]]) -> None:
        for a, b in itertools.pairwise(sorted(errors)):
            above(f"error at L = {b} ÷ error at L = {a}", [y / x for x, y in zip(errors[a], errors[b], strict=True)], 1)

    claim.check(first_order, r.ode_error["1/L"])
    claim.rejects(first_order, r.ode_error["1/√L"], because="the same blocks adding 1/√L of their write")
    claim.check(diverges, r.ode_error["1/√L"])
    claim.rejects(diverges, r.ode_error["1/L"], because="the same blocks adding 1/L of their write")
    err = r.ode_error["1/L"]
    claim.record(
        depths=list(r.depths),
        d=snippet.D,
        inputs=snippet.BATCH,
        seeds=len(r.seeds),
        error={str(L): max(v) for L, v in err.items()},
        error_sqrt={str(L): min(v) for L, v in r.ode_error["1/√L"].items()},
        ratio_min=min(x / y for a, b in ((16, 64), (64, 256)) for x, y in zip(err[a], err[b], strict=True)),
        ratio_max=max(x / y for a, b in ((16, 64), (64, 256)) for x, y in zip(err[a], err[b], strict=True)),
        error_median={name: {str(L): statistics.median(v) for L, v in by.items()} for name, by in r.ode_error.items()},
        low=FIRST_ORDER[0],
        high=FIRST_ORDER[1],
        step=4,
    )


@pytest.mark.claim(
    "When every block draws its own random linear branch (entries of variance 1/d), a multiplier of 1/√L keeps the "
    "stream's growth the same at every depth: its squared norm grows by a factor within 25% of e at 16, 64 and 256 "
    "blocks, in every one of 5 seeds (each block adds ρ² = 1/L, and (1 + 1/L)^L approaches e); with 1/L the stream "
    "moves by only about 1/√L of its size (that move times √L within 10% of 1 at every depth), the branches fading "
    "out, and with a multiplier of 1 it "
    "grows like 2^L (its logarithm within 10% of L·ln 2 at every depth).",
    page=PAGE,
    device_independent=CPU_FLOAT64,
)
def test_iid_branches_need_one_over_root_depth(claim, r):
    def depth_free(growth: dict[int, list[float]]) -> None:
        values = [v for by_seed in growth.values() for v in by_seed]
        below("|squared-norm growth ÷ e − 1|, every depth and seed", [abs(v / math.e - 1) for v in values], NEAR_E)

    def fades(moved: dict[int, list[float]]) -> None:
        scaled = [v * math.sqrt(L) for L, by_seed in moved.items() for v in by_seed]
        below("|‖h_L − h_0‖/‖h_0‖ × √L − 1|, every depth and seed", [abs(x - 1) for x in scaled], FADES)

    claim.check(depth_free, r.growth["1/√L"])
    claim.rejects(depth_free, r.growth["1"], because="a multiplier of 1")
    claim.rejects(depth_free, r.growth["1/L"], because="a multiplier of 1/L")

    def doubles(growth: dict[int, list[float]]) -> None:
        ratios = [math.log(v) / (L * math.log(BASE)) for L, by_seed in growth.items() for v in by_seed]
        below(
            "|log of the squared-norm growth ÷ L·ln 2 − 1|, every depth and seed",
            [abs(x - 1) for x in ratios],
            DOUBLING,
        )

    claim.check(doubles, r.growth["1"])
    claim.rejects(doubles, r.growth["1/√L"], because="a multiplier of 1/√L")
    claim.check(fades, r.moved["1/L"])
    claim.rejects(fades, r.moved["1/√L"], because="a multiplier of 1/√L")
    g = r.growth
    claim.record(
        depths=list(r.depths),
        d=snippet.D,
        seeds=len(r.seeds),
        near=NEAR_E,
        fades=FADES,
        moved_inverse_scaled={str(L): statistics.median(v) * math.sqrt(L) for L, v in r.moved["1/L"].items()},
        e=math.e,
        sqrt_min=min(min(v) for v in g["1/√L"].values()),
        sqrt_max=max(max(v) for v in g["1/√L"].values()),
        predicted_sqrt={str(L): p for L, p in r.predicted["1/√L"].items()},
        inverse={str(L): max(v) for L, v in g["1/L"].items()},
        moved_inverse=max(r.moved["1/L"][max(r.depths)]),
        moved_sqrt=min(r.moved["1/√L"][max(r.depths)]),
        one={str(L): min(v) for L, v in g["1"].items()},
        two_to_l={str(L): float(BASE) ** L for L in r.depths},
        base=BASE,
        doubling=DOUBLING,
        deepest=max(r.depths),
        growth_median={name: {str(L): statistics.median(v) for L, v in by.items()} for name, by in g.items()},
    )
