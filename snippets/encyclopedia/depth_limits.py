"""Depth limits of a residual stack: h_(l+1) = h_l + s * W_l h_l, with a branch multiplier s.

Letters: L blocks, d the stream's width, s the branch multiplier (1, 1/sqrt(L) or 1/L), W_l
block l's branch (linear, so that the limits have closed forms), A one branch shared by every
block, h_0 the input, B the number of inputs. Float64 on the CPU throughout.
Run `python -m snippets.encyclopedia.depth_limits` to print what the entry states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from snippets.degradation.training_curves import one_thread

D, BATCH = 256, 32
DEPTHS = (16, 64, 256)
MULTIPLIERS = {  # name: s as a function of the depth L
    "1/L": lambda L: 1 / L,
    "1/√L": lambda L: 1 / math.sqrt(L),
    "1": lambda L: 1.0,
}


# --8<-- [start:stacks]
def stack(h0: torch.Tensor, branches: list[torch.Tensor], s: float) -> torch.Tensor:
    """One residual block per branch W: h <- h + s * W h (the rows of h0 are inputs)."""
    h = h0
    for W in branches:
        h = h + s * h @ W.T
    return h


def iid_branches(L: int, d: int, g: torch.Generator) -> list[torch.Tensor]:
    """L branches drawn independently, entries N(0, 1/d): the standard random start."""
    return [
        torch.randn(d, d, generator=g, dtype=torch.float64) / d**0.5 for _ in range(L)
    ]


# With one branch A in every block, stack(h0, [A] * L, 1 / L) is Euler's method for
# dh/dt = A h from t = 0 to 1, which ends at exp(A) h0 as L grows.
# --8<-- [end:stacks]


@dataclass(frozen=True)
class Result:
    depths: tuple[int, ...]
    seeds: list[int]
    ode_error: dict[
        str, dict[int, list[float]]
    ]  # multiplier -> L -> per seed: ‖h_L − e^A h_0‖/‖e^A h_0‖
    growth: dict[
        str, dict[int, list[float]]
    ]  # multiplier -> L -> per seed: mean ‖h_L‖²/‖h_0‖² (i.i.d.)
    moved: dict[
        str, dict[int, list[float]]
    ]  # multiplier -> L -> per seed: mean ‖h_L − h_0‖/‖h_0‖ (i.i.d.)
    predicted: dict[
        str, dict[int, float]
    ]  # multiplier -> L -> (1 + s²)^L, the 1 + ρ² rule


def measure(device: str = "cpu", seed: int = 0, seeds: int = 5) -> Result:
    """Both stacks at every depth and multiplier, per seed (float64; the device is not used)."""
    ids = list(range(seed, seed + seeds))
    ode = {m: {L: [] for L in DEPTHS} for m in ("1/L", "1/√L")}
    growth = {m: {L: [] for L in DEPTHS} for m in MULTIPLIERS}
    moved = {m: {L: [] for L in DEPTHS} for m in MULTIPLIERS}
    with one_thread():  # small matrices: a second thread only adds waiting
        for s in ids:
            g = torch.Generator().manual_seed(s)
            A = torch.randn(D, D, generator=g, dtype=torch.float64) / math.sqrt(D)
            h0 = torch.randn(BATCH, D, generator=g, dtype=torch.float64)
            exact = h0 @ torch.linalg.matrix_exp(A).T
            for L in DEPTHS:
                for name in ode:
                    out = stack(h0, [A] * L, MULTIPLIERS[name](L))
                    ode[name][L].append(((out - exact).norm() / exact.norm()).item())
                branches = iid_branches(
                    L, D, g
                )  # the same branches for every multiplier
                for name, mult in MULTIPLIERS.items():
                    out = stack(h0, branches, mult(L))
                    ratio = out.pow(2).sum(-1) / h0.pow(2).sum(-1)
                    growth[name][L].append(ratio.mean().item())
                    step = (out - h0).norm(dim=-1) / h0.norm(dim=-1)
                    moved[name][L].append(step.mean().item())
    predicted = {
        m: {L: (1 + MULTIPLIERS[m](L) ** 2) ** L for L in DEPTHS} for m in MULTIPLIERS
    }
    return Result(DEPTHS, ids, ode, growth, moved, predicted)


if __name__ == "__main__":
    r = measure()
    for name, by_depth in r.ode_error.items():
        print(
            f"shared branch, s = {name}: error against e^A h_0 by L:",
            {L: f"{v[0]:.2e}" for L, v in by_depth.items()},
        )
    for name in MULTIPLIERS:
        print(
            f"i.i.d. branches, s = {name}: ‖h_L‖²/‖h_0‖² by L:",
            {
                L: f"{r.growth[name][L][0]:.3g} (rule {r.predicted[name][L]:.3g})"
                for L in r.depths
            },
        )
