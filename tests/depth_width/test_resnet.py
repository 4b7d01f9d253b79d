"""Claims of "Depth versus width" about the ResNets built layer by layer."""

import pytest
import torch
from torch import nn

from sitekit import facts, runs
from snippets.depth_width import model_zoo
from snippets.depth_width import resnet as snippet

PAGE = "module/depth-vs-width.md"


def counts_match(published: dict[str, int]):
    """The check: every counted model has exactly its published parameter count (`published` bound in)."""

    def check(counted: dict[str, int]) -> None:
        for name, n in counted.items():
            assert n == published[name], (name, n, published[name])

    return check


@pytest.mark.claim(
    "The ResNet-50, -101, -152 and Wide ResNet-50-2 built here have exactly the parameter counts torchvision "
    "documents (25,557,032; 44,549,160; 60,192,808; 68,883,240); ResNet-50 maps each image to 1000 logits.",
    page=PAGE,
    exact="integer parameter counts of the built models, and the shape of ResNet-50's output (no randomness)",
)
def test_built_resnets_match_torchvision_parameter_counts(claim, device, seeds):
    r = snippet.measure(device, seed=seeds.first())
    reg = facts.registry()
    match = counts_match({n: reg.value(f"{n}_params") for n in r.parameters})  # torchvision's num_params, sourced
    claim.check(match, r.parameters)
    assert r.output_shape == {"resnet50": [2, 1000]}, r.output_shape
    assert [r.depth[n] for n in ("resnet50", "resnet101", "resnet152")] == [50, 101, 152]
    claim.rejects(
        match,
        {n: runs.run(model_zoo.state_dict_count, n) for n in r.parameters},
        because="every tensor of the state dict counted (BatchNorm's running statistics in)",
    )
    claim.record(
        parameters=r.parameters,
        depth=r.depth,
        output_shape=r.output_shape["resnet50"],
        widths={n: conv_widths(n) for n in ("resnet50", "wide_resnet50_2")},
    )


def conv_widths(name: str) -> dict[str, list[int]]:
    """Channel widths by stage: inside the bottleneck (its 3×3 convolutions) and of the stream between blocks."""
    with torch.device("meta"):
        model = snippet.resnet(**snippet.RESNETS[name])
    blocks = [m for m in model.modules() if isinstance(m, snippet.Bottleneck)]
    linear = next(m for m in model.modules() if isinstance(m, nn.Linear))
    return {
        "bottleneck": sorted({b.branch[3].out_channels for b in blocks}),  # the 3×3 convolution
        "stream": sorted({b.branch[-2].out_channels for b in blocks}),  # the last 1×1, back to the stream
        "classifier": [linear.in_features, linear.out_features],
    }
