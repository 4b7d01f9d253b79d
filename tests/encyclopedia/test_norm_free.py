"""Claims of the entry "Normalisation-Free and Zero-Initialised Branches": the NF block's variance bookkeeping, and
what a zero-initialised branch (LoRA's B = 0, DiT's adaLN-Zero gate) starts as and where its first gradient goes."""

import pytest

from sitekit.margins import above, below
from snippets.encyclopedia import norm_free as snippet

PAGE = "encyclopedia/norm-free.md"
CPU_FLOAT64 = "the snippet builds every block in float64 on the CPU whatever the device"
SEEDS = 5
TRACKS = 0.1  # the measured variance within this fraction of beta_l² at every block
OFF = 1.5  # far outside the bookkeeping: the last block's variance more than this times beta_L²


@pytest.fixture(scope="module")
def r(seeds):
    ids = seeds(SEEDS)
    return snippet.measure(seed=ids[0], seeds=len(ids))


@pytest.mark.claim(
    "In a stack of 50 normaliser-free blocks h + α·f(h/β) with α = 0.2, scaled weight standardisation and the ReLU "
    "gain, the stream's variance stays within 10% of β² = 1 + l·α² at every block l, in every one of 5 seeds; the "
    "same blocks reading h without the division by β leave the bookkeeping: by block 50 their variance is more than "
    "1.5× β², where compounding by (1 + α²) per block predicts 2.37×.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
)
def test_nf_blocks_follow_their_variance_bookkeeping(claim, r):
    def tracks(variances: list[list[float]]) -> None:
        below(
            "|Var(h_l) ÷ β_l² − 1|, every block and seed",
            [abs(v / p - 1) for vs in variances for v, p in zip(vs[1:], r.predicted[1:], strict=True)],
            TRACKS,
        )

    def compounds(variances: list[list[float]]) -> None:
        above("Var(h_L) ÷ β_L² at the last block", [vs[-1] / r.predicted[-1] for vs in variances], OFF)

    claim.check(tracks, r.variance["scaled"])
    claim.rejects(tracks, r.variance["unscaled"], because="the same blocks without the division by β")
    claim.check(compounds, r.variance["unscaled"])
    claim.rejects(compounds, r.variance["scaled"], because="the blocks that divide by β")
    scaled = [v / p for vs in r.variance["scaled"] for v, p in zip(vs[1:], r.predicted[1:], strict=True)]
    claim.record(
        blocks=r.blocks,
        d=r.d,
        alpha=r.alpha,
        seeds=len(r.seeds),
        tracks=TRACKS,
        compounded_over_beta=r.compounded[-1] / r.predicted[-1],
        off=OFF,
        ratio_min=min(scaled),
        ratio_max=max(scaled),
        beta_last=r.predicted[-1],
        compounded_last=r.compounded[-1],
        unscaled_last=[vs[-1] for vs in r.variance["unscaled"]],
        unscaled_over=min(vs[-1] / r.predicted[-1] for vs in r.variance["unscaled"]),
        curves={name: [list(vs) for vs in by] for name, by in r.variance.items()},
        predicted=r.predicted,
    )


@pytest.mark.claim(
    "At their published starts, a LoRA layer with B = 0 returns its base layer's output and a block gated by "
    "adaLN-Zero returns its input, bit for bit (float64, 5 seeds); with B or the gate's weights nudged off zero by "
    "0.001 times a standard normal draw, neither does, in any seed.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="B·A·x with B = 0 is exactly 0, and x + 0·f(LN(x)) is exactly x: adding an exact zero changes no bit",
)
def test_zero_initialised_branches_start_as_the_identity(claim, r):
    def unchanged(lora: list[bool], adaln: list[bool]) -> None:
        assert all(lora) and all(adaln), (lora, adaln)

    def all_differ(lora: list[bool], adaln: list[bool]) -> None:
        assert not any(lora) and not any(adaln), (lora, adaln)

    claim.check(unchanged, r.lora_same, r.adaln_same)
    claim.rejects(unchanged, r.lora_nudged_same, r.adaln_same, because="LoRA with B nudged off zero")
    claim.rejects(unchanged, r.lora_same, r.adaln_nudged_same, because="the gate nudged off zero")
    claim.check(all_differ, r.lora_nudged_same, r.adaln_nudged_same)
    claim.rejects(all_differ, r.lora_same, r.adaln_same, because="the published starts")
    claim.record(seeds=len(r.seeds), nudge=snippet.NUDGE, rank=snippet.RANK)


@pytest.mark.claim(
    "At those starts the first gradient reaches one side only: LoRA's A and the gated block's branch weights get a "
    "gradient of exactly 0, while B and the gate's weights get a non-zero one (5 seeds), so training starts by moving "
    "B and the gate; with the zero nudged off zero, A and the branch get a gradient too, in every seed.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="∂(B·A·x)/∂A carries a factor B, and ∂(g·f)/∂f a factor g: both are exactly 0 where B and g are",
)
def test_zero_initialised_branches_move_the_zero_first(claim, r):
    def one_sided(stuck: list[float], moving: list[float]) -> None:
        assert all(v == 0.0 for v in stuck), stuck
        assert all(v > 0.0 for v in moving), moving

    claim.check(one_sided, r.lora_grad_a, r.lora_grad_b)
    claim.check(one_sided, r.adaln_grad_f, r.adaln_grad_gate)
    claim.rejects(one_sided, r.lora_nudged_grad_a, r.lora_grad_b, because="LoRA with B nudged off zero")
    claim.rejects(one_sided, r.adaln_nudged_grad_f, r.adaln_grad_gate, because="the gate nudged off zero")

    def all_move(lora_a: list[float], branch: list[float]) -> None:
        assert all(v > 0.0 for v in lora_a) and all(v > 0.0 for v in branch), (lora_a, branch)

    claim.check(all_move, r.lora_nudged_grad_a, r.adaln_nudged_grad_f)
    claim.rejects(all_move, r.lora_grad_a, r.adaln_grad_f, because="the published starts")
    claim.record(
        seeds=len(r.seeds),
        stuck_max=max(*r.lora_grad_a, *r.adaln_grad_f),
        lora_grad_b_min=min(r.lora_grad_b),
        gate_grad_min=min(r.adaln_grad_gate),
        nudged_grad_a_min=min(r.lora_nudged_grad_a),
        nudged_grad_f_min=min(r.adaln_nudged_grad_f),
    )
