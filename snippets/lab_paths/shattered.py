"""Lab 1: how alike are the input gradients of the degradation miniature's nets at neighbouring
inputs?

Letters: n grid points (1024) on a line t·v through the input space, t from -2 to 2;
s(t) the gradient of the first logit along the line; L depth in blocks; r the correlation
of s between neighbouring grid points, averaged over LINES random directions v through the same net.
The nets are the degradation miniature's, at initialisation.
Run `python -m snippets.lab_paths.shattered` to print what the page states.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from snippets.degradation.training_curves import D_IN, make_net

DEPTHS = (1, 2, 4, 8, 16, 32)
CURVE_DEPTH, POINTS, WINDOW = 16, 1024, 128
LINES = 8  # random directions per net: one line's r depends on which direction it took
START = (POINTS - WINDOW) // 2  # the recorded stretch of s(t), around t = 0


# --8<-- [start:shatter]
def gradient_along_line(net: nn.Sequential, n: int = POINTS) -> Tensor:
    """s(t) = d(first logit)/dt at x = t·v, for n values of t in [-2, 2]."""
    device = next(net.parameters()).device
    v = torch.randn(D_IN).to(device)  # (16,) a random direction in input space
    x = torch.linspace(-2, 2, n, device=device)[:, None] * v  # (n, 16)
    for bn in (m for m in net.modules() if isinstance(m, nn.BatchNorm1d)):
        bn.momentum = None  # keep the statistics of exactly this batch
    with torch.no_grad():
        net.train()(x)  # BatchNorm learns the grid's mean and variance ...
    net.eval()  # ... then holds them, so each point's gradient is its own
    x.requires_grad_(True)
    net(x)[:, 0].sum().backward()
    return x.grad @ v  # (n,)


def neighbour_correlation(s: Tensor) -> float:
    """Pearson correlation of s(t) with s at the next grid point."""
    return torch.corrcoef(torch.stack([s[1:], s[:-1]]))[0, 1].item()


# --8<-- [end:shatter]


@dataclass(frozen=True)
class Result:
    """r[kind][depth] for one seed, the mean over LINES lines; kind is "plain" or "residual"."""

    seed: int
    r: dict[str, dict[int, float]]
    # s(t) along the first line at CURVE_DEPTH, WINDOW points from START
    curves: dict[str, list[float]]
    lines: int


def measure(device: str = "cpu", seed: int = 0, lines: int = LINES) -> Result:
    """Both kinds of degradation-miniature net at every depth, each built and probed from the same
    seed, along `lines` random directions (each line on a fresh copy of the net)."""
    r: dict[str, dict[int, float]] = {"plain": {}, "residual": {}}
    curves = {}
    for kind in r:
        for depth in DEPTHS:
            torch.manual_seed(seed)
            net = make_net(depth, kind == "residual").to(device)
            along = [
                gradient_along_line(copy.deepcopy(net)).cpu() for _ in range(lines)
            ]
            r[kind][depth] = sum(neighbour_correlation(s) for s in along) / lines
            if depth == CURVE_DEPTH:
                curves[kind] = along[0][START : START + WINDOW].tolist()
    return Result(seed, r, curves, lines)


if __name__ == "__main__":
    for kind, row in measure().r.items():
        print(f"{kind:9}", "  ".join(f"L={L}: {v:+.2f}" for L, v in row.items()))
