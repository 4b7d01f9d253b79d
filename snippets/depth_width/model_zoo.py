"""Depth versus width: the built ImageNet models' parameter counts next to published accuracies.

Accuracies come from ONE source so that they are comparable: torchvision's model docs
(https://pytorch.org/vision/stable/models.html), acc@1 of the IMAGENET1K_V1 weights, one
224×224 centre crop, ImageNet-1k validation set. The same pages list num_params, which the
tests compare with the counts of the models built here.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from snippets.depth_width.densenet import densenet
from snippets.depth_width.resnet import (
    RESNETS,
    Bottleneck,
    multiply_adds,
    parameters,
    resnet,
)

# --8<-- [start:published]
# torchvision model docs, IMAGENET1K_V1 weights: (num_params, acc@1 in %)
TORCHVISION = {
    "resnet50": (25_557_032, 76.130),
    "resnet101": (44_549_160, 77.374),
    "resnet152": (60_192_808, 78.312),
    "wide_resnet50_2": (68_883_240, 78.468),
    "densenet121": (7_978_856, 74.434),
}
# the same weights' "_ops": billions of multiply-adds per image (docs: GFLOPS), for the
# centre crop of side CROP they are evaluated at
CROP = 224
OPS = {
    "resnet50": 4.089,
    "resnet101": 7.801,
    "resnet152": 11.514,
    "wide_resnet50_2": 11.398,
}
# --8<-- [end:published]


# --8<-- [start:kernels]
def by_kernel(model: nn.Module) -> dict[str, int]:
    """Parameters in 3×3 convolutions, in 1×1 convolutions, and everywhere else."""
    out = {"3x3": 0, "1x1": 0, "other": 0}
    for m in model.modules():
        if isinstance(m, nn.Conv2d) and m.kernel_size in ((3, 3), (1, 1)):
            out[f"{m.kernel_size[0]}x{m.kernel_size[1]}"] += m.weight.numel()
        elif not list(m.children()):
            out["other"] += sum(p.numel() for p in m.parameters())
    return out


# --8<-- [end:kernels]


def build(name: str) -> nn.Module:
    """One of the five models, by torchvision's name for it."""
    return densenet() if name == "densenet121" else resnet(**RESNETS[name])


def weighted_layers(model: nn.Module) -> int:
    """Convolutions and linear layers on the longest path: every one but the ResNets'
    projection shortcuts (the count the names ResNet-50 ... DenseNet-121 give)."""
    shortcuts = {
        id(m)
        for b in model.modules()
        if isinstance(b, Bottleneck)
        for m in b.shortcut.modules()
    }
    return sum(
        isinstance(m, (nn.Conv2d, nn.Linear)) and id(m) not in shortcuts
        for m in model.modules()
    )


def display_name(name: str, model: nn.Module) -> str:
    """'ResNet-50', 'Wide ResNet-50-2', 'DenseNet-121': the family, its counted depth and,
    for the wide net, the factor its bottleneck was widened by when built."""
    layers = weighted_layers(model)
    if name == "densenet121":
        return f"DenseNet-{layers}"
    widen = RESNETS[name].get("widen", 1)
    return f"Wide ResNet-{layers}-{widen}" if widen > 1 else f"ResNet-{layers}"


def torch_flops(model: nn.Module, side: int) -> int:
    """Floating-point operations of a forward pass on one side×side image, as torch's
    counter reports them (a multiply-add counted as two)."""
    with FlopCounterMode(display=False) as counter:
        model(torch.zeros(1, 3, side, side, device="meta"))
    return counter.get_total_flops()


def state_dict_count(name: str) -> int:
    """Every tensor the model saves counted, BatchNorm's running statistics included (meta)."""
    with torch.device("meta"):
        model = build(name)
    return sum(t.numel() for t in model.state_dict().values())


@dataclass(frozen=True)
class Result:
    """Counted and published parameters, accuracies, each model's per-kernel split, its
    counted depth and name, and the ResNets' multiply-adds (and torch's FLOPs) per image
    of side `side`, counted and published."""

    counted: dict[str, int]
    published: dict[str, int]
    acc1: dict[str, float]
    kernels: dict[str, dict[str, int]]
    counted_with_buffers: dict[str, int]
    macs: dict[str, int]
    flops: dict[str, int]
    published_ops: dict[str, float]
    layers: dict[str, int]
    names: dict[str, str]
    side: int


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Count every model built on the meta device (no memory, no initialisation, no randomness)."""
    counted, kernels, with_buffers, macs, flops, layers, names = (
        {},
        {},
        {},
        {},
        {},
        {},
        {},
    )
    with torch.device("meta"):
        for name in TORCHVISION:
            model = build(name)
            counted[name] = parameters(model)
            if name in OPS:
                macs[name] = multiply_adds(model, CROP)
                flops[name] = torch_flops(model, CROP)
            with_buffers[name] = counted[name] + sum(b.numel() for b in model.buffers())
            kernels[name] = by_kernel(model)
            layers[name] = weighted_layers(model)
            names[name] = display_name(name, model)
    return Result(
        counted=counted,
        published={n: p for n, (p, _) in TORCHVISION.items()},
        acc1={n: a for n, (_, a) in TORCHVISION.items()},
        kernels=kernels,
        counted_with_buffers=with_buffers,
        macs=macs,
        flops=flops,
        published_ops=dict(OPS),
        layers=layers,
        names=names,
        side=CROP,
    )


if __name__ == "__main__":
    r = measure()
    for name, n in r.counted.items():
        print(
            f"{name:16} {n:>12,} params  ×{n / r.counted['resnet50']:.3f}  acc@1 {r.acc1[name]:.3f}"
        )
    print(r.kernels)
