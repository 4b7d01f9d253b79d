"""Common mistakes: residual branches initialised as large as the stream.

Letters: N batch size, d stream width, l the block index, h_l the stream after block l,
ρ² = E‖F(h)‖² / ‖h‖², the branch's output energy relative to its input at initialisation.
The block is the residual-block page's identity-shortcut block; zeroing its last layer is the
residual-block page's zero_branch.
Run `python -m snippets.mistakes.large_init` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock
from snippets.residual_block.pre_activation import zero_branch

INITS = ("zero", "default", "he")


# --8<-- [start:growth]
def initialised(block: ResidualBlock, init: str) -> ResidualBlock:
    """zero: last layer zeroed; default: PyTorch's; he: Kaiming-normal, zero biases."""
    if init == "zero":
        zero_branch(block)
    if init == "he":  # variance 2/fan_in, the right choice for a *plain* ReLU stack
        for layer in block.branch:
            if isinstance(layer, nn.Linear):
                nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
                nn.init.zeros_(layer.bias)
    return block


def stream_growth(
    x: torch.Tensor, depth: int, init: str
) -> tuple[torch.Tensor, list[float]]:
    """h_depth, and ‖h_l‖ / ‖x‖ after each of `depth` fresh blocks, l = 1 … depth."""
    h, ratios = x, []
    with torch.no_grad():
        for _ in range(depth):
            block = initialised(ResidualBlock(x.shape[-1]), init).to(x.device)
            h = block(h)  # (N, d)
            ratios.append((h.norm() / x.norm()).item())
    return h, ratios


# --8<-- [end:growth]


# --8<-- [start:predict]
def predicted_growth(rho2: float, depth: int) -> float:
    """‖h_L‖/‖x‖ if every block adds an independent F of energy ρ²‖h‖²."""
    return (1 + rho2) ** (depth / 2)


# Default nn.Linear weights have variance 1/(3·fan_in), He weights 2/fan_in; ReLU keeps
# half the energy. So ρ² = (1/3)(1/2)(1/3) = 1/18 by default, 2 · (1/2) · 2 = 2 for He.
RHO2 = {"zero": 0.0, "default": 1 / 18, "he": 2.0}
# --8<-- [end:predict]


# --8<-- [start:learns]
def first_step_gradients(block: ResidualBlock, x: torch.Tensor) -> list[float]:
    """‖∂ℒ/∂W‖ for each Linear of the branch, first to last, with ℒ = Σ r·y."""
    y = block(x)  # (N, d)
    r = torch.randn_like(y)  # (N, d): a random upstream gradient
    (r * y).sum().backward()
    return [
        m.weight.grad.norm().item() for m in block.branch if isinstance(m, nn.Linear)
    ]


# --8<-- [end:learns]


@dataclass(frozen=True)
class Result:
    """One seed: the stream's growth per block for each initialisation."""

    seed: int
    d: int
    depth: int
    growth: dict[str, list[float]]  # init -> ‖h_l‖ / ‖x‖, l = 1 … depth
    exact_at_depth: dict[str, bool]  # init -> h_depth == x bit for bit
    first_block_rho2: dict[str, float]  # init -> ‖F(x)‖² / ‖x‖² measured at block 1
    first_step: list[float]  # zero init: ‖∂ℒ/∂W‖ of the first and the last Linear
    first_step_default: list[float]  # a block with PyTorch's default init


def measure(
    device: str = "cpu", seed: int = 0, d: int = 128, batch: int = 32, depth: int = 50
) -> Result:
    """Push one batch through `depth` blocks of each initialisation, same seed for each."""
    growth, exact, rho2 = {}, {}, {}
    for init in INITS:
        torch.manual_seed(seed)
        x = torch.randn(batch, d, device=device)  # (N, d)
        h, growth[init] = stream_growth(x, depth, init)
        exact[init] = torch.equal(h, x)
        with torch.no_grad():
            block = initialised(ResidualBlock(d), init).to(device)
            rho2[init] = (block.branch(x).norm() ** 2 / x.norm() ** 2).item()
    torch.manual_seed(seed)
    x = torch.randn(batch, d, device=device)
    steps = first_step_gradients(initialised(ResidualBlock(d), "zero").to(device), x)
    steps_default = first_step_gradients(ResidualBlock(d).to(device), x)
    return Result(seed, d, depth, growth, exact, rho2, steps, steps_default)


if __name__ == "__main__":
    r = measure()
    for init in INITS:
        predicted = predicted_growth(RHO2[init], r.depth)
        print(
            f"{init:8} ‖h_50‖/‖x‖ = {r.growth[init][-1]:.3g}  predicted {predicted:.3g}"
        )
        print(f"{'':8} ρ² at block 1 = {r.first_block_rho2[init]:.3g}")
