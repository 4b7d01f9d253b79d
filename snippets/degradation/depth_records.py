"""The degradation problem: the depths and error rates the page quotes, and the ratios between them.

Every number is typed in from the paper named next to it; the code only does arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

# --8<-- [start:records]
WEIGHT_LAYERS = {  # layers with weights, as each paper counts them
    "AlexNet (2012)": 8,  # Krizhevsky et al. 2012: 5 convolutional + 3 fully connected
    "VGG-19 (2014)": 19,  # Simonyan & Zisserman, Table 1, configuration E
    "GoogLeNet (2014)": 22,  # Szegedy et al. 2015, §5: "22 layers deep" with parameters
    "ResNet-152 (2015)": 152,  # He et al. 2015, Table 1
}
TOP5_TEST_ERROR = {  # ILSVRC classification, ensembles, % (He et al. 2015, Table 5)
    "GoogLeNet (ILSVRC 2014 winner)": 6.66,
    "ResNet (ILSVRC 2015 winner)": 3.57,
}
# --8<-- [end:records]


@dataclass(frozen=True)
class Result:
    """Ratios computed from the typed-in records."""

    resnet_over_vgg: float
    cifar_depth_ratio: float  # He et al.'s 56- and 20-layer plain nets
    miniature_depth_ratio: float  # this page's 22- and 8-layer nets
    relative_error_drop: float


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Plain arithmetic; device and seed are unused but kept for the common signature."""
    old, new = TOP5_TEST_ERROR.values()
    return Result(
        resnet_over_vgg=WEIGHT_LAYERS["ResNet-152 (2015)"]
        / WEIGHT_LAYERS["VGG-19 (2014)"],
        cifar_depth_ratio=56 / 20,
        miniature_depth_ratio=22 / 8,
        relative_error_drop=1 - new / old,
    )


if __name__ == "__main__":
    print(measure())
