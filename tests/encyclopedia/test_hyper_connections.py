"""Claims of the entry "Hyper-Connections": the single stream as the n = 1 case, the start as copies of the
residual stream, and what a doubly stochastic mixing matrix does to the copies' composite gain (float64)."""

import math
import statistics

import pytest

from sitekit.margins import above, below
from snippets.encyclopedia import hyper_connections as snippet
from snippets.encyclopedia import hyper_connections_trained as trained

PAGE = "encyclopedia/hyper-connections.md"
CPU_FLOAT64 = "the snippet builds every stack and matrix in float64 on the CPU whatever the device"
DEEPEST = -1  # the depths' last entry: the composite gain is read there
GROWN = 10.0  # "compounds": the unconstrained copies' gain at the deepest point is over ten times the identity's


@pytest.fixture(scope="module")
def runs(seeds):
    return [snippet.measure(seed=s) for s in seeds(5)]


def bit_for_bit(flags: list[bool]) -> None:
    assert all(flags), f"some stack's copies differ from the residual stream: {flags}"


@pytest.mark.claim(
    "With one copy and unit weights (a = b = M = 1), a hyper-connection is the residual block: every block's "
    "output equals x + f(x) bit for bit, through 12 blocks in float64; a mixing weight nudged off 1 by random "
    "amounts of size 0.01 does not.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="M H + b f(a H) with n = 1 and a = b = M = 1 is 1·x + 1·f(1·x), and multiplying by 1 is exact in "
    "floating point, so the output is x + f(x) to the bit",
)
def test_one_copy_hyper_connection_is_the_residual_block(claim, runs):
    claim.check(bit_for_bit, [r.one_copy_exact for r in runs])
    claim.rejects(bit_for_bit, [r.one_copy_perturbed_exact for r in runs], because="a mixing weight nudged off 1")
    claim.record(blocks=runs[0].blocks, d=runs[0].d, seeds=len(runs), unit=1, nudge=runs[0].nudge)


@pytest.mark.claim(
    "At the start weights (block l reads copy l mod n, writes to every copy, M = I), n = 4 copies of the input "
    "stay copies: each equals the single-stream residual network's stream after every block, bit for bit; a "
    "perturbed M makes them differ.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="when every copy holds the same x, reading any one of them gives x, M = I passes each copy on and "
    "b = 1 adds the same f(x) to each, so every copy becomes x + f(x); products with 0 and 1 are exact",
)
def test_hyper_connections_start_as_copies_of_the_residual_stream(claim, runs):
    claim.check(bit_for_bit, [r.copies_exact for r in runs])
    claim.rejects(bit_for_bit, [r.copies_perturbed_exact for r in runs], because="a mixing matrix nudged off I")
    claim.record(n=runs[0].n, blocks=runs[0].blocks, seeds=len(runs))


def gain_bound(run) -> list[float]:
    """sqrt(∏ (1 + δ_l)) at each depth: ‖P‖₂ ≤ sqrt(‖P‖₁ ‖P‖∞), column sums exactly 1, row sums within 1 + δ_l."""
    return [math.sqrt(math.prod(1 + e for e in run.row_errors[:L])) for L in run.depths]


@pytest.mark.claim(
    "Mixing matrices from 20 Sinkhorn iterations keep the copies' composite gain (the largest singular value of "
    "M_L ⋯ M_1) between 1 and the bound √∏(1 + δ_l) set by their row sums' errors δ_l, at every depth up to 256 "
    "blocks and on every seed; the unconstrained matrices I + σG from the same draws leave that range.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="column sums exactly 1 make 1ᵀP = 1ᵀ for the product, so its largest singular value is at least 1, "
    "and ‖P‖₂ ≤ √(‖P‖₁‖P‖∞) with ‖P‖₁ = 1 and ‖P‖∞ ≤ ∏(1 + δ_l); the check confirms float64 keeps both sides",
)
def test_sinkhorn_mixing_keeps_the_composite_gain_near_one(claim, runs):
    rounding = 1e-12

    def in_range(gains: list[list[float]]) -> None:
        lows = [g - 1 for run_gains in gains for g in run_gains]
        above("composite gain − 1, every depth and seed", lows, -rounding)
        highs = [
            g - b
            for run, run_gains in zip(runs, gains, strict=True)
            for g, b in zip(run_gains, gain_bound(run), strict=True)
        ]
        below("composite gain − the row-sum bound, every depth and seed", highs, rounding)

    claim.check(in_range, [r.sinkhorn for r in runs])
    claim.rejects(in_range, [r.free for r in runs], because="the unconstrained matrices I + σG")
    claim.record(
        depths=runs[0].depths,
        deepest=runs[0].depths[DEEPEST],
        sigma=runs[0].sigma,
        iterations=runs[0].iterations,
        diagonal=runs[0].diagonal,
        diagonal_share=statistics.median(r.diagonal_share for r in runs),
        excess_max=max(g - 1 for r in runs for g in r.sinkhorn),
        bound_deepest=max(gain_bound(r)[DEEPEST] for r in runs) - 1,
        row_error_max=max(r.row_error for r in runs),
        column_error_max=max(r.column_error for r in runs),
        table={
            "columns": ["blocks", "unconstrained: median gain", "min", "max", "Sinkhorn: largest gain − 1"],
            "rows": [
                [
                    L,
                    statistics.median(r.free[i] for r in runs),
                    min(r.free[i] for r in runs),
                    max(r.free[i] for r in runs),
                    max(r.sinkhorn[i] for r in runs) - 1,
                ]
                for i, L in enumerate(runs[0].depths)
            ],
        },
        seeds=len(runs),
    )


@pytest.mark.claim(
    "Unconstrained mixing matrices that each perturb the identity by σ = 0.2 per entry compound: after 256 "
    "blocks the copies' composite gain exceeds 10 on every one of 5 seeds; the Sinkhorn matrices from the "
    "same draws do not.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
)
def test_unconstrained_mixing_compounds_with_depth(claim, runs):
    def compounds(gains: list[float]) -> None:
        above("composite gain after the deepest block", gains, GROWN)

    claim.check(compounds, [r.free[DEEPEST] for r in runs])
    claim.rejects(compounds, [r.sinkhorn[DEEPEST] for r in runs], because="the Sinkhorn matrices from the same draws")
    deepest = [r.free[DEEPEST] for r in runs]
    claim.record(
        deepest=runs[0].depths[DEEPEST],
        sigma=runs[0].sigma,
        free_min=min(deepest),
        free_median=statistics.median(deepest),
        free_max=max(deepest),
        grown=GROWN,
        seeds=len(runs),
    )


@pytest.mark.claim(
    "Wrapping the 12 residual updates of Lab 2's 6-block pre-norm model in hyper-connections with n = 4 copies adds "
    "12 × (n² + 2n) = 288 weights to its 83032 and leaves every other weight as it was; Sinkhorn-constrained mixing "
    "adds as many.",
    page=PAGE,
    device_independent="counts the weights of models built on the CPU",
    identity="each hyper-connection adds its read weights a (n), write weights b (n) and mixing matrix M (n × n) "
    "around a branch it takes over unchanged; the Sinkhorn version keeps n × n logits in place of M",
)
def test_hyper_connections_add_n_squared_plus_2n_weights_per_update(claim, seeds):
    counts = trained.weight_counts(seeds.first())

    def adds(counts: dict[str, int]) -> None:
        per_update = counts["n"] ** 2 + 2 * counts["n"]
        for name in trained.KINDS:
            assert counts[name] - counts["pre-norm"] == counts["updates"] * per_update, (name, counts)
            assert counts[f"{name}: branches"] == counts["pre-norm"], (name, counts)

    claim.check(adds, counts)
    extra = counts["hyper-connections"] - counts["pre-norm"]
    claim.record(
        updates=counts["updates"],
        blocks=counts["updates"] // 2,
        n=counts["n"],
        extra=extra,
        prenorm=counts["pre-norm"],
        extra_percent=100 * extra / counts["pre-norm"],
        sinkhorn_extra=counts["Sinkhorn mixing"] - counts["pre-norm"],
    )
