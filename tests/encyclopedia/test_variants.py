"""Claims of the entry "Variants of the Residual Stream, Compared" about the variants' algebra: where each one
starts as Lab 2's pre-norm model, bit for bit (float64), and what each costs in parameters."""

import pytest

from sitekit.margins import below
from snippets.encyclopedia import variants as snippet
from snippets.lab_transformer import stream

PAGE = "encyclopedia/variants.md"
CPU_FLOAT64 = "the snippet builds every model in float64 on the CPU whatever the device"
COUNTS = "parameter counts of models built on the meta device: arithmetic on shapes"
BUDGET = 0.03  # every variant's parameter count within this fraction of the pre-norm model's


@pytest.fixture(scope="module")
def runs(seeds):
    return [snippet.measure(seed=s) for s in seeds(3)]


def bit_for_bit(deviations: list[float]) -> None:
    assert all(d == 0.0 for d in deviations), f"the two models' outputs differ: {deviations}"


@pytest.mark.claim(
    "The comparison's pre-norm model computes Lab 2's pre-norm TinyLM bit for bit (float64, 3 seeds); Lab 2's "
    "post-norm model from the same seed does not.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="the same modules, drawn in the same order from the seed, applied in the same order: Lab 2's "
    "shortcut weight and branch scale are 1, and multiplying by 1 is exact",
)
def test_the_comparison_starts_from_lab_twos_model(claim, runs):
    claim.check(bit_for_bit, [r.lab_identity for r in runs])
    claim.rejects(bit_for_bit, [r.lab_post_norm for r in runs], because="Lab 2's post-norm model from the seed")
    claim.record(seeds=len(runs), blocks=runs[0].depth, d=stream.D)


@pytest.mark.claim(
    "A DenseFormer whose averages start one-hot on the newest block's output computes the pre-norm model bit for "
    "bit (float64, 3 seeds); with every average uniform over the outputs so far it does not.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="0 times a finite number is 0 and 1 times it is itself, so the weighted sum returns h_k exactly",
)
def test_denseformer_at_its_init_is_the_plain_stack(claim, runs):
    claim.check(bit_for_bit, [r.dense_identity for r in runs])
    claim.rejects(bit_for_bit, [r.dense_uniform for r in runs], because="uniform depth-weighted averages")
    claim.record(seeds=len(runs), dwa_weights=runs[0].dwa_weights, blocks=runs[0].depth)


@pytest.mark.claim(
    "LAuReL's low-rank shortcut with B = 0 computes the pre-norm model bit for bit (float64, 3 seeds); with B drawn "
    "at random it does not.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="B A x is exactly 0 when B is 0, and adding 0 leaves a float unchanged",
)
def test_laurel_with_b_zero_is_the_plain_stack(claim, runs):
    claim.check(bit_for_bit, [r.laurel_identity for r in runs])
    claim.rejects(bit_for_bit, [r.laurel_random for r in runs], because="B drawn at random")
    claim.record(seeds=len(runs), rank=runs[0].rank, b_start=0)


@pytest.mark.claim(
    "ResFormer leaves the first block's output unchanged bit for bit, since its values are mixed with themselves, "
    "and with the weight on v_1 at 0 the whole model is the pre-norm one (float64, 3 seeds); the second block's "
    "output, with the weight at 0.5, changes.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="(1 - λ) v + λ v = v exactly for λ = 1/2 (halving and doubling are exact in binary floating point), "
    "and 1·v + 0·v_1 = v",
)
def test_resformer_changes_only_the_blocks_after_the_first(claim, runs):
    claim.check(bit_for_bit, [d for r in runs for d in (r.value_first, r.value_off)])
    claim.rejects(bit_for_bit, [r.value_later for r in runs], because="the second block's output, λ = 0.5")
    claim.record(seeds=len(runs), lam=runs[0].lam, lam_off=0)


@pytest.mark.claim(
    "With the MLP's last layer zeroed, the parallel block computes the sequential pre-norm block bit for bit, "
    "through the whole model (float64, 3 seeds); with the MLP as initialised it does not.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    identity="with the MLP writing exactly 0, the sequential block's second update adds 0, and the parallel "
    "block's attention reads the same normalised copy of the stream as the sequential one's",
)
def test_parallel_block_with_the_mlp_zeroed_is_the_sequential_one(claim, runs):
    claim.check(bit_for_bit, [r.parallel_zeroed for r in runs])
    claim.rejects(bit_for_bit, [r.parallel_live for r in runs], because="the MLP as initialised")
    claim.record(seeds=len(runs))


@pytest.mark.claim(
    "Every variant has within 3% of the pre-norm model's parameters at Lab 2's vocabulary; LAuReL at full rank "
    "(r = d) would not.",
    page=PAGE,
    device_independent=COUNTS,
)
def test_the_variants_have_the_same_parameter_budget(claim, runs):
    r = runs[0]

    def within(base: int, counts: list[int]) -> None:
        below("|variant's parameters ÷ pre-norm's − 1|", [abs(c / base - 1) for c in counts], BUDGET)

    others = [n for n in snippet.VARIANTS if n != "pre-norm"]
    claim.check(within, r.params["pre-norm"], [r.params[n] for n in others])
    claim.rejects(within, r.params["pre-norm"], [r.full_rank_params], because="LAuReL at full rank, r = d")
    base = r.params["pre-norm"]
    claim.record(
        params=r.params,
        base=base,
        budget=BUDGET,
        dwa_weights=r.dwa_weights,
        laurel_extra=r.params["LAuReL"] - base,
        parallel_fewer=base - r.params["parallel"],
        full_rank_extra=r.full_rank_params - base,
        rank=r.rank,
        vocab=r.vocab,
        largest=max(abs(r.params[n] / base - 1) for n in others),
        table={
            "columns": ["variant", "parameters", "change from pre-norm"],
            "rows": [[n, r.params[n], f"{r.params[n] - base:+d}"] for n in snippet.VARIANTS],
        },
    )
