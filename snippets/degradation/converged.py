"""The degradation problem, trained to a plateau: the miniature's four nets (plain and
residual, shallow and deep), each at every learning rate of a grid, long enough that the
shallow nets have stopped improving.

Letters: N training points, d width, K classes, B batch size (training_curves.py's data and
nets, unchanged); T the steps of one run. The schedule is SGD with momentum and a cosine decay
of the rate to zero, so that every run ends at rest. `measure` sweeps one family of nets
(plain or residual) over the rate grid; `follow_up` trains one net at one rate for longer, or
with a linear warm-up, from the same start (the convergence check and the warm-up control).
The write ratios ‖F(h)‖/‖h‖ of each residual block, and the cosine between F(h) and h, are
read at initialisation and after training; for the plain nets, the input gradient's growth
per weight layer (the BatchNorm explosion) is read at both times too.
"""

from __future__ import annotations

import copy
import math
import statistics
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from snippets.degradation.training_curves import (
    BATCH,
    DEEP,
    SHALLOW,
    make_data,
    make_net,
    net_name,
    one_thread,
    training_error,
)

STEPS = 400  # T: 50 epochs of N / B minibatches
# Factors of 2; each net of a family is trained at every rate of its grid. The plain grid reaches
# two steps lower: the deep plain net's loss is nearly flat near its best rate.
PLAIN_LRS = (0.00625, 0.0125, 0.025, 0.05, 0.1, 0.2, 0.4)
RESIDUAL_LRS = PLAIN_LRS[2:]
WARMUP = 40  # steps of linear warm-up in the control run (a tenth of T)
WARMUP_FACTORS = (
    0.5,
    1,
    2,
    4,
)  # the control's rates, as multiples of the net's best rate without it


# --8<-- [start:train]
def rate(t: int, steps: int, lr: float, warmup: int = 0) -> float:
    """Linear warm-up over `warmup` steps, then a cosine decay from lr to 0 at T."""
    if t < warmup:
        return lr * (t + 1) / warmup
    return lr * 0.5 * (1 + math.cos(math.pi * (t - warmup) / (steps - warmup)))


def train(
    net: nn.Module,
    x: Tensor,
    y: Tensor,
    seed: int,
    steps: int,
    lr: float,
    warmup: int = 0,
) -> list[float]:
    """SGD, momentum 0.9, minibatches of B; returns each epoch's mean loss."""
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    shuffle = torch.Generator().manual_seed(seed)  # same batches for every net
    curve, t = [], 0
    while t < steps:
        losses = []
        for idx in torch.randperm(len(x), generator=shuffle).split(BATCH):
            if t == steps:
                break
            for group in opt.param_groups:
                group["lr"] = rate(t, steps, lr, warmup)
            loss = F.cross_entropy(net(x[idx]), y[idx])  # (B, K) vs (B,)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            t += 1
        curve.append(sum(losses) / len(losses))
    return curve


# --8<-- [end:train]


# --8<-- [start:writes]
def writes(net: nn.Sequential, x: Tensor) -> tuple[list[float], list[float]]:
    """Per residual block: ‖F(h)‖ / ‖h‖ and cos(F(h), h), on all N points."""
    ratio, cosine = [], []
    with torch.no_grad():
        h = net[:3](x)  # the stem's output: the stream entering block 1, (N, d)
        for block in net[3:-1]:
            f = block.branch(h)  # (N, d)
            ratio.append((f.norm() / h.norm()).item())
            cosine.append(F.cosine_similarity(f.flatten(), h.flatten(), dim=0).item())
            h = block(h)
    return ratio, cosine


# --8<-- [end:writes]


def gradient_growth(net: nn.Sequential, x: Tensor, y: Tensor) -> float:
    """Per weight layer: (‖∂L/∂h‖ at block 1's input / at the last block's output)^(1/layers)."""
    net = copy.deepcopy(
        net
    ).train()  # batch statistics, as in training; the original is left alone
    h0 = net[:3](x).detach().requires_grad_()
    h = h0
    outs = []
    for block in net[3:-1]:
        h = block(h)
        outs.append(h)
    outs[-1].retain_grad()
    F.cross_entropy(net[-1](h), y).backward()
    layers = 2 * len(outs)
    return (h0.grad.norm() / outs[-1].grad.norm()).item() ** (1 / layers)


@dataclass(frozen=True)
class Run:
    """One net trained at one rate: its curve, final training error, and the readings at
    initialisation (`*_init`) and after training."""

    curve: list[float]
    error: float
    write_ratio: list[float]
    write_cos: list[float]
    write_ratio_init: list[float]
    write_cos_init: list[float]
    growth: float
    growth_init: float

    @property
    def loss(self) -> float:
        return self.curve[-1]


def one_run(
    seed: int,
    blocks: int,
    residual: bool,
    lr: float,
    steps: int,
    warmup: int,
    device: str,
) -> Run:
    x, y = (t.to(device) for t in make_data(seed))
    torch.manual_seed(seed)  # the same initial weights at every rate
    net = make_net(blocks, residual).to(device)
    ratio0, cos0 = writes(copy.deepcopy(net).train(), x) if residual else ([], [])
    growth0 = gradient_growth(net, x, y)
    curve = train(net, x, y, seed, steps, lr, warmup)
    ratio, cos = writes(copy.deepcopy(net).train(), x) if residual else ([], [])
    growth = gradient_growth(net, x, y)
    return Run(
        curve, training_error(net, x, y), ratio, cos, ratio0, cos0, growth, growth0
    )


@dataclass(frozen=True)
class Result:
    """runs[net][lr] for one seed and one family (plain or residual), both depths."""

    seed: int
    steps: int
    runs: dict[str, dict[float, Run]]


def measure(
    device: str = "cpu",
    seed: int = 0,
    residual: bool = False,
    steps: int = STEPS,
) -> Result:
    """The shallow and the deep net of one family, each trained at every rate of its grid."""
    lrs = RESIDUAL_LRS if residual else PLAIN_LRS
    runs: dict[str, dict[float, Run]] = {}
    with one_thread():
        for blocks in (SHALLOW, DEEP):
            name = net_name(blocks, residual)
            runs[name] = {
                lr: one_run(seed, blocks, residual, lr, steps, 0, device) for lr in lrs
            }
    return Result(seed, steps, runs)


def follow_up(
    device: str = "cpu",
    seed: int = 0,
    blocks: int = SHALLOW,
    residual: bool = False,
    lr: float = 0.1,
    steps: int = STEPS,
    warmup: int = 0,
) -> Run:
    """One net at one rate, from the same start as in `measure`: longer, or with warm-up."""
    with one_thread():
        return one_run(seed, blocks, residual, lr, steps, warmup, device)


if __name__ == "__main__":
    r = measure(steps=64)
    for name, by_lr in r.runs.items():
        print(name, {lr: round(run.loss, 3) for lr, run in by_lr.items()})


# Reading a sweep (a list of per-seed Results): the analysis both sweeps' claims share.
def grid(sweep: list[Result]) -> list[float]:
    """The rates every net was trained at (the same for every seed and net)."""
    grids = {tuple(sorted(by_lr)) for r in sweep for by_lr in r.runs.values()}
    assert len(grids) == 1, grids
    return list(grids.pop())


def median_loss(sweep: list[Result], net: str) -> dict[float, float]:
    """Per rate: the net's median final loss over the seeds."""
    return {
        lr: statistics.median(r.runs[net][lr].loss for r in sweep) for lr in grid(sweep)
    }


def best_rate(sweep: list[Result], net: str) -> float:
    """The net's own best rate: the lowest median final loss over the seeds."""
    m = median_loss(sweep, net)
    return min(m, key=m.get)


def at_best(sweep: list[Result], net: str) -> list[Run]:
    """The net's run at its own best rate, per seed."""
    lr = best_rate(sweep, net)
    return [r.runs[net][lr] for r in sweep]


def paired(deep: list[Run], shallow: list[Run]) -> list[float]:
    """Per seed: the deep net's final loss minus the shallow net's."""
    return [d.loss - s.loss for d, s in zip(deep, shallow, strict=True)]


def ends_of_grid(sweep: list[Result], net: str) -> list[float]:
    """Median final loss at the grid's lowest and highest rate over the median at the best
    rate (the best rate is chosen on the medians, so on the medians it must lie inside)."""
    lrs, m = grid(sweep), median_loss(sweep, net)
    return [m[end] / m[best_rate(sweep, net)] for end in (lrs[0], lrs[-1])]
