"""Claims of "Other skip patterns" about concatenation: its width, and the activation memory backward keeps."""

import pytest

from snippets.skip_patterns import dense_concat as snippet

PAGE = "module/skip-patterns.md"


@pytest.fixture(scope="module")
def result(device, seeds):
    return snippet.measure(device, seed=seeds.first())


@pytest.mark.claim(
    "After l concatenating layers the feature width is k0 + l·k (k0 = 64, k = 32, l = 4…64); at depth 100 "
    "it is 3264, not the 3200 that l·k alone gives.",
    page=PAGE,
    exact="the output widths of the built stacks (integer shapes) equal k0 + l·k",
)
def test_dense_width_is_k0_plus_l_times_k(claim, result):
    k0, k = result.k0, result.k

    def widths_are(widths: dict[int, int]) -> None:
        assert all(w == k0 + depth * k for depth, w in widths.items()), widths

    claim.check(widths_are, result.widths)
    claim.check(widths_are, {100: result.width_at_100})
    assert result.width_at_100 != 100 * k  # l·k alone leaves out the k0 input features
    claim.rejects(widths_are, result.residual_widths, because="a residual stack, whose width stays k0")
    claim.record(
        depths=sorted(result.widths),
        long_depth=100,  # the depth DenseStack(k0, k, 100) in measure() is built with
        k0=k0,
        k=k,
        widths=result.widths,
        residual_widths=result.residual_widths,
        width_at_100=result.width_at_100,
        l_times_k=100 * k,
    )


def table(r: snippet.Result) -> dict:
    rows = []
    for depth in snippet.DEPTHS:
        dense, res = r.saved["dense"][depth], r.saved["residual"][depth]
        rows.append([depth, round(dense / 2**20, 3), round(res / 2**20, 3), round(dense / res, 2)])
    return {"columns": ["depth L", "dense (MiB)", "residual (MiB)", "dense ÷ residual"], "rows": rows}


@pytest.mark.claim(
    "The activations a naive dense stack keeps for backward grow quadratically with depth, a residual "
    "stack's linearly: both match their formulas to the byte at L = 4…64, and doubling L from 32 to 64 "
    "multiplies them by 3.73 and 2.",
    page=PAGE,
    exact="the bytes of the tensors autograd saves (integers) equal the formulas; the doubling ratios are theirs",
)
def test_dense_stack_memory_grows_quadratically_residual_linearly(claim, result):
    def matches_formula(measured: dict[int, int], predicted: dict[int, int]) -> None:
        assert measured == predicted, (measured, predicted)

    for kind in ("dense", "residual"):
        claim.check(matches_formula, result.saved[kind], result.predicted[kind])
    dense, res = result.saved["dense"], result.saved["residual"]
    assert res[64] == 2 * res[32] and res[32] == 2 * res[16]
    assert dense[64] / dense[32] > 3.5
    claim.rejects(matches_formula, result.saved["dense"], result.predicted["residual"], because="a linear law")
    claim.record(
        table=table(result),
        dense_doubling=dense[64] / dense[32],
        residual_doubling=res[64] / res[32],
        ratio_64=dense[64] / res[64],
        n=result.n,
        k0=result.k0,
        k=result.k,
        doubled_from=32,
        doubled_to=64,
        series={kind: {str(L): b for L, b in result.saved[kind].items()} for kind in result.saved},
    )
