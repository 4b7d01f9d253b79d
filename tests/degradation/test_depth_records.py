"""Claims of "The degradation problem" computed from published depths and error rates."""

import pytest

from snippets.degradation import depth_records as snippet

PAGE = "module/degradation.md"


@pytest.mark.claim(
    "ResNet-152 has 8.0× the weight layers of VGG-19 (152 / 19), and the ILSVRC 2015 winner's 3.57 % "
    "top-5 error is 46 % below GoogLeNet's 6.66 % of 2014.",
    page=PAGE,
    device_independent="arithmetic on published numbers; no tensor is involved",
    exact="a ratio of two integers compared with == and a ratio of two published rates rounded to two places",
)
def test_resnet152_is_eight_times_deeper_than_vgg19(claim, device):
    r = snippet.measure(device)

    def eight_times(ratio: float) -> None:
        assert ratio == 8.0, ratio

    claim.check(eight_times, r.resnet_over_vgg)
    assert round(r.relative_error_drop, 2) == 0.46, r.relative_error_drop
    layers = snippet.WEIGHT_LAYERS
    claim.rejects(
        eight_times,
        layers["ResNet-152 (2015)"] / layers["GoogLeNet (2014)"],
        because="GoogLeNet's 22 layers in place of VGG-19's 19",
    )
    claim.record(
        resnet_over_vgg=r.resnet_over_vgg,
        relative_error_drop=r.relative_error_drop,
        cifar_depth_ratio=r.cifar_depth_ratio,
        miniature_depth_ratio=r.miniature_depth_ratio,
        top5_error=snippet.TOP5_TEST_ERROR,
        layers={"columns": ["network", "weight layers"], "rows": [[k, v] for k, v in snippet.WEIGHT_LAYERS.items()]},
    )
