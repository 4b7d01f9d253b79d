"""Claims of the entry "Scaled and zero-initialised branches": the stream's growth under each scheme, in float64."""

import itertools
import math

import pytest

from sitekit.margins import below
from snippets.encyclopedia import branch_scaling as snippet

PAGE = "encyclopedia/scaled-branches.md"
EXACT = 1e-12  # float64: relative differences at rounding level
CPU_FLOAT64 = "the snippet builds every stack in float64 on the CPU whatever the device"


@pytest.fixture(scope="module")
def run(seeds):
    """Every scheme at every depth, and a stack with random factors (exact rotations: the seed only picks them)."""
    return snippet.measure(seed=seeds.first())


@pytest.mark.claim(
    "When every write is orthogonal to the stream it reads, each block multiplies the stream's squared norm by "
    "exactly 1 + ρ_l² (to 1e-12, float64, 16 blocks with random ρ_l); a branch that writes along the stream "
    "does not follow the rule.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="the branches are built as exact quarter-turn rotations (Qᵀ = −Q, QᵀQ = I), so every write is "
    "orthogonal to the stream and as long as it, and ‖x + ρQx‖² = (1 + ρ²)‖x‖² holds by construction; the check "
    "confirms float64 rounding keeps it (relative error within 1e-12)",
)
def test_each_block_multiplies_the_second_moment_by_one_plus_rho_squared(claim, run):
    def one_plus_rho_squared(ratios: list[float]) -> None:
        errors = [abs(ratio - (1 + s * s)) / (1 + s * s) for ratio, s in zip(ratios, run.rho, strict=True)]
        below("relative error of ‖x_(l+1)‖²/‖x_l‖² against 1 + ρ_l²", errors, EXACT)

    claim.check(one_plus_rho_squared, run.per_block)
    claim.rejects(one_plus_rho_squared, run.per_block_aligned, because="branches that write along the stream")
    claim.record(
        blocks=len(run.rho),
        d=run.d,
        max_error=max(abs(r - (1 + s * s)) / (1 + s * s) for r, s in zip(run.per_block, run.rho, strict=True)),
        rho_max=max(run.rho),
    )


@pytest.mark.claim(
    "Branches scaled so that ρ² = c/L keep the stream's squared norm growing with depth but below e^c: "
    "(1 + c/L)^L, measured at L = 2 to 512 with c = 1; unscaled branches (ρ² = 1) pass e^c at once.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="with writes built orthogonal to the stream (exact rotations) and ρ² = c/L, the growth is "
    "(1 + c/L)^L by construction, which rises with L and stays below e^c by the inequality (1 + x/n)^n < e^x; "
    "the check confirms float64 rounding keeps it (within 1e-9 relative over 512 blocks)",
)
def test_one_over_sqrt_depth_keeps_the_stream_below_e_to_the_c(claim, run):
    bound = math.exp(run.c)
    rounding = 1e-9  # 512 blocks of float64 rounding, far from the ~1e-3 gap between (1 + c/L)^L and e^c

    def bounded(growth: list[float]) -> None:
        assert all(a < b for a, b in itertools.pairwise(growth)), growth
        below("‖x_L‖²/‖x_0‖² against e^c", growth, bound)
        errors = [abs(g - (1 + run.c / L) ** L) / (1 + run.c / L) ** L for g, L in zip(growth, run.depths, strict=True)]
        below("relative error of ‖x_L‖²/‖x_0‖² against (1 + c/L)^L", errors, rounding)

    claim.check(bounded, run.growth["1/sqrt(L)"])
    claim.rejects(bounded, run.growth["none"], because="unscaled branches, ρ² = 1")
    rows = [
        [L, *(run.growth[s][i] for s in ("rezero", "layerscale", "1/sqrt(L)", "none"))]
        for i, L in enumerate(run.depths)
    ]
    claim.record(
        c=run.c,
        e_c=bound,
        depths=run.depths,
        eps=run.eps,
        deepest=run.depths[-1],
        scaled_deepest=run.growth["1/sqrt(L)"][-1],
        layerscale_deepest=run.growth["layerscale"][-1],
        unscaled_deepest=run.growth["none"][-1],
        table={
            "columns": ["blocks L", "zero-started (ReZero, SkipInit)", "LayerScale, ε fixed", "ρ² = c/L", "unscaled"],
            "rows": rows,
        },
    )


@pytest.mark.claim(
    "Branches whose factor starts at zero (ReZero, SkipInit) leave the stream bit for bit unchanged at every depth "
    "from 2 to 512 blocks (torch.equal); a small but non-zero factor (LayerScale's ε) does not.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    exact="x + 0·f(x) is x bit for bit (torch.equal) at every depth",
)
def test_zero_started_branches_leave_the_stream_exactly_unchanged(claim, run):
    def unchanged(growth: list[float]) -> None:
        assert all(g == 1.0 for g in growth), growth

    claim.check(unchanged, run.growth["rezero"])
    assert run.zero_exact
    claim.rejects(unchanged, run.growth["layerscale"], because="LayerScale's small non-zero ε")
    claim.record(
        depths=run.depths,
        shallowest=run.depths[0],
        deepest=run.depths[-1],
        layerscale_shallowest=run.growth["layerscale"][0],
    )
