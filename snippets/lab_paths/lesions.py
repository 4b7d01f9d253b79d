"""Lab 1: delete or swap single blocks of the degradation miniature's trained nets; then train
with drop-path.

Letters: L blocks (6), N training points, p_l the probability that block l's branch is
dropped for one training point (stochastic depth's linear rule, up to 0.5 at the top).
The nets, data and training loop are the degradation miniature's
(snippets/degradation/training_curves.py).
Run `python -m snippets.lab_paths.lesions` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from snippets.degradation.training_curves import (
    ResidualBlock,
    make_data,
    make_net,
    one_thread,
    train,
    training_error,
)

BLOCKS, STEM = 6, 3  # make_net puts 3 stem modules before the blocks
TOP_DROP = 0.5  # p_L, the top block's drop probability


# --8<-- [start:lesion]
def delete_block(net: nn.Sequential, i: int) -> nn.Sequential:
    """The trained net without block i: its input goes straight to block i + 1."""
    return nn.Sequential(*(m for j, m in enumerate(net) if j != STEM + i))


def swap_blocks(net: nn.Sequential, i: int) -> nn.Sequential:
    """The trained net with blocks i and i + 1 run in the opposite order."""
    layers = list(net)
    layers[STEM + i], layers[STEM + i + 1] = layers[STEM + i + 1], layers[STEM + i]
    return nn.Sequential(*layers)


# --8<-- [end:lesion]


# --8<-- [start:drop_path]
class DropPath(nn.Module):
    """A residual block whose branch is skipped for a random share p of the points."""

    def __init__(self, block: ResidualBlock, p: float) -> None:
        super().__init__()
        self.block, self.p = block, p

    def forward(self, x: Tensor) -> Tensor:
        write = self.block.branch(x)  # (N, d)
        if self.training:  # keep each point's write with probability 1 - p, scaled up
            keep = torch.rand(len(x), 1, device=x.device) >= self.p  # (N, 1)
            write = write * keep / (1 - self.p)
        return torch.relu(self.block.shortcut(x) + write)  # (N, d)


def with_drop_path(net: nn.Sequential, blocks: int) -> nn.Sequential:
    """Wrap block l = 1..L with p_l = TOP_DROP * l / L; the weights stay the same."""
    layers = list(net)
    for i in range(blocks):
        layers[STEM + i] = DropPath(layers[STEM + i], TOP_DROP * (i + 1) / blocks)
    return nn.Sequential(*layers)


# --8<-- [end:drop_path]

NETS = {"plain": (False, False), "residual": (True, False), "drop-path": (True, True)}


@dataclass(frozen=True)
class Lesions:
    """One trained net: its error intact, with each block deleted, with each pair swapped."""

    intact: float
    deleted: list[float]  # block i deleted, i = 1..L
    swapped: list[float]  # blocks i and i + 1 swapped, i = 1..L-1


@dataclass(frozen=True)
class Result:
    seed: int
    blocks: int
    nets: dict[str, Lesions]  # "plain", "residual", "drop-path"


def lesions(net: nn.Sequential, x: Tensor, y: Tensor, blocks: int) -> Lesions:
    return Lesions(
        training_error(net, x, y),
        [training_error(delete_block(net, i), x, y) for i in range(blocks)],
        [training_error(swap_blocks(net, i), x, y) for i in range(blocks - 1)],
    )


def measure(device: str = "cpu", seed: int = 0, blocks: int = BLOCKS) -> Result:
    """Train the three nets on the degradation miniature's data and recipe, from one seed, then
    lesion each."""
    x, y = (t.to(device) for t in make_data(seed))
    out = {}
    with one_thread():
        for name, (residual, drop) in NETS.items():
            torch.manual_seed(seed)  # the same initial weights for both residual nets
            net = make_net(blocks, residual)
            net = (with_drop_path(net, blocks) if drop else net).to(device)
            train(net, x, y, seed)
            out[name] = lesions(net, x, y, blocks)
    return Result(seed, blocks, out)


if __name__ == "__main__":
    r = measure()
    for name, s in r.nets.items():
        print(
            f"{name:9} intact {s.intact:.3f}  one block deleted:",
            " ".join(f"{e:.2f}" for e in s.deleted),
        )
