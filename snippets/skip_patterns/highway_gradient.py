"""Other skip patterns: how the gradient reaching x splits inside a highway block, checked against
autograd.

Letters: d width, g = ∂L/∂y the upstream gradient, T the gate, H the transform, J_H its Jacobian,
W_T the gate's weight; ⊙ is element-wise. Float64, so that comparisons see the maths, not rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.autograd.functional import jacobian

from snippets.residual_block.identity_shortcut import ResidualBlock
from snippets.skip_patterns.highway import HighwayBlock


# --8<-- [start:split]
def gradient_terms(block: HighwayBlock, x: torch.Tensor, g: torch.Tensor) -> dict:
    """The three paths of ∂L/∂x for y = T⊙H + (1 − T)⊙x, for one input x of width d."""
    t = torch.sigmoid(block.gate(x)).detach()  # (d,)
    h = block.branch(x).detach()  # (d,)
    return {
        "carry": g * (1 - t),  # through the (1 − T)·x product, x side
        "transform": (g * t) @ jacobian(block.branch, x),  # through H
        "gate": (g * (h - x) * t * (1 - t)) @ block.gate.weight.detach(),  # through T
    }


def autograd_gradient(
    block: nn.Module, x: torch.Tensor, g: torch.Tensor
) -> torch.Tensor:
    """∂L/∂x by backpropagation, for a loss whose gradient at the output is g."""
    x = x.detach().requires_grad_(True)
    block(x).backward(g)
    return x.grad  # (d,)


# --8<-- [end:split]


class BlindGateHighway(HighwayBlock):
    """The same block, but T reads a detached x: the same output, no gradient through T."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.sigmoid(self.gate(x.detach()))  # (N, d)
        return t * self.branch(x) + (1 - t) * self.shortcut(x)


@dataclass(frozen=True)
class Result:
    """The terms for a half-open gate (W_T = 0) and a random one, with autograd's gradients."""

    g: torch.Tensor
    half: dict[str, torch.Tensor]  # W_T = 0, b_T = 0: T = 0.5 exactly
    half_autograd: torch.Tensor
    random: dict[str, torch.Tensor]  # default W_T, b_T = 0: T scattered around 0.5
    random_autograd: torch.Tensor
    random_t: torch.Tensor
    blind: dict[
        str, torch.Tensor
    ]  # the three terms for the same weights, gate blind to x
    blind_autograd: torch.Tensor  # autograd through that block
    residual_shortcut: (
        torch.Tensor
    )  # what the residual block's shortcut hands x: g itself
    half_gate_path: torch.Tensor  # autograd through T alone, at W_T = 0
    half_carry_autograd: (
        torch.Tensor
    )  # autograd through the block at T = 0.5 with H zeroed
    residual_zero_branch_autograd: (
        torch.Tensor
    )  # autograd through a residual block, branch zeroed


def measure(device: str = "cpu", seed: int = 0, d: int = 32) -> Result:
    """One block and one (x, g) per gate setting, float64."""
    torch.manual_seed(seed)
    block = HighwayBlock(d, gate_bias=0.0).double().to(device)
    x = torch.randn(d, dtype=torch.float64, device=device)
    g = torch.randn(d, dtype=torch.float64, device=device)
    random = gradient_terms(block, x, g)
    random_autograd = autograd_gradient(block, x, g)
    random_t = torch.sigmoid(block.gate(x)).detach()
    blind_block = BlindGateHighway(d).double().to(device)
    blind_block.load_state_dict(block.state_dict())
    blind = gradient_terms(blind_block, x, g)
    blind_autograd = autograd_gradient(blind_block, x, g)
    nn.init.zeros_(block.gate.weight)  # T = sigmoid(0) = 0.5 for every input
    half = gradient_terms(block, x, g)
    half_autograd = autograd_gradient(block, x, g)
    xt = x.detach().requires_grad_(True)
    (
        torch.sigmoid(block.gate(xt)) * (block.branch(x) - x).detach() * g
    ).sum().backward()
    half_gate_path = xt.grad  # the gradient that reaches x through T only
    nn.init.zeros_(
        block.branch[0].weight
    )  # H(x) = ReLU(0) = 0: only the carry path is left
    nn.init.zeros_(block.branch[0].bias)
    half_carry = autograd_gradient(block, x, g)
    residual = ResidualBlock(d).double().to(device)
    xr = x.detach().requires_grad_(True)
    (residual.shortcut(xr) * g).sum().backward()  # the shortcut's share alone
    nn.init.zeros_(residual.branch[-1].weight)
    nn.init.zeros_(residual.branch[-1].bias)
    residual_zero = autograd_gradient(residual, x, g)
    return Result(
        g,
        half,
        half_autograd,
        random,
        random_autograd,
        random_t,
        blind,
        blind_autograd,
        xr.grad,
        half_gate_path,
        half_carry,
        residual_zero,
    )


if __name__ == "__main__":
    r = measure()
    print({k: v.norm().item() for k, v in r.half.items()}, r.g.norm().item())
    print({k: v.norm().item() for k, v in r.random.items()})
