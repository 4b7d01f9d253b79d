"""Does the best learning rate stay put as a residual stack gets deeper? A trained check of the
branch multipliers 1, 1/sqrt(L) and 1/L on scikit-learn's handwritten digits (shipped with the
package; nothing is downloaded).

Letters: L blocks, s the branch multiplier, d the stream's width, N training images, η Adam's
learning rate (one rate for every weight and every depth). A stack embeds the pixels in d
dimensions, adds L blocks h <- h + s * W2 relu(W1 h), and reads the ten classes out linearly.
Each stack trains full batch (no minibatch noise: a run is a function of its seed and rate)
for a fixed number of steps at every rate of a grid of factors of 2. The best rate is the one
whose training loss, averaged over the run, is lowest: the rate that trains the stack fastest.
(The loss at the end is a noisier guide on a set this small: every good rate ends near zero;
it is kept as a second reading.) Besides the three multipliers at one rate, the 1/sqrt(L)
stacks run once more under depth-muP's rule: the blocks' Adam rate divided by sqrt(L / 2),
relative to the 2-block base. Run `python -m snippets.encyclopedia.depth_transfer` to print.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch import Tensor

from snippets.degradation.training_curves import one_thread
from snippets.encyclopedia.depth_limits import MULTIPLIERS

N, D, STEPS = 640, 64, 60
PIXELS = 64  # each digit is an 8x8 image
DEPTHS = (2, 32)  # a 16x deeper stack
LRS = tuple(2.0**k for k in range(-11, -3))  # Adam's rate, a grid of factors of 2
# 1/sqrt(L) with the blocks' Adam rate times sqrt(DEPTHS[0] / L)
MU_P = "1/√L, depth-μP rate"

# arm -> L -> a loss at each rate of the grid
Curves = dict[str, dict[int, list[float]]]
Data = tuple[Tensor, Tensor]  # images (N, PIXELS) and labels (N,)
Pair = tuple[float, float]


def digits(device: str) -> Data:
    """The first N digits as PIXELS values, scaled to mean 0 and variance 1; their labels."""
    data = load_digits()
    x = torch.tensor(data.data[:N], dtype=torch.float32)
    x = (x - x.mean()) / x.std()
    return x.to(device), torch.tensor(data.target[:N]).to(device)


# --8<-- [start:stack]
def init(L: int, g: torch.Generator, d: int = D) -> dict[str, Tensor]:
    """Weights of an L-block stack. Each branch starts with a write about as large as
    the stream it reads (He-scaled W1, unit-gain W2): the multiplier alone sets rho."""
    return {
        "embed": torch.randn(d, PIXELS, generator=g) / PIXELS**0.5,
        "w1": torch.randn(L, d, d, generator=g) * (2 / d) ** 0.5,
        "w2": torch.randn(L, d, d, generator=g) / d**0.5,
        "head": torch.randn(10, d, generator=g) / d**0.5,
    }


def forward(p: dict[str, Tensor], x: Tensor, s: float) -> Tensor:
    """Embed, L blocks h <- h + s * W2 relu(W1 h), read out: (N, PIXELS) -> (N, 10)."""
    h = x @ p["embed"].T
    for w1, w2 in zip(p["w1"], p["w2"], strict=True):
        h = h + s * torch.relu(h @ w1.T) @ w2.T
    return h @ p["head"].T


def train(L: int, s: float, lr: float, seed: int, xy: Data, block: float = 1) -> Pair:
    """Adam for STEPS full-batch steps at rate lr (the blocks' weights at lr * block):
    the training loss averaged over the run, and at its end (inf where it diverged)."""
    x, y = xy
    g = torch.Generator().manual_seed(seed)  # one start for every multiplier and rate
    p = {k: w.to(x.device).requires_grad_() for k, w in init(L, g).items()}
    groups = [
        {"params": [p["embed"], p["head"]]},
        {"params": [p["w1"], p["w2"]], "lr": lr * block},
    ]
    opt = torch.optim.Adam(groups, lr=lr)
    total = 0.0
    for _ in range(STEPS):
        loss = F.cross_entropy(forward(p, x, s), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    with torch.no_grad():
        end = F.cross_entropy(forward(p, x, s), y).item()
    return tuple(v if math.isfinite(v) else math.inf for v in (total / STEPS, end))


# --8<-- [end:stack]


# --8<-- [start:best]
def best_rate(losses: list[float], lrs: tuple[float, ...] = LRS) -> tuple[float, bool]:
    """log2 of the best rate, and whether it sits at an end of the grid. Between
    grid points: the vertex of the parabola through log(loss) at the best rate and
    its two neighbours."""
    i = min(range(len(lrs)), key=lambda j: losses[j])
    x = math.log2(lrs[i])
    if 0 < i < len(lrs) - 1 and all(map(math.isfinite, losses[i - 1 : i + 2])):
        a, b, c = (math.log(v) for v in losses[i - 1 : i + 2])
        if a + c > 2 * b:  # b is lowest, so the vertex is within half a step of it
            x += 0.5 * (a - c) / (a - 2 * b + c)
    return x, i in (0, len(lrs) - 1)


# --8<-- [end:best]


@dataclass(frozen=True)
class Result:
    seed: int
    depths: tuple[int, ...]
    lrs: tuple[float, ...]
    losses: Curves  # the loss averaged over the run
    best: dict[str, dict[int, float]]  # arm -> L -> log2 of the best rate
    edge: dict[str, dict[int, bool]]  # arm -> L -> best at an end of the grid
    shift: dict[str, float]  # arm -> log2(best at deepest / best at shallowest)
    end_losses: Curves  # the loss at the end of the run
    end_shift: dict[str, float]  # the same shift, the best rate read from end_losses
    cpu_seconds: float


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Every arm at both depths and every rate of the grid, from one seed."""
    start = time.process_time()
    xy = digits(device)
    arms = {m: (mult, lambda L: 1.0) for m, mult in MULTIPLIERS.items()}
    arms[MU_P] = (MULTIPLIERS["1/√L"], lambda L: (DEPTHS[0] / L) ** 0.5)
    runs: dict[str, dict[int, list[tuple[float, float]]]] = {}
    with one_thread():  # small matrices: a second thread only adds waiting
        for name, (mult, rate) in arms.items():
            runs[name] = {
                L: [train(L, mult(L), lr, seed, xy, rate(L)) for lr in LRS]
                for L in DEPTHS
            }
    losses = {
        m: {L: [r[0] for r in v] for L, v in by.items()} for m, by in runs.items()
    }
    ends = {m: {L: [r[1] for r in v] for L, v in by.items()} for m, by in runs.items()}
    best = {m: {L: best_rate(v)[0] for L, v in by.items()} for m, by in losses.items()}
    edge = {m: {L: best_rate(v)[1] for L, v in by.items()} for m, by in losses.items()}
    shift = {m: by[DEPTHS[-1]] - by[DEPTHS[0]] for m, by in best.items()}
    end_best = {m: [best_rate(by[L])[0] for L in DEPTHS] for m, by in ends.items()}
    end_shift = {m: b[-1] - b[0] for m, b in end_best.items()}
    spent = time.process_time() - start
    return Result(seed, DEPTHS, LRS, losses, best, edge, shift, ends, end_shift, spent)


if __name__ == "__main__":
    r = measure()
    lo, hi = r.depths[0], r.depths[-1]
    for name in r.losses:
        print(
            f"s = {name}: best rate 2^{r.best[name][lo]:.2f} at L = {lo},",
            f"2^{r.best[name][hi]:.2f} at L = {hi} (moved {r.shift[name]:+.2f} factors of 2)",
        )
