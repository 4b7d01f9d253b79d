"""The gradient highway: PyTorch's default nn.Linear initialisation, measured against He
initialisation."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


# --8<-- [start:variances]
def weight_variance(fan_in: int, fan_out: int, init: str, layers: int = 64) -> float:
    """Empirical variance of nn.Linear weights, pooled over `layers` fresh layers."""
    weights = []
    for _ in range(layers):
        layer = nn.Linear(fan_in, fan_out)  # PyTorch's default: kaiming_uniform_(a=√5)
        if init == "he":
            nn.init.kaiming_normal_(
                layer.weight, nonlinearity="relu"
            )  # variance 2 / fan_in
        weights.append(layer.weight.detach().flatten())
    return torch.cat(weights).var().item()


# --8<-- [end:variances]


@dataclass(frozen=True)
class Result:
    """Measured weight variances and the two formulas they are compared with."""

    fan_in: int
    default_variance: float
    he_variance: float
    formula_default: float  # 1 / (3 fan_in): uniform on ±1/√fan_in
    formula_he: float  # 2 / fan_in
    bias_bound: float
    max_abs_bias: float
    max_abs_weight: float
    relu_factor: float  # E[relu(z)²] / E[z²], z ~ N(0, 1): the second moment's share a ReLU keeps


def relu_factor(device: str, seed: int, samples: int = 1 << 22) -> float:
    """The share of a symmetric input's second moment a ReLU keeps, over `samples` normals."""
    g = torch.Generator(device=device).manual_seed(seed)
    z = torch.randn(samples, generator=g, device=device, dtype=torch.float64)
    return (torch.relu(z).square().mean() / z.square().mean()).item()


def measure(device: str = "cpu", seed: int = 0, fan_in: int = 128) -> Result:
    """Sample default and He-initialised layers of width 128 (initialisers run on the CPU), and
    measure the ReLU's factor on `device`."""
    torch.manual_seed(seed)
    layers = [nn.Linear(fan_in, fan_in) for _ in range(64)]
    return Result(
        fan_in=fan_in,
        default_variance=weight_variance(fan_in, fan_in, "default"),
        he_variance=weight_variance(fan_in, fan_in, "he"),
        formula_default=1 / (3 * fan_in),
        formula_he=2 / fan_in,
        bias_bound=fan_in**-0.5,
        max_abs_bias=max(layer.bias.abs().max().item() for layer in layers),
        max_abs_weight=max(layer.weight.abs().max().item() for layer in layers),
        # Its own generator on `device`, so the CPU weight samples above are unchanged.
        relu_factor=relu_factor(device, seed),
    )


if __name__ == "__main__":
    print(measure())
