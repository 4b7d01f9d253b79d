"""Encyclopedia, Scaled and zero-initialised branches: the stream's growth, scheme by scheme.

Letters used on the page: d the stream width; L the number of blocks; x_l the stream entering
block l; s_l the factor a scheme puts on block l's branch; rho_l = ‖s_l f_l(x_l)‖ / ‖x_l‖
the write's size relative to the stream; c a constant. The branches here are exact rotations by
a quarter turn (Q^T = -Q, Q^T Q = I), so a write is orthogonal to the stream it reads and as long
as it: the derivation's assumption holds exactly instead of on average.
Run `python -m snippets.encyclopedia.branch_scaling` to print what the page states.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn


# --8<-- [start:scaled]
class ScaledResidual(nn.Module):
    """x + s * f(x): the schemes differ only in the factor s and where it starts."""

    def __init__(
        self, branch: nn.Module, scheme: str, depth: int, d: int, eps: float = 0.1
    ) -> None:
        super().__init__()
        self.branch = branch
        if scheme in ("rezero", "skipinit"):  # one learned scalar, starting at 0
            self.s = nn.Parameter(torch.zeros(()))
        elif scheme == "layerscale":  # one learned factor per channel, starting small
            self.s = nn.Parameter(torch.full((d,), eps))
        elif scheme == "1/sqrt(L)":  # fixed by depth (depth-muP's branch multiplier)
            self.register_buffer("s", torch.tensor(depth**-0.5))
        elif scheme == "none":
            self.register_buffer("s", torch.tensor(1.0))
        else:
            raise ValueError(
                f"scheme {scheme!r}: use rezero, skipinit, layerscale, 1/sqrt(L), none"
            )

    def forward(self, x: Tensor) -> Tensor:
        return x + self.s * self.branch(x)  # (N, d)


# --8<-- [end:scaled]


def quarter_turns(L: int, d: int, generator: torch.Generator) -> Tensor:
    """L random Q = R K R^T: K a quarter turn in each plane, R two Householder reflections."""
    K = torch.zeros(d, d, dtype=torch.float64)
    for i in range(0, d - 1, 2):
        K[i, i + 1], K[i + 1, i] = -1.0, 1.0
    eye = torch.eye(d, dtype=torch.float64)
    R = eye.expand(L, d, d)
    for _ in range(2):
        v = torch.randn(L, d, 1, generator=generator, dtype=torch.float64)
        R = R @ (eye - 2 * v @ v.mT / (v.mT @ v))  # (L, d, d), each orthogonal
    return R @ K @ R.mT


class Rotation(nn.Module):
    """f(x) = Q x with Q^T = -Q and Q^T Q = I: x·f(x) = 0 and ‖f(x)‖ = ‖x‖."""

    def __init__(self, Q: Tensor) -> None:
        super().__init__()
        self.register_buffer("Q", Q)

    def forward(self, x: Tensor) -> Tensor:
        return x @ self.Q.T  # (N, d)


def build(
    scheme: str,
    L: int,
    d: int,
    seed: int,
    c: float = 1.0,
    eps: float = 0.1,
    aligned: bool = False,
) -> nn.Sequential:
    """L blocks of one scheme (rezero, skipinit, layerscale, 1/sqrt(L) or none), in float64.

    aligned: the counterfactual branch that writes along the stream (Q = I) instead of across it.
    """
    Qs = (
        torch.eye(d, dtype=torch.float64).expand(L, d, d)
        if aligned
        else quarter_turns(L, d, torch.Generator().manual_seed(seed))
    )
    blocks = [ScaledResidual(Rotation(Q), scheme, L, d, eps) for Q in Qs]
    stack = nn.Sequential(*blocks).double()
    if scheme == "1/sqrt(L)":
        for b in blocks:
            b.s.fill_(math.sqrt(c / L))
    return stack


def second_moments(stack: nn.Sequential, x: Tensor) -> list[float]:
    """‖x_l‖² for l = 0 .. L (summed over the batch)."""
    out = [x.pow(2).sum().item()]
    with torch.no_grad():
        for block in stack:
            x = block(x)
            out.append(x.pow(2).sum().item())
    return out


@dataclass(frozen=True)
class Result:
    """Per-block growth against 1 + rho², and each scheme's total growth at several depths."""

    d: int
    rho: list[
        float
    ]  # s_l of a stack with random factors (rho_l = s_l for a rotation branch)
    per_block: list[float]  # ‖x_{l+1}‖² / ‖x_l‖² measured
    per_block_aligned: list[
        float
    ]  # the same factors, branches writing along the stream
    depths: list[int]
    growth: dict[str, list[float]]  # scheme -> ‖x_L‖² / ‖x_0‖² at each depth
    c: float
    eps: float
    zero_exact: (
        bool  # the zero-started stacks return their input bit for bit, at every depth
    )


def measure(
    device: str = "cpu",
    seed: int = 0,
    d: int = 8,
    depths: Sequence[int] = (2, 8, 32, 128, 512),
    c: float = 1.0,
    eps: float = 0.1,
) -> Result:
    """Run every scheme at every depth (CPU, float64) and a stack with random factors.

    c sets the 1/sqrt(L) scheme's rho² = c/L and eps LayerScale's starting factor; the Result keeps
    the very values the stacks were built with.
    """
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(4, d, dtype=torch.float64, generator=g)
    rho = (2 * torch.rand(16, generator=g, dtype=torch.float64)).tolist()
    ratios = {}
    for aligned in (False, True):
        stack = build("none", len(rho), d, seed, aligned=aligned)
        for block, s in zip(stack, rho, strict=True):
            block.s.fill_(s)
        m = second_moments(stack, x)
        ratios[aligned] = [b / a for a, b in itertools.pairwise(m)]
    growth: dict[str, list[float]] = {
        s: [] for s in ("rezero", "layerscale", "1/sqrt(L)", "none")
    }
    zero_exact = True
    for L in depths:
        for scheme in growth:
            stack = build(scheme, L, d, seed, c=c, eps=eps)
            m = second_moments(stack, x)
            growth[scheme].append(m[-1] / m[0])
            if scheme == "rezero":
                with torch.no_grad():
                    zero_exact &= torch.equal(stack(x), x)
    return Result(
        d, rho, ratios[False], ratios[True], list(depths), growth, c, eps, zero_exact
    )


if __name__ == "__main__":
    res = measure()
    worst = max(
        abs(r - (1 + s * s)) / (1 + s * s)
        for r, s in zip(res.per_block, res.rho, strict=True)
    )
    print(
        "per block, ‖x_{l+1}‖²/‖x_l‖² against 1 + rho_l²: largest relative difference",
        worst,
    )
    for scheme, values in res.growth.items():
        print(f"{scheme:>10}:", [f"{v:.4g}" for v in values], "at L =", res.depths)
    print("e^c =", math.exp(res.c))
