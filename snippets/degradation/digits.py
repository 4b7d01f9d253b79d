"""The degradation problem on real images: small plain convolutional nets against ResNets of
the same depths on scikit-learn's handwritten digits (1,797 grey 8×8 images, shipped with the
package; nothing is downloaded).

Letters: N training images (a fixed split: the first N of the set), c channels, n blocks of two
3×3 convolutions; a net has a stem convolution, n blocks, global average pooling and a linear
head, so 2n + 2 weight layers, like He et al.'s CIFAR-10 nets with one stage instead of three
(the images are 8×8, too small to downsample). Every net gets the same data, batches, steps
and learning rate, as in He et al.'s Figure 6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch import Tensor, nn

from snippets.degradation.training_curves import one_thread

N, CHANNELS, BATCH = 1280, 8, 128
BLOCKS = (
    3,
    21,
)  # n: nets of 8 and 44 weight layers, two of He et al.'s CIFAR-10 depths
STEPS, LR = 300, 0.05  # 30 epochs of N / B minibatches; SGD, momentum 0.9, cosine decay


# --8<-- [start:data]
def load() -> tuple[Tensor, Tensor]:
    """The first N digit images, scaled to mean 0 and variance 1, and their labels."""
    digits = load_digits()  # (1797, 8, 8) pixel values 0..16, labels 0..9
    x = torch.tensor(digits.images[:N], dtype=torch.float32).unsqueeze(
        1
    )  # (N, 1, 8, 8)
    y = torch.tensor(digits.target[:N])  # (N,)
    return (x - x.mean()) / x.std(), y


# --8<-- [end:data]


# --8<-- [start:nets]
class Block(nn.Module):
    """He et al.'s basic block: ReLU(x + BN(conv(ReLU(BN(conv(x)))))); plain: no x."""

    def __init__(self, c: int, residual: bool) -> None:
        super().__init__()
        self.residual = residual
        self.branch = nn.Sequential(
            nn.Conv2d(c, c, 3, padding=1, bias=False),
            nn.BatchNorm2d(c),
            nn.ReLU(),
            nn.Conv2d(c, c, 3, padding=1, bias=False),
            nn.BatchNorm2d(c),  # (B, c, 8, 8)
        )

    def forward(self, x: Tensor) -> Tensor:
        return torch.relu(x + self.branch(x) if self.residual else self.branch(x))


def make_net(blocks: int, residual: bool, c: int = CHANNELS) -> nn.Sequential:
    """Stem, n blocks, pooling and a linear head: 2n + 2 weight layers."""
    stem = [nn.Conv2d(1, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU()]
    body = [Block(c, residual) for _ in range(blocks)]
    head = [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 10)]
    net = nn.Sequential(*stem, *body, *head)  # (B, 1, 8, 8) -> (B, 10)
    for layer in net.modules():
        if isinstance(layer, (nn.Conv2d, nn.Linear)):  # He init, as in the paper
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
    return net


# --8<-- [end:nets]


# --8<-- [start:train]
def train(
    net: nn.Module, x: Tensor, y: Tensor, seed: int, steps: int, lr: float
) -> list[float]:
    """SGD, momentum 0.9, cosine decay to 0; returns each epoch's mean loss."""
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    shuffle = torch.Generator().manual_seed(seed)  # same batches for every net
    curve, t = [], 0
    while t < steps:
        losses = []
        for idx in torch.randperm(len(x), generator=shuffle).split(BATCH):
            if t == steps:
                break
            for group in opt.param_groups:
                group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * t / steps))
            loss = F.cross_entropy(net(x[idx]), y[idx])  # (B, 10) vs (B,)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            t += 1
        curve.append(sum(losses) / len(losses))
    return curve


def training_error(net: nn.Module, x: Tensor, y: Tensor) -> float:
    """Fraction of the N training images misclassified, BN in inference mode."""
    net.eval()
    with torch.no_grad():
        return (net(x).argmax(dim=1) != y).float().mean().item()


# --8<-- [end:train]


def weight_layers(blocks: int) -> int:
    """Convolutions and linear layers in the net of that many blocks, counted on the built net."""
    with torch.device("meta"):
        net = make_net(blocks, False)
    return sum(isinstance(m, (nn.Conv2d, nn.Linear)) for m in net.modules())


@dataclass(frozen=True)
class Result:
    """Per kind ('plain' or 'resnet') and depth in weight layers: curve and training error."""

    seed: int
    steps: int
    curves: dict[str, dict[int, list[float]]]
    error: dict[str, dict[int, float]]


def measure(
    device: str = "cpu",
    seed: int = 0,
    blocks: tuple[int, ...] = BLOCKS,
    steps: int = STEPS,
) -> Result:
    """Plain nets and ResNets of every depth, same data, batches, steps and rate; one seed."""
    x, y = (t.to(device) for t in load())
    curves: dict[str, dict[int, list[float]]] = {"plain": {}, "resnet": {}}
    error: dict[str, dict[int, float]] = {"plain": {}, "resnet": {}}
    with one_thread():
        for kind in curves:
            for n in blocks:
                torch.manual_seed(seed)
                net = make_net(n, kind == "resnet").to(device)
                curves[kind][weight_layers(n)] = train(net, x, y, seed, steps, LR)
                error[kind][weight_layers(n)] = training_error(net, x, y)
    return Result(seed, steps, curves, error)


if __name__ == "__main__":
    r = measure(blocks=(1, 2), steps=20)
    print(r.error)
