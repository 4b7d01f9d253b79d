"""Claims of "The gradient highway" about PyTorch's default initialisation of nn.Linear."""

import pytest

from sitekit.margins import below
from snippets.gradient_highway import default_init as snippet

PAGE = "module/gradient-highway.md"

# 64 layers × 128² weights: the sample variance's relative standard error is ~0.1 % (uniform) to ~0.14 %
# (normal), so a measured variance within 2 % of its formula is the formula, and one sixth apart is not.
# Their ratio, which the sentence states as one sixth, has a relative standard error of ~0.17 %: 2 % again.
TOLERANCE = 0.02


@pytest.mark.claim(
    "PyTorch's default nn.Linear weights are uniform on ±1/√fan_in, variance 1/(3·fan_in): "
    "one sixth of He initialisation's 2/fan_in.",
    page=PAGE,
    device_independent="samples the initial weights on the CPU generator, whatever the device",
)
def test_default_linear_init_is_not_he(claim, device, seeds):
    r = snippet.measure(device, seed=seeds.first())

    def variance_is(measured: float, expected: float) -> None:
        below("|measured variance / formula − 1|", abs(measured / expected - 1), TOLERANCE)

    def ratio_is(default: float, he: float, formula_default: float, formula_he: float) -> None:
        """The sentence's "one sixth": the two measured variances' ratio against the two formulas' ratio."""
        below(
            "|measured default/He variance ÷ formula ratio − 1|",
            abs((default / he) / (formula_default / formula_he) - 1),
            TOLERANCE,
        )

    claim.check(variance_is, r.default_variance, r.formula_default)
    claim.check(variance_is, r.he_variance, r.formula_he)
    claim.check(ratio_is, r.default_variance, r.he_variance, r.formula_default, r.formula_he)
    # Uniform on ±1/√fan_in never leaves its support: a bound that holds exactly, not a measured threshold.
    assert r.max_abs_weight <= r.bias_bound and r.max_abs_bias <= r.bias_bound
    claim.rejects(
        variance_is, r.default_variance, r.formula_he, because="the default init's weights against He's variance"
    )
    claim.rejects(variance_is, r.he_variance, r.formula_default, because="He-initialised weights against the default's")
    claim.record(
        layers=snippet.weight_variance.__defaults__[-1],  # fresh layers pooled per variance estimate
        fan_in=r.fan_in,
        default_variance=r.default_variance,
        formula_default=r.formula_default,
        he_variance=r.he_variance,
        formula_he=r.formula_he,
        ratio=r.he_variance / r.default_variance,
        default_over_he=r.default_variance / r.he_variance,  # the sentence's "one sixth"
        # Per-layer second-moment factors fan_in · Var(W) of the two formulas (1/3 and 2), which the pages
        # multiply along a branch; and the ReLU's measured share of the second moment, a reading (not asserted).
        default_gain=r.formula_default * r.fan_in,
        he_gain=r.formula_he * r.fan_in,
        relu_factor=r.relu_factor,
        bound=r.bias_bound,
        tolerance=TOLERANCE,
    )
