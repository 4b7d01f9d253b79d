"""The residual block: a projection shortcut for blocks that change width, and what happens
without one.

Letters: N batch size, d_in and d_out the widths before and after the block, e expansion factor.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock


# --8<-- [start:block]
class ProjectionBlock(nn.Module):
    """y = W_s x + F(x): the shortcut is a learned linear map from d_in to d_out."""

    def __init__(self, d_in: int, d_out: int, expansion: int = 4) -> None:
        super().__init__()
        hidden = expansion * d_out
        self.branch = nn.Sequential(
            nn.Linear(d_in, hidden),  # (N, e·d_out)
            nn.ReLU(),
            nn.Linear(hidden, d_out),  # (N, d_out)
        )
        # The branch already ends in a bias; a second one here would be redundant.
        self.shortcut = nn.Linear(d_in, d_out, bias=False)  # (N, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.branch(x)  # (N, d_out)


# --8<-- [end:block]


# --8<-- [start:mistake]
def add_without_projection(x: torch.Tensor, branch: nn.Module) -> torch.Tensor:
    """The bug: an identity shortcut around a branch that changes the width."""
    return x + branch(x)  # (N, d_in) + (N, d_out): no broadcast rule can match these


# --8<-- [end:mistake]


def block_terms(
    block: nn.Module, batch: int, seed: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One random batch through a block that has a `branch`: its input x, output y and F(x).

    Runs any block of this part (the identity-shortcut block too), without autograd, on the
    device its weights are on; the claims compare y - x with F(x).
    """
    first = block.branch[0]
    torch.manual_seed(seed)
    x = torch.randn(batch, first.in_features, device=first.weight.device)  # (N, d_in)
    with torch.no_grad():
        return x, block(x), block.branch(x)


@dataclass(frozen=True)
class Result:
    """Shapes, parameter counts and the error raised by the missing projection."""

    d_in: int
    d_out: int
    expansion: int
    input_shape: list[int]
    output_shape: list[int]
    branch_parameters: int
    shortcut_parameters: int
    total_parameters: int
    error_type: str
    error_message: str
    # the alternatives, run: an identity-shortcut block of width d_in, a shortcut with a bias,
    # and the same addition around a branch that keeps the width
    identity_output_shape: list[int]
    identity_shortcut_parameters: int
    identity_total_parameters: int
    biased_shortcut_parameters: int
    biased_total_parameters: int
    same_width_error_type: str
    same_width_error_message: str


def measure(
    device: str = "cpu",
    seed: int = 0,
    d_in: int = 128,
    d_out: int = 256,
    expansion: int = 4,
    batch: int = 8,
) -> Result:
    """Run a projection block 128 -> 256 and the same addition without the projection."""
    torch.manual_seed(seed)
    block = ProjectionBlock(d_in, d_out, expansion).to(device)
    x = torch.randn(batch, d_in, device=device)
    y = block(x)
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731

    def attempt(branch: nn.Module) -> tuple[str, str]:
        try:
            add_without_projection(x, branch)
        except RuntimeError as err:
            return type(err).__name__, str(err)
        return "", ""

    error_type, message = attempt(block.branch)
    plain = ResidualBlock(d_in, expansion).to(device)
    biased = ProjectionBlock(d_in, d_out, expansion).to(device)
    biased.shortcut = nn.Linear(d_in, d_out).to(device)
    return Result(
        d_in,
        d_out,
        expansion,
        list(x.shape),
        list(y.shape),
        count(block.branch),
        count(block.shortcut),
        count(block),
        error_type,
        message,
        list(plain(x).shape),
        count(plain.shortcut),
        count(plain),
        count(biased.shortcut),
        count(biased),
        *attempt(plain.branch),
    )


if __name__ == "__main__":
    print(measure())
