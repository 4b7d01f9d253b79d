"""The gradient highway: what the + node does in the backward pass, written out as an autograd
Function.

Letters: N batch size, d width; g the upstream gradient ∂L/∂y, shape (N, d).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


# --8<-- [start:add]
class Add(torch.autograd.Function):
    """y = a + b. ∂y/∂a and ∂y/∂b are identities, so each operand receives g itself."""

    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx, a: torch.Tensor, b: torch.Tensor
    ) -> torch.Tensor:
        return a + b  # (N, d)

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, g: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return g, g  # the same upstream gradient, unscaled, to both operands


# --8<-- [end:add]


class Mul(torch.autograd.Function):
    """y = a * b, for contrast: each operand's gradient is g scaled by the other operand."""

    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx, a: torch.Tensor, b: torch.Tensor
    ) -> torch.Tensor:
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, g: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        a, b = ctx.saved_tensors
        return g * b, g * a


def operand_grads(
    op: str, a: torch.Tensor, b: torch.Tensor, g: torch.Tensor
) -> tuple[torch.Tensor, ...]:
    """Gradients reaching a and b when y = op(a, b) receives upstream gradient g."""
    a = a.detach().requires_grad_(True)
    b = b.detach().requires_grad_(True)
    y = {
        "torch +": lambda: a + b,
        "Add": lambda: Add.apply(a, b),
        "Mul": lambda: Mul.apply(a, b),
    }[op]()
    y.backward(g)
    return a.grad, b.grad, g


@dataclass(frozen=True)
class Result:
    """For each node, whether both operands received exactly g."""

    torch_add_exact: bool
    custom_add_exact: bool
    mul_exact: bool
    mul_max_deviation: float


def measure(device: str = "cpu", seed: int = 0, n: int = 32, d: int = 64) -> Result:
    """Backpropagate one random upstream gradient through +, Add and Mul."""
    torch.manual_seed(seed)
    a, b, g = (torch.randn(n, d, device=device) for _ in range(3))
    exact = lambda ga, gb, g: torch.equal(ga, g) and torch.equal(gb, g)  # noqa: E731
    ma, mb, _ = operand_grads("Mul", a, b, g)
    return Result(
        torch_add_exact=exact(*operand_grads("torch +", a, b, g)),
        custom_add_exact=exact(*operand_grads("Add", a, b, g)),
        mul_exact=exact(ma, mb, g),
        mul_max_deviation=max((ma - g).abs().max().item(), (mb - g).abs().max().item()),
    )


if __name__ == "__main__":
    print(measure())
