"""Claims of "Depth versus width" about how a residual MLP block's size scales with its widths."""

from collections.abc import Callable

import pytest

from snippets.depth_width import mlp_width as snippet

PAGE = "module/depth-vs-width.md"
BASE, HIDDEN, BOTH = snippet.CONFIGS


def label(r: snippet.Result, name: str) -> str:
    """'base (d = 256, h = 1024)': the configuration's name and the widths read off the block built."""
    d, h = r.widths[name]
    return f"{name} (d = {d}, h = {h})"


def table(r: snippet.Result) -> dict:
    rows = [[label(r, n), w, b, w + b, r.weight_ratio[n], round(r.total_ratio[n], 4)] for n, (w, b) in r.counts.items()]
    return {"columns": ["block", "weights", "biases", "total", "weights ÷ base", "total ÷ base"], "rows": rows}


# The blocks are built on the meta device and only their shapes are counted (parameters by numel, multiply-
# accumulates by torch's FLOP counter on a meta token): no arithmetic runs on any device, so the counts and
# ratios are the same wherever the suite runs.
INDEPENDENT = "parameter and multiply-accumulate counts of blocks built on the meta device (shapes only)"


@pytest.fixture(scope="module")
def counts(seeds):
    return snippet.measure(seed=seeds.first())  # no randomness: shapes only


def ratio_is(expected: float) -> Callable[[float], None]:
    def check(measured: float) -> None:
        assert measured == expected, (measured, expected)

    return check


DOUBLES, QUADRUPLES = ratio_is(2.0), ratio_is(4.0)


@pytest.mark.claim(
    "Doubling the hidden width h of a residual MLP block at fixed stream width d doubles its weights "
    "(exactly 2×; 1.9995× with biases), it does not quadruple them.",
    page=PAGE,
    device_independent=INDEPENDENT,
    exact="ratios of integer parameter counts (2.0 exactly for the weights; a fixed rational with biases)",
)
def test_doubling_hidden_width_doubles_block_weights(claim, counts):
    r = counts
    claim.check(DOUBLES, r.weight_ratio[HIDDEN])
    assert 1.99 < r.total_ratio[HIDDEN] < 2.0
    claim.check(DOUBLES, r.macs_ratio[HIDDEN])
    claim.rejects(DOUBLES, r.weight_ratio[BOTH], because="doubling both widths, which quadruples")
    claim.record(
        table=table(r),
        weight_ratio=r.weight_ratio[HIDDEN],
        total_ratio=r.total_ratio[HIDDEN],
        macs_ratio=r.macs_ratio[HIDDEN],
        d=r.widths[BASE][0],
        h=r.widths[BASE][1],
        h_doubled=r.widths[HIDDEN][1],
        widths=r.widths,  # (d, h) of each block as built: the numbers in the table's labels
        macs=r.macs,
    )


@pytest.mark.claim(
    "Quadrupling takes doubling both widths: d and h together give exactly 4× the weights (and 4× the "
    "multiply-accumulates per token).",
    page=PAGE,
    device_independent=INDEPENDENT,
    exact="ratios of integer parameter and multiply-accumulate counts, 4.0 exactly",
)
def test_doubling_stream_and_hidden_width_quadruples_block_weights(claim, counts):
    r = counts
    claim.check(QUADRUPLES, r.weight_ratio[BOTH])
    claim.check(QUADRUPLES, r.macs_ratio[BOTH])
    claim.rejects(QUADRUPLES, r.weight_ratio[HIDDEN], because="doubling the hidden width alone")
    claim.record(weight_ratio=r.weight_ratio[BOTH], total_ratio=r.total_ratio[BOTH], macs_ratio=r.macs_ratio[BOTH])
