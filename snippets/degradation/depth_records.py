"""The degradation problem: the depths and error rates the page quotes, and the ratios between them.

Every number is a sourced fact of the site (facts/facts.toml, each with its work and where in it);
this file names which facts it uses and only does arithmetic on them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# --8<-- [start:records]
WEIGHT_LAYERS = {  # layers with weights, as each paper counts them: the facts' ids
    "AlexNet (2012)": "alexnet_layers",  # Krizhevsky et al. 2012, §3.5
    "VGG-19 (2014)": "vgg19_layers",  # Simonyan & Zisserman, Table 1, configuration E
    "GoogLeNet (2014)": "googlenet_layers",  # Szegedy et al. 2015, §5
    "ResNet-152 (2015)": "resnet152_layers",  # He et al. 2015, Table 1
}
TOP5_TEST_ERROR = {  # ILSVRC classification, ensembles, % (He et al. 2015, Table 5)
    "GoogLeNet (ILSVRC 2014 winner)": "googlenet_top5_err",
    "ResNet (ILSVRC 2015 winner)": "ilsvrc2015_top5_err",
}
# --8<-- [end:records]


@dataclass(frozen=True)
class Result:
    """The facts read, and the ratios computed from them."""

    layers: dict[str, int]
    top5_error: dict[str, float]
    resnet_over_vgg: float
    relative_error_drop: float


def measure(
    device: str = "cpu", seed: int = 0, *, fact: Callable[[str], float]
) -> Result:
    """Plain arithmetic on the facts `fact(id)` returns; device and seed are unused but kept
    for the common signature."""
    layers = {name: fact(fid) for name, fid in WEIGHT_LAYERS.items()}
    top5 = {name: fact(fid) for name, fid in TOP5_TEST_ERROR.items()}
    old, new = top5.values()
    return Result(
        layers=layers,
        top5_error=top5,
        resnet_over_vgg=layers["ResNet-152 (2015)"] / layers["VGG-19 (2014)"],
        relative_error_drop=1 - new / old,
    )


if __name__ == "__main__":
    from sitekit import facts  # the published figures, as the page shows them

    print(measure(fact=facts.registry().value))
