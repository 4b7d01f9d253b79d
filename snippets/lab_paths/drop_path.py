"""What Lab 1's drop-path listing (snippets/lab_paths/lesions.py) does, measured on its block.

In training, each point keeps its block's write with probability 1 - p on a draw of its own,
and a kept write is scaled by 1/(1 - p); in evaluation every write is added as it is;
`with_drop_path` gives block l of L the probability TOP_DROP * l / L. The measurement shifts
the input by a constant SHIFT, which the branch's BatchNorm removes (its output is the same)
and which keeps the ReLU after the sum from clipping, so each point's write is read back as
output minus input.

The alternatives run through the same checks: Huang et al.'s original form, one draw for the
whole minibatch; a kept write added unscaled; a block that drops in evaluation too; a rule
that counts blocks from 0. `python -m snippets.lab_paths.drop_path` prints the measurement.
"""

# site: not-a-listing (it measures the drop_path listing of lesions.py, which the page shows)

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from snippets.lab_paths.lesions import (
    STEM,
    TOP_DROP,
    WIDTH,
    Block,
    DropPath,
    make_net,
    with_drop_path,
)

POINTS = 20_000  # points in the one training batch the block sees
SHIFT = 50.0  # added to every input coordinate: the BatchNorm removes it, the ReLU then never clips
BLOCKS = 30  # the lab's depth, for the rule


class OneDrawDropPath(DropPath):
    """Huang et al.'s form: one draw per minibatch, so all points keep or all drop."""

    def forward(self, x: Tensor) -> Tensor:
        write = self.block.branch(x)
        if self.training:
            keep = torch.rand((), device=x.device) >= self.p
            write = write * keep / (1 - self.p)
        return torch.relu(x + write)


class UnscaledDropPath(DropPath):
    """A kept write added as it is (keep read as a yes/no flag): the mean write shrinks."""

    def forward(self, x: Tensor) -> Tensor:
        write = self.block.branch(x)
        if self.training:
            write = write * (torch.rand(len(x), 1, device=x.device) >= self.p)
        return torch.relu(x + write)


class AlwaysDropPath(DropPath):
    """Drops in evaluation too (the `if self.training` left out)."""

    def forward(self, x: Tensor) -> Tensor:
        write = self.block.branch(x)
        keep = torch.rand(len(x), 1, device=x.device) >= self.p
        return torch.relu(x + write * keep / (1 - self.p))


def rule_from_zero(blocks: int) -> list[float]:
    """The linear rule counted from 0: block 1 is never dropped, block L less often."""
    return [TOP_DROP * i / blocks for i in range(blocks)]


@dataclass
class Training:
    """One training-mode pass of a drop-path block over POINTS points."""

    p: float
    kept_share: float  # points whose write survived
    scale_error: float  # max over kept points of |write / branch x (1 - p) - 1|
    dropped_max: float  # largest |write| among dropped points
    mean_ratio: (
        float  # mean |write| / mean |branch output|, over all points and coordinates
    )


def training_pass(
    kind: type[DropPath], seed: int, device: str = "cpu", p: float = TOP_DROP
) -> Training:
    """A fresh residual block wrapped in `kind`, one training pass, each point's write read back."""
    torch.manual_seed(seed)
    block = Block(WIDTH, residual=True).to(device)
    x = torch.randn(POINTS, WIDTH, device=device) + SHIFT  # (N, d)
    with torch.no_grad():
        branch = block.branch(
            x
        )  # (N, d): training-mode BatchNorm, batch statistics, no randomness
        write = kind(block, p).train()(x) - x  # (N, d)
    size = branch.abs().mean(1)  # (N,)
    kept = (
        write.abs().mean(1) > 0.5 * size
    )  # a kept write is the branch's times 1/(1-p) >= 1; dropped ~0
    ratio = write[kept] / branch[kept]
    big = branch[kept].abs() > 0.1  # away from zero, where the ratio is well defined
    scale_error = ((ratio[big] * (1 - p) - 1).abs().max().item()) if kept.any() else 0.0
    return Training(
        p=p,
        kept_share=kept.float().mean().item(),
        scale_error=scale_error,
        dropped_max=write[~kept].abs().max().item() if (~kept).any() else 0.0,
        mean_ratio=(write.abs().mean() / branch.abs().mean()).item(),
    )


def evaluation_equal(
    kind: type[DropPath], seed: int, device: str = "cpu", points: int = 1024
) -> bool:
    """Whether, in evaluation, the wrapped block's output is the residual block's, bit for bit."""
    torch.manual_seed(seed)
    block = Block(WIDTH, residual=True).to(device).eval()
    x = torch.randn(points, WIDTH, device=device)
    with torch.no_grad():
        return torch.equal(kind(block, TOP_DROP).eval()(x), block(x))


def listing_rule(blocks: int = BLOCKS) -> list[float]:
    """The probabilities `with_drop_path` gives blocks 1..L of a lab net, read off its blocks."""
    net = with_drop_path(make_net(blocks, residual=True), blocks)
    return [float(net[STEM + i].p) for i in range(blocks)]


def stated_rule(blocks: int = BLOCKS) -> list[float]:
    """The page's rule: p_l = TOP_DROP * l / L for l = 1..L."""
    return [TOP_DROP * block / blocks for block in range(1, blocks + 1)]


def measure(device: str = "cpu", seed: int = 0) -> dict[str, object]:
    """The listing's block and its alternatives, in training and in evaluation, and the rule."""
    return {
        "training": {
            "drop-path": training_pass(DropPath, seed, device),
            "one draw per minibatch": training_pass(OneDrawDropPath, seed, device),
            "unscaled": training_pass(UnscaledDropPath, seed, device),
        },
        "evaluation_equal": {
            "drop-path": evaluation_equal(DropPath, seed, device),
            "drops in evaluation too": evaluation_equal(AlwaysDropPath, seed, device),
        },
        "rule": {
            "listing": listing_rule(),
            "stated": stated_rule(),
            "from zero": rule_from_zero(BLOCKS),
        },
    }


if __name__ == "__main__":
    for name, value in measure().items():
        print(name, value)
