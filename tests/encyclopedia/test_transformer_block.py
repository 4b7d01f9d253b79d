"""Claims of the encyclopedia entry about its reference transformer block."""

import pytest

from sitekit.margins import below
from snippets.encyclopedia import transformer_block as snippet

PAGE = "encyclopedia/residual-stream.md"


@pytest.fixture(scope="module")
def r(device, seeds):
    """One run of the experiment, shared by every claim below."""
    return snippet.measure(device, seed=seeds.first())


@pytest.mark.claim(
    "The pre-norm block maps a (B, T, d) stream to a (B, T, d) stream.",
    page=PAGE,
    identity="each sublayer ends in a Linear back to width d and is added to the stream, so x + f(x) has x's "
    "shape by construction (compared as lists of integers)",
)
def test_prenorm_block_keeps_shape_b_t_d(claim, r):
    def same(a: list[int], b: list[int]) -> None:
        assert a == b, f"{a} != {b}"

    claim.check(same, r.input_shape, r.output_shape)
    claim.record(input_shape=r.input_shape, output_shape=r.output_shape, d=r.d, heads=r.heads)


@pytest.mark.claim(
    "With both output projections zeroed, the pre-norm block returns its input exactly (torch.equal); "
    "the post-norm block does not.",
    page=PAGE,
    exact="x + 0 is x bit for bit when both branches output exactly zero (torch.equal)",
)
def test_prenorm_block_with_zero_output_projections_is_exact_identity(claim, r):
    def identity(is_equal: bool) -> None:
        assert is_equal

    claim.check(identity, r.prenorm_zeroed_is_identity)
    claim.rejects(identity, r.postnorm_zeroed_is_identity, because="post-norm: LayerNorm(x + 0) is not x")
    claim.record(postnorm_max_change=r.postnorm_zeroed_max_change)


@pytest.mark.claim(
    "The residual additions add no parameters: the block has exactly its sublayers' and norms' 12d² + 13d.",
    page=PAGE,
    exact="integer parameter counts: the block's equals its parts' and the formula's",
)
def test_residual_additions_add_no_parameters(claim, r):
    def no_extra(block: int, parts: int, formula: int) -> None:
        assert block == parts == formula, (block, parts, formula)

    claim.check(no_extra, r.block_parameters, r.sublayer_and_norm_parameters, r.formula_parameters)
    claim.rejects(
        no_extra,
        r.projected_parameters,
        r.sublayer_and_norm_parameters,
        r.formula_parameters,
        because="two learned d×d shortcut projections",
    )
    claim.record(d=r.d, parameters=r.block_parameters, formula=r.formula_parameters)


@pytest.mark.claim(
    "The block's output equals x' = x + Attn(LN1(x)), x'' = x' + MLP(LN2(x')) written out by hand (layer norm, "
    "per-head attention, GELU from the weights) to 1e-12 in float64; the post-norm block's does not.",
    page=PAGE,
    exact="the same arithmetic written two ways agrees to float64 rounding (every entry within 1e-12)",
)
def test_block_output_is_the_two_residual_updates(claim, r):
    tolerance = 1e-12

    def matches(error: float) -> None:
        """max |block(x) − by_hand(x)| in float64."""
        below("max |block(x) − by_hand(x)| (float64)", error, tolerance)

    claim.check(matches, r.by_hand_error)
    claim.rejects(matches, r.postnorm_by_hand_error, because="the post-norm block, which normalises after adding")
    claim.record(
        max_error=r.by_hand_error,
        postnorm_error=r.postnorm_by_hand_error,
        tolerance=tolerance,
    )


@pytest.mark.claim(
    "Attention is causal: changing the last token leaves every earlier position's output bit-for-bit unchanged.",
    page=PAGE,
    exact="the masked positions' outputs are torch.equal before and after the edit",
)
def test_attention_is_causal(claim, r):
    def causal(prefix_unchanged: bool, last_changed: bool) -> None:
        assert prefix_unchanged and last_changed

    claim.check(causal, r.causal_prefix_unchanged, r.causal_last_changed)
    claim.rejects(
        causal,
        r.noncausal_prefix_unchanged,
        r.noncausal_last_changed,
        because="the same block written out without the mask, reading future positions",
    )
    claim.record(prefix_unchanged=r.causal_prefix_unchanged)
