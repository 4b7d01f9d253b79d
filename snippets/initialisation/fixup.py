"""Initialisation and scale: Fixup's rescaling (Zhang, Dauphin and Ma 2019) and what it does once
branches leave 0.

Letters: N batch size, d stream width, L number of residual branches, m weight layers per branch.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

DEPTHS = (2, 8, 32, 128)
LAYERS = (2, 3)


# --8<-- [start:fixup]
def fixup_scale(L: int, m: int) -> float:
    """Fixup's rule 2: every weight layer inside a branch is scaled by L^(-1/(2m-2))."""
    return L ** (-1 / (2 * m - 2))


class Block(nn.Module):
    """y = x + F(x) around a branch of m bias-free layers with ReLUs between them."""

    def __init__(self, d: int, m: int, scale: float) -> None:
        super().__init__()
        layers = [
            nn.Linear(d, d, bias=False) for _ in range(m)
        ]  # each (N, d) -> (N, d)
        with torch.no_grad():
            for layer in layers:
                nn.init.kaiming_normal_(layer.weight, nonlinearity="relu").mul_(scale)
            nn.init.zeros_(layers[-1].weight)  # rule 1: the branch starts at exactly 0
        relus = [nn.ReLU() for _ in range(m - 1)]
        self.branch = nn.Sequential(
            *(mod for pair in zip(layers, relus, strict=False) for mod in pair),
            layers[-1],
        )
        self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.branch(x)  # (N, d)


def leave_zero(stack: nn.Sequential) -> None:
    """Stand-in for training: give every last layer full He-sized random weights."""
    with torch.no_grad():
        for block in stack:
            nn.init.kaiming_normal_(block.branch[-1].weight, nonlinearity="relu")


# --8<-- [end:fixup]


def second_moment(h: torch.Tensor) -> float:
    return h.double().pow(2).mean().item()  # float64: unscaled stacks reach 1e61


@dataclass(frozen=True)
class Result:
    """growth[rule][m][L] = E[h_L²] / E[x²] once branches left zero; rule: fixup or unscaled."""

    seed: int
    growth: dict[str, dict[int, dict[int, float]]]
    identity_at_init: bool


def measure(device: str = "cpu", seed: int = 0, d: int = 32, batch: int = 64) -> Result:
    """Each (rule, m, L): exactness at init, then the second moment once branches are non-zero."""
    torch.manual_seed(seed)
    growth: dict[str, dict[int, dict[int, float]]] = {"fixup": {}, "unscaled": {}}
    exact = True
    for rule in growth:
        for m in LAYERS:
            for L in DEPTHS:
                scale = fixup_scale(L, m) if rule == "fixup" else 1.0
                with torch.device(device):
                    stack = nn.Sequential(*(Block(d, m, scale) for _ in range(L)))
                    x = torch.randn(batch, d)  # (N, d)
                with torch.no_grad():
                    exact = exact and torch.equal(stack(x), x)
                    leave_zero(stack)
                    growth[rule].setdefault(m, {})[L] = second_moment(
                        stack(x)
                    ) / second_moment(x)
    return Result(seed, growth, exact)


if __name__ == "__main__":
    r = measure()
    print("identity at init:", r.identity_at_init)
    for rule, by_m in r.growth.items():
        for m, row in by_m.items():
            print(
                f"{rule:9} m={m}", "  ".join(f"L={L}: {v:.3g}" for L, v in row.items())
            )
