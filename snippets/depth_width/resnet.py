"""Depth versus width: ImageNet ResNet-50, -101, -152 and Wide ResNet-50-2, built layer by layer.

Letters: N batch size, C channels, H×W the feature map. The layout follows He et al. 2015
(Table 1) in the variant torchvision ships ("ResNet v1.5": a stage's stride-2 convolution is
the 3×3 one). Models are built on PyTorch's "meta" device: parameters get shapes but no
memory and no initialisation, so even ResNet-152 is counted in a fraction of a second. For
an output shape, ResNet-50 then gets zeroed memory on the real device and a batch of two
32×32 images (a forward pass of every model would cost seconds on a CPU).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode


# --8<-- [start:bottleneck]
def conv_bn(c_in: int, c_out: int, k: int, stride: int = 1) -> list[nn.Module]:
    """A k×k convolution without bias (the BN after it has one) and its BatchNorm."""
    conv = nn.Conv2d(c_in, c_out, k, stride, padding=k // 2, bias=False)
    return [conv, nn.BatchNorm2d(c_out)]


class Bottleneck(nn.Module):
    """1×1 to `width`, 3×3 at `width`, 1×1 to 4·planes; y = ReLU(shortcut(x) + F(x))."""

    def __init__(self, c_in: int, planes: int, stride: int = 1, widen: int = 1) -> None:
        super().__init__()
        width, c_out = planes * widen, 4 * planes  # Wide ResNet-50-2: widen = 2
        self.branch = nn.Sequential(
            *conv_bn(c_in, width, 1),
            nn.ReLU(),  # (N, width, H, W)
            *conv_bn(width, width, 3, stride),
            nn.ReLU(),  # (N, width, H/stride, W/stride)
            *conv_bn(width, c_out, 1),  # (N, 4·planes, H/stride, W/stride)
        )
        same = stride == 1 and c_in == c_out
        projection = nn.Sequential(*conv_bn(c_in, c_out, 1, stride))
        self.shortcut = nn.Identity() if same else projection
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.shortcut(x) + self.branch(x))


# --8<-- [end:bottleneck]


# --8<-- [start:resnet]
def resnet(
    blocks: tuple[int, ...], widen: int = 1, classes: int = 1000
) -> nn.Sequential:
    """Stem, four stages of bottlenecks, global average pooling, classifier."""
    stem = [
        *conv_bn(3, 64, 7, 2),
        nn.ReLU(),
        nn.MaxPool2d(3, 2, 1),
    ]  # (N, 64, H/4, W/4)
    layers: list[nn.Module] = list(stem)
    c_in = 64
    for stage, count in enumerate(blocks):
        planes = 64 * 2**stage  # 64, 128, 256, 512
        for i in range(count):
            stride = 2 if stage > 0 and i == 0 else 1  # stages 2-4 halve H and W
            layers.append(Bottleneck(c_in, planes, stride, widen))
            c_in = 4 * planes
    head = [
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(c_in, classes),
    ]  # (N, 1000)
    return nn.Sequential(*layers, *head)


RESNETS = {
    "resnet50": dict(blocks=(3, 4, 6, 3)),
    "resnet101": dict(blocks=(3, 4, 23, 3)),
    "resnet152": dict(blocks=(3, 8, 36, 3)),
    "wide_resnet50_2": dict(blocks=(3, 4, 6, 3), widen=2),  # only the 3×3 width doubles
}


def parameters(model: nn.Module) -> int:
    """Learned parameters; BatchNorm's running statistics are buffers, not counted."""
    return sum(p.numel() for p in model.parameters())


# --8<-- [end:resnet]


# --8<-- [start:macs]
def multiply_adds(model: nn.Module, side: int = 224) -> int:
    """Multiply-adds of a forward pass on one side×side image, counted by torch.

    Build the model on the meta device: the count needs only shapes, so nothing is computed.
    """
    with FlopCounterMode(display=False) as counter:
        model(torch.zeros(1, 3, side, side, device="meta"))  # (1, 3, 224, 224)
    return counter.get_total_flops() // 2  # torch counts a multiply-add as 2 FLOPs


# --8<-- [end:macs]


def output_shape(model: nn.Module, device: str, side: int = 32) -> list[int]:
    """Output shape for a batch of two images; weights are zeroed, only shapes matter."""
    model = model.to_empty(device=device).eval()
    with torch.no_grad():
        for t in model.state_dict().values():
            t.zero_()
        return list(
            model(torch.zeros(2, 3, side, side, device=device)).shape
        )  # (N, 1000)


def layer_count(model: nn.Module) -> int:
    """Weighted layers on the longest path (convolutions of the branches, stem and classifier)."""
    blocks = [m for m in model.modules() if isinstance(m, Bottleneck)]
    return 1 + 3 * len(blocks) + 1


@dataclass(frozen=True)
class Result:
    """Parameter counts, depths and output shapes of the four models."""

    parameters: dict[str, int]
    depth: dict[str, int]
    output_shape: dict[str, list[int]]
    buffers: dict[str, int]


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Count each model built on the meta device; run ResNet-50 on `device` for its shape."""
    params, depth, shapes, buffers = {}, {}, {}, {}
    for name, spec in RESNETS.items():
        with torch.device("meta"):
            model = resnet(**spec)
        params[name] = parameters(model)
        depth[name] = layer_count(model)
        buffers[name] = sum(b.numel() for b in model.buffers())
        if name == "resnet50":
            shapes[name] = output_shape(model, device)
    return Result(params, depth, shapes, buffers)


if __name__ == "__main__":
    print(measure())
