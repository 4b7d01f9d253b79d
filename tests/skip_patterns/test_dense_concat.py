"""Claims of "Other skip patterns" about concatenation: its width, and the activation memory backward keeps."""

import pytest

from sitekit.margins import between
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

    long_depth = result.long_depth  # counted from the long stack's layers
    claim.check(widths_are, result.widths)
    claim.check(widths_are, {long_depth: result.width_at_100})
    assert result.width_at_100 != long_depth * k  # l·k alone leaves out the k0 input features
    claim.rejects(widths_are, result.residual_widths, because="a residual stack, whose width stays k0")
    claim.record(
        depths=sorted(result.widths),
        long_depth=long_depth,
        k0=k0,
        k=k,
        widths=result.widths,
        residual_widths=result.residual_widths,
        width_at_100=result.width_at_100,
        l_times_k=long_depth * k,
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
    "multiplies the dense stack's by 3.73 (between a linear law's 2 and a pure square's 4) and the residual "
    "stack's by 2; at L = 64 the dense stack keeps 8.625× as much.",
    page=PAGE,
    exact="the bytes of the tensors autograd saves (integers) equal the formulas; the doubling ratios are theirs",
)
def test_dense_stack_memory_grows_quadratically_residual_linearly(claim, result):
    def matches_formula(measured: dict[int, int], predicted: dict[int, int]) -> None:
        assert measured == predicted, (measured, predicted)

    def doubling_between_linear_and_square(series: dict[int, int]) -> None:
        """Over the sweep's last two depths, a linear law multiplies by their ratio, a pure square by its square."""
        lo, hi = sorted(series)[-2:]
        between(f"bytes at L = {hi} / bytes at L = {lo}", series[hi] / series[lo], hi / lo, (hi / lo) ** 2)

    for kind in ("dense", "residual"):
        claim.check(matches_formula, result.saved[kind], result.predicted[kind])
    claim.check(doubling_between_linear_and_square, result.saved["dense"])
    dense, res = result.saved["dense"], result.saved["residual"]
    lo, hi = sorted(dense)[-2:]  # the sweep's last two depths, a doubling
    assert hi == 2 * lo, (lo, hi)
    assert res[hi] == 2 * res[lo], (res[lo], res[hi])  # the linear law, exactly
    claim.rejects(matches_formula, result.saved["dense"], result.predicted["residual"], because="a linear law")
    claim.rejects(
        doubling_between_linear_and_square,
        result.saved["residual"],
        because="the residual stack, whose doubling ratio is the linear law's",
    )
    claim.record(
        table=table(result),
        dense_doubling=dense[hi] / dense[lo],
        residual_doubling=res[hi] / res[lo],
        ratio_64=dense[hi] / res[hi],
        n=result.n,
        k0=result.k0,
        k=result.k,
        doubled_from=lo,
        doubled_to=hi,
        series={kind: {str(L): b for L, b in result.saved[kind].items()} for kind in result.saved},
    )
