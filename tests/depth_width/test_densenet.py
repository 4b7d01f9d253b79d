"""Claims of "Depth versus width" about DenseNet-121 built layer by layer."""

import pytest

from sitekit import facts, runs
from snippets.depth_width import densenet as snippet
from snippets.depth_width import model_zoo

PAGE = "module/depth-vs-width.md"


@pytest.mark.claim(
    "The DenseNet-121 built here has exactly torchvision's 7,978,856 parameters, 121 weighted layers, "
    "and dense blocks that end at k0 + n·k channels: 256, 512, 1024 and 1024.",
    page=PAGE,
    exact="an integer parameter count, a layer count and channel widths of the built model (no randomness)",
)
def test_built_densenet121_matches_torchvision_parameter_count(claim, device, seeds):
    r = snippet.measure(device, seed=seeds.first())
    published = facts.registry().value("densenet121_params")

    def as_published_and_concatenated(parameters: int, ran: list[int], built: list[list[int]], k: int) -> None:
        assert parameters == published, (parameters, published)
        widths = [k0 + n * k for k0, n, _ in built]  # what the concatenation predicts
        assert ran == widths, (ran, widths)  # the blocks, run
        assert [end for *_, end in built] == widths, (built, widths)  # the blocks' last layers, as built

    claim.check(as_published_and_concatenated, r.parameters, r.ran_widths, r.block_widths, r.growth)
    assert r.block_output_shape[1] == r.ran_widths[0], r.block_output_shape  # the first block, run on `device`
    claim.rejects(
        as_published_and_concatenated,
        r.parameters,
        runs.run(snippet.run_widths, snippet.NewFeaturesOnly, r.block_widths, r.growth),
        r.block_widths,
        r.growth,
        because="blocks that hand on only their new features (n·k), run on the meta device",
    )
    claim.rejects(
        as_published_and_concatenated,
        runs.run(model_zoo.state_dict_count, "densenet121"),
        r.ran_widths,
        r.block_widths,
        r.growth,
        because="every tensor of the state dict counted (BatchNorm's running statistics in)",
    )
    claim.record(
        parameters=r.parameters,
        depth=r.depth,
        widths={"columns": ["k0 (in)", "layers n", "k0 + n·k (out)"], "rows": r.block_widths},
        k=r.growth,
        block_layers=[n for _, n, _ in r.block_widths],
        dense_layers=sum(n for _, n, _ in r.block_widths),
    )
