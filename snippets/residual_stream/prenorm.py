"""The residual stream: pre-norm and post-norm blocks, and the Jacobian of a pre-norm block whose
branch is zero.

Letters: N batch size, d stream width, e expansion factor of the branch; LN is LayerNorm.
Run `python -m snippets.residual_stream.prenorm` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.autograd.functional import jacobian

from snippets.residual_block.pre_activation import zero_branch


# --8<-- [start:blocks]
def mlp(d: int, expansion: int = 4) -> nn.Sequential:
    """The branch: a transformer's feed-forward sub-layer, widen, GELU, narrow."""
    return nn.Sequential(
        nn.Linear(d, expansion * d), nn.GELU(), nn.Linear(expansion * d, d)
    )  # (N, d)


class PreNormBlock(nn.Module):
    """y = x + F(LN(x)): the norm is on the branch; the stream is never rescaled."""

    def __init__(self, d: int, expansion: int = 4) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.branch = mlp(d, expansion)
        self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.branch(self.norm(x))  # (N, d)


class PostNormBlock(nn.Module):
    """y = LN(x + F(x)): the original transformer's order; the norm is on the stream."""

    def __init__(self, d: int, expansion: int = 4) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.branch = mlp(d, expansion)
        self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.shortcut(x) + self.branch(x))  # (N, d)


# --8<-- [end:blocks]


# --8<-- [start:jacobian]
def stack_jacobian(
    block_type: type[nn.Module], depth: int, d: int, zeroed: bool
) -> torch.Tensor:
    """∂h_L/∂x of `depth` blocks (float64) at a random input, branches zeroed or not."""
    blocks = [block_type(d) for _ in range(depth)]
    stack = nn.Sequential(*(zero_branch(b) if zeroed else b for b in blocks)).double()
    x = torch.randn(d, dtype=torch.float64)  # (d,): one position of the stream
    return jacobian(stack, x)  # (d, d)


# --8<-- [end:jacobian]


@dataclass(frozen=True)
class Result:
    """How far each stack's input Jacobian is from the identity matrix."""

    d: int
    depth: int
    pre_zero_equal: bool
    pre_zero_max_deviation: float
    post_zero_equal: bool
    post_zero_max_deviation: float
    pre_default_equal: bool
    pre_default_max_deviation: float


def measure(device: str = "cpu", seed: int = 0, d: int = 32, depth: int = 12) -> Result:
    """Jacobians of pre-norm stacks (zeroed and default) and of a zeroed post-norm stack."""
    torch.manual_seed(seed)
    eye = torch.eye(d, dtype=torch.float64)
    with torch.device(device):
        eye = eye.to(device)
        pre = stack_jacobian(PreNormBlock, depth, d, zeroed=True)
        post = stack_jacobian(PostNormBlock, depth, d, zeroed=True)
        default = stack_jacobian(PreNormBlock, depth, d, zeroed=False)
    return Result(
        d=d,
        depth=depth,
        pre_zero_equal=torch.equal(pre, eye),
        pre_zero_max_deviation=(pre - eye).abs().max().item(),
        post_zero_equal=torch.equal(post, eye),
        post_zero_max_deviation=(post - eye).abs().max().item(),
        pre_default_equal=torch.equal(default, eye),
        pre_default_max_deviation=(default - eye).abs().max().item(),
    )


if __name__ == "__main__":
    print(measure())
