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

from snippets.depth_width.densenet import densenet
from snippets.depth_width.resnet import RESNETS, multiply_adds, parameters, resnet

# --8<-- [start:published]
# torchvision model docs, IMAGENET1K_V1 weights: (num_params, acc@1 in %)
TORCHVISION = {
    "resnet50": (25_557_032, 76.130),
    "resnet101": (44_549_160, 77.374),
    "resnet152": (60_192_808, 78.312),
    "wide_resnet50_2": (68_883_240, 78.468),
    "densenet121": (7_978_856, 74.434),
}
# the same weights' "_ops": billions of multiply-adds per 224×224 image (docs: GFLOPS)
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


@dataclass(frozen=True)
class Result:
    """Counted and published parameters, accuracies, two models' per-kernel split, and
    the ResNets' multiply-adds per 224×224 image, counted and published."""

    counted: dict[str, int]
    published: dict[str, int]
    acc1: dict[str, float]
    kernels: dict[str, dict[str, int]]
    counted_with_buffers: dict[str, int]
    macs: dict[str, int]
    published_ops: dict[str, float]


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Count every model built on the meta device (no memory, no initialisation, no randomness)."""
    counted, kernels, with_buffers, macs = {}, {}, {}, {}
    with torch.device("meta"):
        for name in TORCHVISION:
            model = build(name)
            counted[name] = parameters(model)
            if name in OPS:
                macs[name] = multiply_adds(model)
            with_buffers[name] = counted[name] + sum(b.numel() for b in model.buffers())
            if name in ("resnet50", "wide_resnet50_2"):
                kernels[name] = by_kernel(model)
    return Result(
        counted=counted,
        published={n: p for n, (p, _) in TORCHVISION.items()},
        acc1={n: a for n, (_, a) in TORCHVISION.items()},
        kernels=kernels,
        counted_with_buffers=with_buffers,
        macs=macs,
        published_ops=dict(OPS),
    )


if __name__ == "__main__":
    r = measure()
    for name, n in r.counted.items():
        print(
            f"{name:16} {n:>12,} params  ×{n / r.counted['resnet50']:.3f}  acc@1 {r.acc1[name]:.3f}"
        )
    print(r.kernels)
