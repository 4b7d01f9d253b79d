"""Claims of the encyclopedia entry about its reference transformer block."""

import pytest

from snippets.encyclopedia import transformer_block as snippet

PAGE = "encyclopedia/residual-stream.md"


@pytest.fixture(scope="module")
def r(device):
    """One run of the experiment, shared by every claim below."""
    return snippet.measure(device, seed=0)


@pytest.mark.claim("The pre-norm block maps a (B, T, d) stream to a (B, T, d) stream.", page=PAGE)
def test_prenorm_block_keeps_shape_b_t_d(claim, r):
    def same(a: list[int], b: list[int]) -> None:
        assert a == b, f"{a} != {b}"

    same(r.input_shape, r.output_shape)
    claim.rejects(same, r.input_shape, [*r.input_shape[:2], 4 * r.d], because="the MLP's hidden width 4d")
    claim.record(input_shape=r.input_shape, output_shape=r.output_shape, d=r.d, heads=r.heads)


@pytest.mark.claim(
    "With both output projections zeroed, the pre-norm block returns its input exactly (torch.equal); "
    "the post-norm block does not.",
    page=PAGE,
)
def test_prenorm_block_with_zero_output_projections_is_exact_identity(claim, r):
    def identity(is_equal: bool) -> None:
        assert is_equal

    identity(r.prenorm_zeroed_is_identity)
    claim.rejects(identity, r.postnorm_zeroed_is_identity, because="post-norm: LayerNorm(x + 0) is not x")
    claim.record(postnorm_max_change=r.postnorm_zeroed_max_change)


@pytest.mark.claim(
    "The residual additions add no parameters: the block has exactly its sublayers' and norms' 12d² + 13d.",
    page=PAGE,
)
def test_residual_additions_add_no_parameters(claim, r):
    def no_extra(block: int, parts: int, formula: int) -> None:
        assert block == parts == formula, (block, parts, formula)

    no_extra(r.block_parameters, r.sublayer_and_norm_parameters, r.formula_parameters)
    learned_shortcuts = 2 * (r.d * r.d + r.d)
    claim.rejects(
        no_extra,
        r.block_parameters + learned_shortcuts,
        r.sublayer_and_norm_parameters,
        r.formula_parameters,
        because="two learned d×d shortcut projections",
    )
    claim.record(d=r.d, parameters=r.block_parameters, formula=r.formula_parameters)


@pytest.mark.claim(
    "The block's output equals x' = x + Attn(LN1(x)), x'' = x' + MLP(LN2(x')) computed by hand, exactly.",
    page=PAGE,
)
def test_block_output_is_the_two_residual_updates(claim, r):
    def equal(flag: bool) -> None:
        assert flag

    equal(r.two_updates_equal)
    claim.rejects(equal, r.postnorm_matches_equations, because="the post-norm block, which normalises after adding")
    claim.record(exact=r.two_updates_equal)


@pytest.mark.claim(
    "Attention is causal: changing the last token leaves every earlier position's output bit-for-bit unchanged.",
    page=PAGE,
)
def test_attention_is_causal(claim, r):
    def causal(prefix_unchanged: bool, last_changed: bool) -> None:
        assert prefix_unchanged and last_changed

    causal(r.causal_prefix_unchanged, r.causal_last_changed)
    claim.rejects(causal, False, True, because="attention that reads future positions")
    claim.record(prefix_unchanged=r.causal_prefix_unchanged)
