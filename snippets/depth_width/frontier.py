"""Depth versus width: DenseNets and ResNets on the accuracy–parameter plane.

Sizes, multiply-adds and top-1 accuracies are torchvision's published weights metadata
(IMAGENET1K_V1: one 224×224 centre crop, ImageNet-1k validation), read through the site's facts
registry (facts/facts.toml), whose every value a contract test compares with the pinned
torchvision wheel. Huang et al. (2017) compare the families along the whole curve, not model by
model; this file puts a number on "along the curve": for a DenseNet's accuracy, how many
parameters the ResNet line would need.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from sitekit import facts

DENSENETS = ("densenet121", "densenet169", "densenet201", "densenet161")
RESNETS = ("resnet50", "resnet101", "resnet152")


# --8<-- [start:line]
def params_for(acc: float, resnets: list[tuple[float, float]]) -> float:
    """Parameters the ResNet line needs for top-1 `acc`: between two neighbouring
    ResNets (params, acc), top-1 is taken as linear in log(params)."""
    pts = sorted(resnets, key=lambda r: r[1])  # by accuracy
    for (p0, a0), (p1, a1) in itertools.pairwise(pts):
        if a0 <= acc <= a1:
            t = (acc - a0) / (a1 - a0)
            return math.exp(math.log(p0) + t * (math.log(p1) - math.log(p0)))
    raise ValueError(f"top-1 {acc} is outside the ResNets' range: no line to read")


# --8<-- [end:line]


@dataclass(frozen=True)
class Result:
    """Published parameters, multiply-adds (billions) and top-1 (%) per model, by torchvision name;
    the ResNets' top-1 with their newer IMAGENET1K_V2 weights (another training recipe)."""

    params: dict[str, int]
    ops: dict[str, float]
    acc1: dict[str, float]
    acc1_v2: dict[str, float]
    densenets: tuple[str, ...]
    resnets: tuple[str, ...]


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Read the models' metadata from the facts registry (no randomness, no device)."""
    reg = facts.registry()
    names = (*DENSENETS, *RESNETS)
    return Result(
        params={n: reg.value(f"{n}_params") for n in names},
        ops={n: reg.value(f"{n}_ops") for n in names},
        acc1={n: reg.value(f"{n}_top1") for n in names},
        acc1_v2={n: reg.value(f"{n}_v2_top1") for n in RESNETS},
        densenets=DENSENETS,
        resnets=RESNETS,
    )


if __name__ == "__main__":
    r = measure()
    line = [(r.params[n], r.acc1[n]) for n in r.resnets]
    for n in r.densenets:
        try:
            need = f"ResNet line needs {params_for(r.acc1[n], line) / 1e6:.1f}M"
        except ValueError:
            need = "outside the ResNets' range"
        print(f"{n:12} {r.params[n] / 1e6:5.1f}M  top-1 {r.acc1[n]:.3f}  {need}")
