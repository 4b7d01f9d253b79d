"""Part 3: the input gradient of plain and residual stacks at depths 5, 10, 20 and 50.

Letters: N batch size (32), d width (128), L depth in blocks. A plain block is the residual
block's branch on its own, so both stacks have exactly the same layers and parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock

DEPTHS = (5, 10, 20, 50)


# --8<-- [start:stacks]
def make_stack(
    depth: int, d: int, residual: bool, init: str = "default"
) -> nn.Sequential:
    """L blocks of Linear -> ReLU -> Linear, with or without the identity shortcut."""
    blocks = [
        ResidualBlock(d) if residual else ResidualBlock(d).branch for _ in range(depth)
    ]
    stack = nn.Sequential(*blocks)
    if (
        init == "he"
    ):  # Kaiming-normal weights for ReLU (variance 2 / fan_in), zero biases
        for layer in stack.modules():
            if isinstance(layer, nn.Linear):
                nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
                nn.init.zeros_(layer.bias)
    return stack


def input_gradient_norm(stack: nn.Sequential, x: torch.Tensor) -> float:
    """‖∂L/∂x‖ for L = sum of the outputs, the gradient after crossing every block."""
    x = x.detach().requires_grad_(True)
    stack(x).sum().backward()  # (N, d) -> scalar
    # Entries this small have squares below float32's smallest number, which round to 0:
    # take the norm in float64.
    return x.grad.double().norm().item()


# --8<-- [end:stacks]


@dataclass(frozen=True)
class Result:
    """norms[init][kind][depth] for one seed; kind is "plain" or "residual"."""

    seed: int
    norms: dict[str, dict[str, dict[int, float]]]
    float32_norm_of_plain_50: float


def measure(
    device: str = "cpu", seed: int = 0, d: int = 128, batch: int = 32
) -> Result:
    """Every (init, kind, depth) combination, each stack built from the same seed."""
    norms: dict[str, dict[str, dict[int, float]]] = {}
    naive = 0.0
    for init in ("default", "he"):
        for kind in ("plain", "residual"):
            for depth in DEPTHS:
                torch.manual_seed(seed)
                stack = make_stack(depth, d, kind == "residual", init).to(device)
                x = torch.randn(batch, d, device=device)
                norms.setdefault(init, {}).setdefault(kind, {})[depth] = (
                    input_gradient_norm(stack, x)
                )
                if (init, kind, depth) == ("default", "plain", 50):
                    xg = x.detach().requires_grad_(True)
                    stack(xg).sum().backward()
                    naive = (
                        xg.grad.norm().item()
                    )  # the float32 norm the page warns about
    return Result(seed, norms, naive)


if __name__ == "__main__":
    for init, kinds in measure().norms.items():
        for kind, row in kinds.items():
            print(
                f"{init:8} {kind:9}",
                "  ".join(f"L={L}: {v:.3e}" for L, v in row.items()),
            )
