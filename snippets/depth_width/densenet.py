"""Depth versus width: DenseNet-121 (Huang et al. 2017, growth rate k = 32), built layer by layer
to count it.

Letters: N batch size, C channels, k the growth rate, k0 the channels entering a dense block.
Built on the meta device like the ResNets: counting needs no memory and no initialisation.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


# --8<-- [start:dense]
def bn_relu_conv(c_in: int, c_out: int, k: int) -> list[nn.Module]:
    """DenseNet's pre-activation order: BatchNorm, ReLU, bias-free k×k convolution."""
    return [
        nn.BatchNorm2d(c_in),
        nn.ReLU(),
        nn.Conv2d(c_in, c_out, k, padding=k // 2, bias=False),
    ]


class DenseBlock(nn.Module):
    """Layer i reads the input and all earlier layers' k channels, concatenated."""

    def __init__(self, k0: int, layers: int, k: int = 32, bottleneck: int = 4) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Sequential(
                *bn_relu_conv(k0 + i * k, bottleneck * k, 1),
                *bn_relu_conv(bottleneck * k, k, 3),
            )
            for i in range(layers)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = [x]  # (N, k0, H, W)
        for layer in self.layers:
            features.append(layer(torch.cat(features, dim=1)))  # each adds (N, k, H, W)
        return torch.cat(features, dim=1)  # (N, k0 + layers·k, H, W)


# --8<-- [end:dense]


# --8<-- [start:model]
def densenet(blocks: tuple[int, ...] = (6, 12, 24, 16), k: int = 32) -> nn.Sequential:
    """Stem, dense blocks joined by transitions (halving channels, H, W), classifier."""
    c = 2 * k  # 64 channels leave the stem
    stem = [nn.Conv2d(3, c, 7, 2, 3, bias=False), nn.BatchNorm2d(c), nn.ReLU()]
    layers: list[nn.Module] = [*stem, nn.MaxPool2d(3, 2, 1)]  # (N, 64, H/4, W/4)
    for i, n in enumerate(blocks):
        layers.append(DenseBlock(c, n, k))
        c += n * k
        if i < len(blocks) - 1:  # transition: 1×1 conv to c/2 channels, 2×2 avg pool
            layers += [*bn_relu_conv(c, c // 2, 1), nn.AvgPool2d(2)]
            c //= 2
    head = [nn.BatchNorm2d(c), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()]
    return nn.Sequential(*layers, *head, nn.Linear(c, 1000))  # (N, 1000)


# --8<-- [end:model]


class NewFeaturesOnly(DenseBlock):
    """The counterfactual block: it hands on only its layers' new features, not its input
    with them (what a dense block would be without the concatenation's input term)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = [x]
        for layer in self.layers:
            features.append(layer(torch.cat(features, dim=1)))
        return torch.cat(features[1:], dim=1)  # (N, layers·k, H, W)


def run_widths(
    block_type: type[DenseBlock], built: list[list[int]], k: int
) -> list[int]:
    """Channels out of each dense block of the built model's shape, run on the meta device
    (shapes only): one block of `block_type`, growth rate k, per [k0, layers, ...] row."""
    with torch.device("meta"):
        return [
            block_type(k0, n, k)(torch.zeros(1, k0, 8, 8)).shape[1]
            for k0, n, _ in built
        ]


@dataclass(frozen=True)
class Result:
    """DenseNet-121's parameter count, its dense blocks' widths, one block's output shape."""

    parameters: int
    block_output_shape: list[int]  # the first dense block run on (2, 64, 8, 8) zeros
    block_widths: list[
        list[int]
    ]  # [k0, layers, k0 + layers·k] per dense block, as built
    depth: int
    # k: the channels each dense layer adds (its last convolution's outputs)
    growth: int
    ran_widths: list[int]  # channels out of each dense block, run (meta device)


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Build DenseNet-121 on the meta device and read its widths off the built blocks."""
    with torch.device("meta"):
        model = densenet()
    params = sum(p.numel() for p in model.parameters())
    blocks = [m for m in model.modules() if isinstance(m, DenseBlock)]
    widths = []
    for b in blocks:
        k0 = b.layers[0][
            0
        ].num_features  # the first BatchNorm sees the block's input channels
        last_in = b.layers[-1][0].num_features
        widths.append([k0, len(b.layers), last_in + b.layers[-1][-1].out_channels])
    convs = sum(isinstance(m, nn.Conv2d) for m in model.modules())
    first = (
        blocks[0].to_empty(device=device).eval()
    )  # forward one block only: a whole CPU pass costs seconds
    with torch.no_grad():
        for t in first.state_dict().values():
            t.zero_()
        shape = list(
            first(torch.zeros(2, 64, 8, 8, device=device)).shape
        )  # (N, 64 + 6·32, 8, 8)
    growth = blocks[0].layers[0][-1].out_channels
    return Result(
        params, shape, widths, convs + 1, growth, run_widths(DenseBlock, widths, growth)
    )


if __name__ == "__main__":
    print(measure())
