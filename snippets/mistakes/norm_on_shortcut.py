"""Common mistakes: a LayerNorm on the shortcut, y = LN(x) + F(x).

Letters: N batch size, d stream width, L depth in blocks, σ the standard deviation of one
stream vector's d entries; LN is LayerNorm. The pre-norm and post-norm blocks it is compared
with are the residual-stream page's.
Run `python -m snippets.mistakes.norm_on_shortcut` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.autograd.functional import jacobian

from snippets.residual_block.pre_activation import zero_branch
from snippets.residual_stream.prenorm import PostNormBlock, PreNormBlock, mlp


# --8<-- [start:block]
class NormOnShortcut(nn.Module):
    """The mistake: y = LN(x) + F(x); the stream itself is renormalised."""

    def __init__(self, d: int, expansion: int = 4) -> None:
        super().__init__()
        self.branch = mlp(d, expansion)
        self.shortcut = nn.LayerNorm(d)  # belongs in front of the branch, not here

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.branch(x)  # (N, d)


# --8<-- [end:block]


# --8<-- [start:jacobian]
def shortcut_spectrum(shortcut: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """Eigenvalues of ∂shortcut(x)/∂x at one stream vector x (d,), in float64."""
    J = jacobian(shortcut.double(), x.double())  # (d, d)
    return torch.linalg.eigvalsh((J + J.T) / 2)  # (d,), ascending; J is symmetric


# --8<-- [end:jacobian]


# --8<-- [start:stack]
def through_stack(
    block: type[nn.Module], depth: int, x: torch.Tensor, zeroed: bool
) -> tuple[float, float]:
    """‖h_L‖/‖x‖ and ‖∂ℒ/∂x‖/‖r‖ for ℒ = Σ r·h_L, with r a random direction."""
    blocks = [block(x.shape[-1]) for _ in range(depth)]
    stack = nn.Sequential(*(zero_branch(b) if zeroed else b for b in blocks)).to(
        x.device
    )
    x = x.clone().requires_grad_(True)
    h = stack(x)  # (N, d)
    r = torch.randn_like(h)  # (N, d)
    (r * h).sum().backward()
    return (h.norm() / x.norm()).item(), (x.grad.norm() / r.norm()).item()


# --8<-- [end:stack]

KINDS = {
    "pre-norm": PreNormBlock,
    "post-norm": PostNormBlock,
    "norm on shortcut": NormOnShortcut,
}


@dataclass(frozen=True)
class Result:
    """One seed: zero-branch deviations, the shortcut's spectrum, a deep stack's norms."""

    seed: int
    d: int
    scale: float  # the input stream is scale · N(0, 1)
    zero_deviation: dict[
        str, float
    ]  # kind -> max |y - x| / max |x| with the branch zeroed
    zero_equal: dict[str, bool]  # kind -> y == x bit for bit
    sigma: float  # σ of the vector the Jacobian is taken at
    eigenvalues: list[float]  # ascending
    identity_eigenvalues: list[
        float
    ]  # the same for the identity shortcut of a pre-norm block
    depth: int
    stream_ratio: dict[str, float]  # kind -> ‖h_L‖ / ‖x‖, default-initialised branches
    grad_ratio: dict[str, float]  # kind -> ‖∂ℒ/∂x‖ / ‖r‖, default-initialised branches
    zero_grad_ratio: dict[str, float]  # kind -> the same with every branch zeroed


def measure(
    device: str = "cpu",
    seed: int = 0,
    d: int = 32,
    batch: int = 8,
    depth: int = 20,
    scale: float = 3.0,
    stack_batch: int = 64,
) -> Result:
    """Zero-branch blocks, the LayerNorm Jacobian, and L-block stacks of each kind.

    The stacks get their own batch of `stack_batch` rows: LayerNorm divides each row by its
    own σ, so with many rows the gradient's size reflects the stream's σ, not the few rows
    one small batch happened to draw.
    """
    torch.manual_seed(seed)
    x = scale * torch.randn(batch, d, device=device)  # (N, d): a stream that has grown
    dev, eq = {}, {}
    with torch.no_grad():
        for name, kind in KINDS.items():
            y = zero_branch(kind(d)).to(device)(x)
            dev[name] = ((y - x).abs().max() / x.abs().max()).item()
            eq[name] = torch.equal(y, x)
    v = x[0].detach().cpu()
    eig = shortcut_spectrum(nn.LayerNorm(d), v)
    eig_identity = shortcut_spectrum(nn.Identity(), v)
    sigma = v.double().var(unbiased=False).sqrt().item()
    xs = scale * torch.randn(stack_batch, d, device=device)  # (N, d): the stacks' input
    stream, grad, zgrad = {}, {}, {}
    for name, kind in KINDS.items():
        torch.manual_seed(seed + 1)
        stream[name], grad[name] = through_stack(kind, depth, xs, zeroed=False)
        torch.manual_seed(seed + 1)
        _, zgrad[name] = through_stack(kind, depth, xs, zeroed=True)
    return Result(
        seed,
        d,
        scale,
        dev,
        eq,
        sigma,
        eig.tolist(),
        eig_identity.tolist(),
        depth,
        stream,
        grad,
        zgrad,
    )


if __name__ == "__main__":
    r = measure()
    print("zero-branch deviation", r.zero_deviation, r.zero_equal)
    print(
        f"1/σ = {1 / r.sigma:.4f}; smallest eigenvalues {r.eigenvalues[:3]}; "
        f"largest {r.eigenvalues[-1]:.4f}"
    )
    print("stream ‖h_L‖/‖x‖", r.stream_ratio)
    print("gradient", r.grad_ratio)
    print("gradient, zeroed branches", r.zero_grad_ratio)
