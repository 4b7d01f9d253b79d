"""The degradation problem: a miniature of He et al.'s Figure 1: two plain depths and a residual
net.

Letters: N training points, d width, K classes, B batch size (the constants below).
A "block" is two weight layers; a net is a stem layer, its blocks and a linear head, so
SHALLOW and DEEP blocks give the two depths the page compares (about the ratio of He et
al.'s two plain CIFAR-10 nets); `weight_layers` counts them on the built nets. Fully
connected layers with BatchNorm1d stand in for their 3×3 convolutions with BatchNorm;
every net gets the same data, steps and learning rate. The plain nets are trained again
at each learning rate of a log grid (LRS), so that each depth can be compared at the rate
that suits it best.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

N, D_IN, K, WIDTH = 1024, 16, 10, 32
BATCH = 128  # B: the minibatch train() draws
SHALLOW, DEEP = 3, 10  # blocks
LR = 0.02  # the one learning rate the three nets share
LRS = (0.01, 0.02, 0.04, 0.08, 0.16)  # the plain nets' sweep: factors of 2 around LR


# --8<-- [start:data]
def make_data(seed: int) -> tuple[Tensor, Tensor]:
    """Gaussian inputs labelled by a fixed random tanh network (K classes)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(N, D_IN, generator=g)  # (N, 16)
    w1 = torch.randn(D_IN, 64, generator=g) * 1.5 / D_IN**0.5  # (16, 64)
    w2 = torch.randn(64, 64, generator=g) * 1.5 / 64**0.5  # (64, 64)
    w3 = torch.randn(64, K, generator=g) * 1.5 / 64**0.5  # (64, K)
    logits = torch.tanh(torch.tanh(x @ w1) @ w2) @ w3  # (N, K)
    return x, logits.argmax(dim=1)  # (N, 16), (N,)


# --8<-- [end:data]


# --8<-- [start:nets]
class ResidualBlock(nn.Module):
    """He et al.'s basic block, Linear for conv: ReLU(x + BN(W2 ReLU(BN(W1 x))))."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.branch = nn.Sequential(
            nn.Linear(d, d, bias=False),  # BN's shift β does the bias's job
            nn.BatchNorm1d(d),
            nn.ReLU(),
            nn.Linear(d, d, bias=False),
            nn.BatchNorm1d(d),  # (N, d)
        )
        self.shortcut = nn.Identity()

    def forward(self, x: Tensor) -> Tensor:
        return torch.relu(self.shortcut(x) + self.branch(x))  # (N, d)


def make_net(blocks: int, residual: bool, d: int = WIDTH) -> nn.Sequential:
    """Stem, blocks, head. A plain block is the residual block minus its shortcut."""
    body = [
        ResidualBlock(d)
        if residual
        else nn.Sequential(ResidualBlock(d).branch, nn.ReLU())
        for _ in range(blocks)
    ]
    stem = [nn.Linear(D_IN, d, bias=False), nn.BatchNorm1d(d), nn.ReLU()]
    net = nn.Sequential(*stem, *body, nn.Linear(d, K))  # (N, 16) -> (N, K)
    for layer in net.modules():
        if isinstance(layer, nn.Linear):  # He (Kaiming-normal) init, as in the paper
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
    return net


# --8<-- [end:nets]


# --8<-- [start:train]
def train(
    net: nn.Module, x: Tensor, y: Tensor, seed: int, epochs: int = 40, lr: float = 0.02
) -> list[float]:
    """SGD, momentum 0.9, minibatches of B = BATCH; returns each epoch's mean training loss."""
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    shuffle = torch.Generator().manual_seed(seed)  # same batches, same order, every net
    curve = []
    for _ in range(epochs):
        losses = []
        for idx in torch.randperm(len(x), generator=shuffle).split(BATCH):
            loss = F.cross_entropy(net(x[idx]), y[idx])  # (B, K) logits vs (B,) labels
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        curve.append(sum(losses) / len(losses))
    return curve


def training_error(net: nn.Module, x: Tensor, y: Tensor) -> float:
    """Fraction of training points misclassified, BatchNorm in inference mode."""
    net.eval()
    with torch.no_grad():
        return (net(x).argmax(dim=1) != y).float().mean().item()


# --8<-- [end:train]


def weight_layers(blocks: int, residual: bool) -> int:
    """Layers with weights (Linear) in the net of that many blocks, counted on the built net
    (meta device: shapes only, no memory, and the random generators are left alone)."""
    with torch.device("meta"):
        net = make_net(blocks, residual)
    return sum(isinstance(m, nn.Linear) for m in net.modules())


def net_name(blocks: int, residual: bool) -> str:
    """'plain, 8 layers': the kind of net and its weight layers as counted."""
    return f"{'residual' if residual else 'plain'}, {weight_layers(blocks, residual)} layers"


# The three nets, named by what they are: shallow plain, deep plain and deep residual.
NETS = {
    net_name(b, r): (b, r) for b, r in ((SHALLOW, False), (DEEP, False), (DEEP, True))
}


@dataclass(frozen=True)
class Result:
    """Per net: the loss curve, its final value and the final training error, for one seed;
    per plain net and learning rate of LRS, the final loss."""

    seed: int
    curves: dict[str, list[float]]
    final_loss: dict[str, float]
    final_error: dict[str, float]
    lr_loss: dict[str, dict[float, float]]


@contextmanager
def one_thread() -> Iterator[None]:
    """Run on one CPU thread: for ops this small, a second thread only adds waiting."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# --8<-- [start:sweep]
def measure(
    device: str = "cpu", seed: int = 0, epochs: int = 25, lrs: tuple[float, ...] = LRS
) -> Result:
    """Train the three nets on the same data and seed, the same number of steps at LR;
    then the two plain nets at every other rate in `lrs`, from the same start."""
    x, y = (t.to(device) for t in make_data(seed))
    curves, errors = {}, {}
    lr_loss: dict[str, dict[float, float]] = {}
    with one_thread():
        for name, (blocks, residual) in NETS.items():
            torch.manual_seed(seed)
            net = make_net(blocks, residual).to(device)
            curves[name] = train(net, x, y, seed, epochs, LR)
            errors[name] = training_error(net, x, y)
            if residual:
                continue
            lr_loss[name] = {LR: curves[name][-1]}
            for lr in (r for r in lrs if r != LR):
                torch.manual_seed(seed)  # the same initial weights as at LR
                net = make_net(blocks, residual).to(device)
                lr_loss[name][lr] = train(net, x, y, seed, epochs, lr)[-1]
    final = {k: c[-1] for k, c in curves.items()}
    return Result(seed, curves, final, errors, lr_loss)


# --8<-- [end:sweep]


if __name__ == "__main__":
    r = measure()
    for name in NETS:
        print(
            f"{name:20} loss {r.final_loss[name]:.3f}  error {r.final_error[name]:.3f}"
        )
