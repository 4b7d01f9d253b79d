"""Claims of "The degradation problem" computed from published depths and error rates.

The numbers are sourced facts (facts/facts.toml) and the claim is arithmetic on them: it holds by
construction, so it is marked an identity and no counterfactual is staged. What it checks is that the
snippet's arithmetic, whose result the page shows, agrees with the facts' own formulas.
"""

import math

import pytest

from sitekit import facts
from snippets.degradation import depth_records as snippet

PAGE = "module/degradation.md"


@pytest.mark.claim(
    "ResNet-152 has 8.0× the weight layers of VGG-19 (152 / 19), and the ILSVRC 2015 winner's 3.57 % "
    "top-5 error is 46 % below GoogLeNet's 6.66 % of 2014.",
    page=PAGE,
    device_independent="arithmetic on published numbers; no tensor is involved",
    identity="arithmetic on sourced facts: a ratio of two published depths and one minus a ratio of two "
    "published error rates",
)
def test_resnet152_is_eight_times_deeper_than_vgg19(claim, device):
    reg = facts.registry()
    r = snippet.measure(device, fact=reg.value)

    def as_the_facts_compute_it(ratio: float, drop: float) -> None:
        assert ratio == reg.value("resnet152_over_vgg19"), ratio
        assert math.isclose(100 * drop, reg.value("ilsvrc_relative_drop"), rel_tol=1e-12), drop

    claim.check(as_the_facts_compute_it, r.resnet_over_vgg, r.relative_error_drop)
    claim.record(
        resnet_over_vgg=r.resnet_over_vgg,
        relative_error_drop=r.relative_error_drop,
        top5_error=r.top5_error,
        layers={"columns": ["network", "weight layers"], "rows": [[k, v] for k, v in r.layers.items()]},
    )
