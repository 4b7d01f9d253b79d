"""Claims of "Depth versus width" about DenseNet-121 built layer by layer."""

import pytest
import torch

from snippets.depth_width import densenet as snippet
from snippets.depth_width import model_zoo

PAGE = "module/depth-vs-width.md"


class NewFeaturesOnly(snippet.DenseBlock):
    """The counterfactual block: it hands on only its layers' new features, not its input with them."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = [x]
        for layer in self.layers:
            features.append(layer(torch.cat(features, dim=1)))
        return torch.cat(features[1:], dim=1)  # (N, layers·k, H, W)


def run_widths(block_type: type[snippet.DenseBlock], built: list[list[int]]) -> list[int]:
    """Channels out of each dense block of DenseNet-121's shape, run on the meta device (shapes only)."""
    with torch.device("meta"):
        return [block_type(k0, n)(torch.zeros(1, k0, 8, 8)).shape[1] for k0, n, _ in built]


@pytest.mark.claim(
    "The DenseNet-121 built here has exactly torchvision's 7,978,856 parameters, 121 weighted layers, "
    "and dense blocks that end at k0 + n·k channels: 256, 512, 1024 and 1024.",
    page=PAGE,
    exact="an integer parameter count, a layer count and channel widths of the built model (no randomness)",
)
def test_built_densenet121_matches_torchvision_parameter_count(claim, device, seeds):
    r = snippet.measure(device, seed=seeds.first())

    def widths_are(widths: list[int], expected: list[int]) -> None:
        assert widths == expected, (widths, expected)

    assert r.parameters == model_zoo.TORCHVISION["densenet121"][0], r.parameters
    assert r.block_output_shape == [2, 256, 8, 8] and r.depth == 121
    ends = [end for _, _, end in r.block_widths]
    claim.check(widths_are, ends, [k0 + n * 32 for k0, n, _ in r.block_widths])
    widths_are(ends, [256, 512, 1024, 1024])
    assert run_widths(snippet.DenseBlock, r.block_widths) == ends  # the built blocks, run, agree
    claim.rejects(
        widths_are,
        run_widths(NewFeaturesOnly, r.block_widths),
        [k0 + n * 32 for k0, n, _ in r.block_widths],
        because="blocks that hand on only their new features (n·k), run on the meta device",
    )
    claim.record(
        parameters=r.parameters,
        depth=r.depth,
        widths={"columns": ["k0 (in)", "layers n", "k0 + n·k (out)"], "rows": r.block_widths},
        k=(ends[0] - r.block_widths[0][0]) // r.block_widths[0][1],
        block_layers=[n for _, n, _ in r.block_widths],
        dense_layers=sum(n for _, n, _ in r.block_widths),
    )
