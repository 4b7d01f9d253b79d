"""Claims of "Other skip patterns" about the highway block: how near it gets to the identity, and its parameters."""

import math
from collections.abc import Callable

import pytest

from sitekit import runs
from sitekit.margins import above, below
from snippets.skip_patterns import highway as snippet

PAGE = "module/skip-patterns.md"


@pytest.fixture(scope="module")
def result(device, seeds):
    return snippet.measure(device, seed=seeds.first())


DECAY_TOL = 0.01


def table(r: snippet.Result) -> dict:
    cols = [
        "b_T",
        "largest T",
        "largest size of T·(H(x) − x), exact",
        "largest size of y − x, computed",
        "y == x (float64)",
        "y == x (float32)",
    ]
    return {"columns": cols, "rows": r.rows}


@pytest.mark.claim(
    "A highway block is never exactly the identity at a finite gate bias: y − x = T·(H(x) − x) with T > 0, "
    "so the deviation shrinks like e^(b_T) (×e^−10 from b_T = −10 to −20) but only reaches 0 in the limit.",
    page=PAGE,
)
def test_highway_block_is_identity_only_in_the_limit(claim, device, seeds, result):
    def never_exact(deviations: list[float]) -> None:
        assert all(dev > 0.0 for dev in deviations), deviations

    def shrinks_like_exp(gates: list[float]) -> None:
        """gates: max T at a bias and at the bias ten units lower."""
        # T = σ(z + b_T) ≈ e^(z + b_T) once z + b_T ≪ 0: ten units of b_T scale it by e^−10, up to a relative
        # e^(z − 10) (about 1e-3 for this gate's largest pre-activation z) from the sigmoid's curvature.
        decay = gates[1] / gates[0]
        below("|(max T at b_T − 10) / (max T at b_T) / e^−10 − 1|", abs(decay / math.exp(-10) - 1), DECAY_TOL)

    rows = {row[0]: row for row in result.rows}
    claim.check(never_exact, [row[2] for row in result.rows])
    for b, _, predicted, computed, *_ in result.rows:
        assert abs(computed - predicted) <= 1e-15, (b, computed, predicted)  # a few float64 ulps of |x| ~ 2
    claim.check(shrinks_like_exp, [rows[-10.0][1], rows[-20.0][1]])
    claim.rejects(
        never_exact, [result.zero_init_residual_deviation], because="a residual block with a zeroed last layer"
    )
    # The alternative is its own run: fresh blocks at b_T = 0 and −10, built as the sweep builds them.
    from_zero = runs.run(snippet.largest_gate, [0.0, -10.0], device, seed=seeds.first(), d=result.d, n=result.n)
    claim.rejects(
        shrinks_like_exp, from_zero, because="the same ten units of b_T from b_T = 0, where σ is not yet exponential"
    )
    decay = rows[-20.0][1] / rows[-10.0][1]
    claim.record(
        table=table(result),
        decay=decay,
        exp_minus_10=math.exp(-10),
        residual_zero_init=result.zero_init_residual_deviation,
        d=result.d,
        decay_from=-10.0,
        decay_to=-20.0,
        lowest_bias=min(rows),
        decay_tolerance=DECAY_TOL,
    )


@pytest.mark.claim(
    "In floating point the computed y equals x bit for bit in just those rows of the sweep where T·|H(x) − x| is "
    "below half a unit in the last place of x: from b_T = −40 in float32 and from b_T = −80 in float64.",
    page=PAGE,
    exact="the computed y is torch.equal to x (bit for bit) from the stated b_T down the sweep, and not above it; "
    "the largest T·|H(x) − x| in units of the last place of x is below 1/2 in those rows and above it in the others",
)
def test_highway_output_rounds_to_x_below_half_an_ulp(claim, result):
    def first_bitwise(column: int) -> float:
        return next(row[0] for row in result.rows if row[column])

    def switches_at(b: float) -> Callable[[list[float], list[bool], list[float]], None]:
        def check(biases: list[float], bitwise: list[bool], ulps: list[float]) -> None:
            """y == x from b_T = b downwards in the sweep, nowhere above it, and exactly where the largest
            T·|H(x) − x| is under half a unit in the last place of x."""
            assert all(same == (bias <= b) for bias, same in zip(biases, bitwise, strict=True)), (b, bitwise)
            kept = [u for u, same in zip(ulps, bitwise, strict=True) if same]
            changed = [u for u, same in zip(ulps, bitwise, strict=True) if not same]
            below("largest T·|H − x| in ulps of x, rows where y == x", kept, 0.5)
            above("largest T·|H − x| in ulps of x, rows where y != x", changed, 0.5)

        return check

    biases = [row[0] for row in result.rows]
    float32, float64 = [row[5] for row in result.rows], [row[4] for row in result.rows]
    in_float32, in_float64 = switches_at(-40.0), switches_at(-80.0)
    claim.check(in_float32, biases, float32, result.ulps["float32"])
    claim.check(in_float64, biases, float64, result.ulps["float64"])
    claim.rejects(
        in_float32, biases, float64, result.ulps["float64"], because="the float64 sweep, whose half-ulp is far smaller"
    )
    claim.rejects(in_float64, biases, float32, result.ulps["float32"], because="the float32 sweep")
    claim.record(float32_from=first_bitwise(5), float64_from=first_bitwise(4), ulps=result.ulps)


@pytest.mark.claim(
    "The gate costs d² + d parameters per block (W_T and b_T): it doubles a highway layer over a residual block "
    "with the same one-layer H, and adds 12.6% to the residual-block page's MLP block of expansion 4.",
    page=PAGE,
    exact="integer parameter counts of the built blocks, and their ratio to three decimals",
)
def test_highway_gate_adds_d_squared_plus_d_parameters(claim, result):
    d, p = result.d, result.params

    def gate_costs(extra: int) -> None:
        assert extra == d * d + d, (extra, d * d + d)

    claim.check(gate_costs, p["highway"] - p["residual, same H"])
    assert p["highway"] == 2 * p["residual, same H"]  # H and the gate are both d × d linear maps with a bias
    share = p["highway gate"] / p["residual MLP, e = 4"]
    assert round(share, 3) == 0.126, share
    claim.rejects(gate_costs, p["residual shortcut"], because="a residual block, whose identity shortcut is free")
    claim.record(
        d=d,
        gate=p["highway gate"],
        highway=p["highway"],
        residual_same_h=p["residual, same H"],
        mlp_e4=p["residual MLP, e = 4"],
        mlp_expansion=result.mlp_expansion,
        highway_over_residual=p["highway"] / p["residual, same H"],
        share_of_mlp=share,
    )
