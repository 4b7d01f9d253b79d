"""Lab 1: delete blocks of a trained 30-block residual net and of a plain net of the same depth,
one at a time and k at a time; swap neighbouring blocks; then train with drop-path.

Letters: L blocks (30), d width (32), K classes (10), k blocks deleted at once, p_l the
probability that block l's branch is dropped for one training point (stochastic depth's
linear rule, up to 0.5 at the top). The data are scikit-learn's handwritten digits (1,797
8×8 images, shipped with the package): each seed draws its own split into training and
test images. A block is Part 1's (two Linear layers with BatchNorm); the plain net is the
same layers without the shortcuts and without BatchNorm (with biases instead), since a plain
BatchNorm stack this deep starts with exploding gradients (Part 1) and does not train.
Run `python -m snippets.lab_paths.lesions` to print what the page states.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

BLOCKS, WIDTH, K, STEM = 30, 32, 10, 3  # make_net puts 3 stem modules before the blocks
TEST = 500  # test images per split; the other 1,297 train
STEPS, BATCH, LR = 500, 128, 2e-3  # Adam steps, minibatch size, learning rate
TOP_DROP = 0.5  # p_L, the top block's drop probability
KS = (1, 2, 3, 4, 6, 8, 10)  # blocks deleted at once for the deletion curve
SAMPLES = 10  # random sets of k blocks per k


def make_data(seed: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The digits, pixels standardised by the training images; a split drawn from the seed."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32)  # (1797, 64)
    y = torch.tensor(digits.target)  # (1797,)
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    test, train = order[:TEST], order[TEST:]
    mean, std = (
        x[train].mean(0),
        x[train].std(0) + 1,
    )  # +1: some border pixels are always 0
    x = (x - mean) / std
    return x[train], y[train], x[test], y[test]


class Block(nn.Module):
    """Residual: ReLU(x + BN(W2 ReLU(BN(W1 x)))), Part 1's block.
    Plain: ReLU(W2 ReLU(W1 x + b1) + b2), no shortcut and no BatchNorm."""

    def __init__(self, d: int, residual: bool) -> None:
        super().__init__()
        norm = (lambda: nn.BatchNorm1d(d)) if residual else nn.Identity
        self.residual = residual
        self.branch = nn.Sequential(
            nn.Linear(d, d, bias=not residual),
            norm(),
            nn.ReLU(),
            nn.Linear(d, d, bias=not residual),
            norm(),
        )

    def forward(self, x: Tensor) -> Tensor:
        return torch.relu(
            x + self.branch(x) if self.residual else self.branch(x)
        )  # (N, d)


def make_net(blocks: int, residual: bool, d: int = WIDTH) -> nn.Sequential:
    """Stem, blocks, head, He (Kaiming-normal) init."""
    stem = [nn.Linear(64, d, bias=False), nn.BatchNorm1d(d), nn.ReLU()]
    net = nn.Sequential(
        *stem, *(Block(d, residual) for _ in range(blocks)), nn.Linear(d, K)
    )
    for layer in net.modules():
        if isinstance(layer, nn.Linear):
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
            if layer.bias is not None:
                nn.init.zeros_(layer.bias)
    return net


# --8<-- [start:lesion]
def delete_blocks(net: nn.Sequential, blocks: set[int]) -> nn.Sequential:
    """The trained net without these blocks: each one's input goes on to the next."""
    return nn.Sequential(*(m for j, m in enumerate(net) if j - STEM not in blocks))


def swap_blocks(net: nn.Sequential, i: int) -> nn.Sequential:
    """The trained net with blocks i and i + 1 run in the opposite order."""
    layers = list(net)
    layers[STEM + i], layers[STEM + i + 1] = layers[STEM + i + 1], layers[STEM + i]
    return nn.Sequential(*layers)


# --8<-- [end:lesion]


# --8<-- [start:drop_path]
class DropPath(nn.Module):
    """A residual block whose branch is skipped for a random share p of the points."""

    def __init__(self, block: Block, p: float) -> None:
        super().__init__()
        self.block, self.p = block, p

    def forward(self, x: Tensor) -> Tensor:
        write = self.block.branch(x)  # (N, d)
        if self.training:  # keep each point's write with probability 1 - p, scaled up
            keep = torch.rand(len(x), 1, device=x.device) >= self.p  # (N, 1)
            write = write * keep / (1 - self.p)
        return torch.relu(x + write)  # (N, d)


def with_drop_path(net: nn.Sequential, blocks: int) -> nn.Sequential:
    """Wrap block l = 1..L with p_l = TOP_DROP * l / L; the weights stay the same."""
    layers = list(net)
    for i in range(blocks):
        layers[STEM + i] = DropPath(layers[STEM + i], TOP_DROP * (i + 1) / blocks)
    return nn.Sequential(*layers)


# --8<-- [end:drop_path]

NETS = {"plain": (False, False), "residual": (True, False), "drop-path": (True, True)}


def train(net: nn.Module, x: Tensor, y: Tensor, seed: int) -> float:
    """Adam for STEPS minibatches of BATCH; returns the last minibatch's loss."""
    opt = torch.optim.Adam(net.parameters(), lr=LR)
    shuffle = torch.Generator().manual_seed(seed)  # same batches, same order, every net
    net.train()
    step = 0
    while step < STEPS:
        for idx in torch.randperm(len(x), generator=shuffle).split(BATCH):
            loss = F.cross_entropy(net(x[idx]), y[idx])  # (B, K) logits vs (B,) labels
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step == STEPS:
                break
    return loss.item()


def error(net: nn.Module, x: Tensor, y: Tensor) -> float:
    """Fraction of images misclassified, BatchNorm in inference mode."""
    net.eval()
    with torch.no_grad():
        return (net(x).argmax(dim=1) != y).float().mean().item()


@dataclass(frozen=True)
class Lesions:
    """One trained net: its test error intact, with each block deleted, with k random blocks
    deleted, with each neighbouring pair swapped; its training error intact."""

    intact: float
    train_error: float
    deleted: list[float]  # block i deleted, i = 1..L
    curve: dict[int, list[float]]  # k -> test error for SAMPLES random sets of k blocks
    swapped: list[float]  # blocks i and i + 1 swapped, i = 1..L-1


@dataclass(frozen=True)
class Result:
    seed: int
    blocks: int
    train_images: int
    test_images: int
    nets: dict[str, Lesions]  # "plain", "residual", "drop-path"


def lesions(
    net: nn.Sequential, data: tuple[Tensor, ...], blocks: int, seed: int
) -> Lesions:
    xtr, ytr, x, y = data
    pick = torch.Generator().manual_seed(seed)  # the same random sets for every net

    def random_sets(k: int) -> list[set[int]]:
        return [
            set(torch.randperm(blocks, generator=pick)[:k].tolist())
            for _ in range(SAMPLES)
        ]

    return Lesions(
        error(net, x, y),
        error(net, xtr, ytr),
        [error(delete_blocks(net, {i}), x, y) for i in range(blocks)],
        {k: [error(delete_blocks(net, s), x, y) for s in random_sets(k)] for k in KS},
        [error(swap_blocks(net, i), x, y) for i in range(blocks - 1)],
    )


@contextmanager
def one_thread() -> Iterator[None]:
    """Run on one CPU thread: for ops this small, a second thread only adds waiting."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def measure(device: str = "cpu", seed: int = 0, blocks: int = BLOCKS) -> Result:
    """Train the three nets on one seed's split of the digits, then lesion each."""
    data = tuple(t.to(device) for t in make_data(seed))
    out = {}
    with one_thread():
        for name, (residual, drop) in NETS.items():
            torch.manual_seed(seed)  # the same initial weights for both residual nets
            net = make_net(blocks, residual)
            net = (with_drop_path(net, blocks) if drop else net).to(device)
            train(net, data[0], data[1], seed)
            out[name] = lesions(net, data, blocks, seed)
    return Result(seed, blocks, len(data[0]), len(data[2]), out)


if __name__ == "__main__":
    r = measure()
    for name, s in r.nets.items():
        print(
            f"{name:9} test error intact {s.intact:.3f} (training {s.train_error:.3f});",
            "one block deleted:",
        )
        print("   ", " ".join(f"{e:.2f}" for e in s.deleted))
        print(
            "    k deleted:",
            " ".join(f"{k}: {sum(v) / len(v):.2f}" for k, v in s.curve.items()),
        )
