"""Claims of "The residual block" about width-changing blocks."""

import pytest

from snippets.residual_block import projection_shortcut as snippet

PAGE = "module/residual-block.md"


@pytest.fixture(scope="module")
def r(device, seeds):
    """One run of the experiment, shared by every claim below."""
    return snippet.measure(device, seed=seeds.first())


@pytest.mark.claim(
    "A projection block maps (N, 128) to (N, 256) and its shortcut holds 128·256 weights.",
    page=PAGE,
    exact="a tensor shape and two parameter counts, compared with ==",
)
def test_projection_block_shape_and_parameter_count(claim, r):

    def check(output_shape: list[int], shortcut: int, total: int) -> None:
        assert output_shape == [r.input_shape[0], r.d_out]
        assert shortcut == r.d_in * r.d_out
        hidden = r.expansion * r.d_out
        assert total == r.d_in * hidden + hidden + hidden * r.d_out + r.d_out + r.d_in * r.d_out

    claim.check(check, r.output_shape, r.shortcut_parameters, r.total_parameters)
    claim.rejects(
        check,
        r.identity_output_shape,
        r.identity_shortcut_parameters,
        r.identity_total_parameters,
        because="an identity-shortcut block, without the projection",
    )
    claim.rejects(
        check,
        r.output_shape,
        r.biased_shortcut_parameters,
        r.biased_total_parameters,
        because="a shortcut with a bias",
    )
    claim.record(
        d_in=r.d_in,
        d_out=r.d_out,
        expansion=r.expansion,
        output_shape=r.output_shape,
        shortcut=r.shortcut_parameters,
        branch=r.branch_parameters,
        total=r.total_parameters,
        shortcut_share=r.shortcut_parameters / r.total_parameters,
    )


@pytest.mark.claim(
    "Adding a (N, 128) input to a (N, 256) branch output raises RuntimeError naming both sizes.",
    page=PAGE,
    exact="the exception's type and the two sizes in its message, compared as strings",
)
def test_missing_projection_raises_runtime_error(claim, r):

    def raised_size_mismatch(error_type: str, message: str) -> None:
        assert error_type == "RuntimeError"
        assert f"({r.d_in})" in message and f"({r.d_out})" in message, message

    claim.check(raised_size_mismatch, r.error_type, r.error_message)
    claim.rejects(
        raised_size_mismatch,
        r.same_width_error_type,
        r.same_width_error_message,
        because="the same addition around a branch that keeps the width",
    )
    claim.record(error=f"{r.error_type}: {r.error_message}", error_type=r.error_type, d_in=r.d_in, d_out=r.d_out)
