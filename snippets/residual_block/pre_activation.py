"""The residual block: post-activation (He et al. 2015) versus pre-activation (He et al. 2016)
block order.

Letters: N batch size, d stream width. BN is BatchNorm1d, the fully connected analogue of the
convolutional blocks in the papers.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


# --8<-- [start:blocks]
class PostActBlock(nn.Module):
    """Original order, y = ReLU(x + BN(W2·ReLU(BN(W1·x)))): a ReLU on the stream."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.branch = nn.Sequential(
            nn.Linear(d, d, bias=False),
            nn.BatchNorm1d(d),
            nn.ReLU(),  # (N, d)
            nn.Linear(d, d, bias=False),
            nn.BatchNorm1d(d),  # (N, d)
        )
        self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.shortcut(x) + self.branch(x))  # (N, d)


class PreActBlock(nn.Module):
    """Pre-activation, y = x + W2·ReLU(BN(W1·ReLU(BN(x)))): the stream is untouched."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.branch = nn.Sequential(
            nn.BatchNorm1d(d),
            nn.ReLU(),
            nn.Linear(d, d),  # (N, d)
            nn.BatchNorm1d(d),
            nn.ReLU(),
            nn.Linear(d, d),  # (N, d)
        )
        self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.branch(x)  # (N, d)


# --8<-- [end:blocks]


# --8<-- [start:zero]
def zero_branch(block: nn.Module) -> nn.Module:
    """Zero the branch's last layer (W2 and bias, or BN's γ and β): F(x) = 0."""
    for p in block.branch[-1].parameters():
        nn.init.zeros_(p)
    return block


# --8<-- [end:zero]


@dataclass(frozen=True)
class Result:
    """How far each zero-branch block is from the identity on one batch."""

    pre_max_deviation: float
    pre_equal: bool
    post_max_deviation: float
    post_equal: bool
    post_changed_fraction: float
    negative_fraction: float
    pre_changed_fraction: float
    pre_unzeroed_equal: bool
    pre_unzeroed_max_deviation: float


def measure(
    device: str = "cpu", seed: int = 0, d: int = 64, batch: int = 256
) -> Result:
    """Feed inputs with both signs through zero-branch pre- and post-activation blocks."""
    torch.manual_seed(seed)
    x = 3 * torch.randn(batch, d, device=device)
    with torch.no_grad():
        pre = zero_branch(PreActBlock(d)).to(device)(x)
        post = zero_branch(PostActBlock(d)).to(device)(x)
        unzeroed = PreActBlock(d).to(device)(x)
    return Result(
        pre_max_deviation=(pre - x).abs().max().item(),
        pre_equal=torch.equal(pre, x),
        post_max_deviation=(post - x).abs().max().item(),
        post_equal=torch.equal(post, x),
        post_changed_fraction=(post != x).float().mean().item(),
        negative_fraction=(x < 0).float().mean().item(),
        pre_changed_fraction=(pre != x).float().mean().item(),
        pre_unzeroed_equal=torch.equal(unzeroed, x),
        pre_unzeroed_max_deviation=(unzeroed - x).abs().max().item(),
    )


if __name__ == "__main__":
    print(measure())
