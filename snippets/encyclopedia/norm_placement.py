"""Encyclopedia, Normalisation placement: where the LayerNorm sits around a residual sublayer.

Letters used on the page: d the stream width, L the number of residual sublayers (N = L/2
layers of two sublayers each, as DeepNet counts them), l indexes sublayers, x_l the stream
entering sublayer l, F_l its branch, w_l what it adds to the stream, rho_l = ‖w_l‖ / ‖x_l‖
the write's size relative to the stream, alpha and beta DeepNorm's shortcut weight and
initialisation gain, eta a learning rate.
Every stack is float64 and untrained (or one optimiser step from its initialisation); each
branch is an MLP (Linear, GELU, Linear): attention sits in the same place and is left out.
Run `python -m snippets.encyclopedia.norm_placement` to print what the page states.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from snippets.encyclopedia.depth_profile import one_thread

PLACEMENTS = ("post", "pre", "peri", "deepnorm")


# --8<-- [start:sublayer]
class NormedSublayer(nn.Module):
    """One residual sublayer with its LayerNorm placed one of four ways."""

    def __init__(
        self, branch: nn.Module, d: int, placement: str, alpha: float = 1.0
    ) -> None:
        super().__init__()
        if placement not in PLACEMENTS:
            raise ValueError(f"placement {placement!r}: use one of {PLACEMENTS}")
        self.branch, self.placement, self.alpha = branch, placement, alpha
        # post and DeepNorm normalise the stream; pre and peri the branch's input
        self.norm = nn.LayerNorm(d)
        self.out_norm = nn.LayerNorm(d) if placement == "peri" else nn.Identity()

    def write(self, x: Tensor) -> Tensor:
        """What the sublayer adds to the stream."""
        if self.placement in ("pre", "peri"):
            return self.out_norm(self.branch(self.norm(x)))  # (n, d)
        return self.branch(x)  # (n, d)

    def forward(self, x: Tensor) -> Tensor:
        if self.placement in ("pre", "peri"):
            return x + self.write(x)  # the stream itself is never rescaled
        return self.norm(self.alpha * x + self.write(x))  # alpha = 1: post-norm


def deepnorm_constants(layers: int) -> tuple[float, float]:
    """DeepNet's encoder-only alpha = (2N)^(1/4) and beta = (8N)^(-1/4), N layers."""
    return (2 * layers) ** 0.25, (8 * layers) ** -0.25


# --8<-- [end:sublayer]


def mlp(d: int, gain: float) -> nn.Sequential:
    """Linear(d, 4d), GELU, Linear(4d, d); Xavier-normal weights times `gain`, zero biases."""
    branch = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    for layer in (branch[0], branch[2]):
        nn.init.xavier_normal_(layer.weight, gain=gain)
        nn.init.zeros_(layer.bias)
    return branch


def build(placement: str, L: int, d: int, seed: int) -> nn.Sequential:
    """L sublayers of one placement in float64; DeepNorm gets its alpha and beta for L/2 layers."""
    torch.manual_seed(seed)
    alpha, beta = deepnorm_constants(L // 2) if placement == "deepnorm" else (1.0, 1.0)
    stack = nn.Sequential(
        *(NormedSublayer(mlp(d, beta), d, placement, alpha) for _ in range(L))
    )
    return stack.double()


def readout(stack: nn.Sequential, x: Tensor) -> Tensor:
    """The stack's output: pre and peri end with one more LayerNorm, as GPT-2 does."""
    y = stack(x)
    if stack[0].placement in ("pre", "peri"):
        y = nn.functional.layer_norm(y, y.shape[-1:])
    return y


def relative_writes(stack: nn.Sequential, x: Tensor) -> tuple[list[float], list[float]]:
    """Per sublayer: rho_l = ‖w_l‖ / ‖alpha·x_l‖ and the write's size per token ‖w_l‖/√n."""
    rho, size = [], []
    with torch.no_grad():
        for block in stack:
            w = block.write(x)
            rho.append((w.norm() / (block.alpha * x.norm())).item())
            size.append((w.norm() / x.shape[0] ** 0.5).item())
            x = block(x)
    return rho, size


def one_step_change(
    placement: str, L: int, d: int, seed: int, optimiser: str, lr: float
) -> float:
    """‖y(θ + Δθ) − y(θ)‖ / ‖y(θ)‖, y the stack's output, after one step on the branches."""
    stack = build(placement, L, d, seed)
    g = torch.Generator().manual_seed(seed + 1000)
    x = torch.randn(64, d, dtype=torch.float64, generator=g)  # (n, d)
    target = torch.randn(64, d, dtype=torch.float64, generator=g)  # (n, d)
    params = [p for b in stack for p in b.branch.parameters()]
    opt = (torch.optim.SGD if optimiser == "sgd" else torch.optim.Adam)(params, lr=lr)
    before = readout(stack, x).detach()
    nn.functional.mse_loss(readout(stack, x), target).backward()
    opt.step()
    with torch.no_grad():
        return ((readout(stack, x) - before).norm() / before.norm()).item()


def update_budgets(layers: list[int]) -> dict[str, list[tuple[float, float]]]:
    """Per N: (2N·(beta/alpha)², 2N·beta/alpha), for DeepNorm, alpha alone, and post-norm."""
    out: dict[str, list[tuple[float, float]]] = {
        "deepnorm": [],
        "alpha": [],
        "post": [],
    }
    for n in layers:
        alpha, beta = deepnorm_constants(n)
        for name, (a, b) in (
            ("deepnorm", (alpha, beta)),
            ("alpha", (alpha, 1.0)),
            ("post", (1.0, 1.0)),
        ):
            out[name].append((2 * n * (b / a) ** 2, 2 * n * b / a))
    return out


@dataclass(frozen=True)
class Result:
    """What the page states about the four placements."""

    d: int
    L: int
    seeds: int
    rho: dict[str, list[list[float]]]  # placement -> seed -> rho_l, l = 1..L
    size: dict[str, list[list[float]]]  # placement -> seed -> ‖w_l‖ per token
    depths: list[int]  # sublayers in the one-step stacks
    lr: dict[str, float]
    step: dict[str, list[float]]  # "<optimiser> <placement>" -> median change per depth
    layers: list[int]  # N for the budget arithmetic
    budgets: dict[str, list[tuple[float, float]]]

    def median(self, which: str, placement: str) -> list[float]:
        """Median over seeds, sublayer by sublayer."""
        rows = getattr(self, which)[placement]
        return [statistics.median(c) for c in zip(*rows, strict=True)]


def measure(
    device: str = "cpu",
    seed: int = 0,
    seeds: int = 5,
    d: int = 32,
    L: int = 48,
    depths: tuple[int, ...] = (2, 8, 32),
) -> Result:
    """Relative writes of L-sublayer stacks per placement, and one optimiser step at each depth.

    Everything is float64 on the CPU (the device is not used): the claims are about arithmetic.
    """
    with one_thread():
        rho: dict[str, list[list[float]]] = {p: [] for p in PLACEMENTS}
        size: dict[str, list[list[float]]] = {p: [] for p in PLACEMENTS}
        for s in range(seed, seed + seeds):
            g = torch.Generator().manual_seed(s)
            x = torch.randn(64, d, dtype=torch.float64, generator=g)  # (n, d)
            for p in PLACEMENTS:
                r, w = relative_writes(build(p, L, d, s), x)
                rho[p].append(r)
                size[p].append(w)
        lr = {"sgd": 0.1, "adam": 1e-3}
        runs = [("sgd", "post"), ("sgd", "deepnorm"), ("sgd", "pre")]
        runs += [("adam", "post"), ("adam", "deepnorm")]
        step = {
            f"{opt} {p}": [
                statistics.median(
                    one_step_change(p, n, d, s, opt, lr[opt])
                    for s in range(seed, seed + seeds)
                )
                for n in depths
            ]
            for opt, p in runs
        }
    layers = list(range(1, 1001))
    return Result(
        d, L, seeds, rho, size, list(depths), lr, step, layers, update_budgets(layers)
    )


if __name__ == "__main__":
    r = measure()
    for p in PLACEMENTS:
        m = r.median("rho", p)
        print(
            f"{p:>8} rho_l at l = 1, L/2, L:",
            [f"{m[i]:.3g}" for i in (0, r.L // 2, -1)],
        )
    for k, v in r.step.items():
        print(
            f"{k:>13}: one-step change at",
            r.depths,
            "sublayers:",
            [f"{u:.3g}" for u in v],
        )
    for k, v in r.budgets.items():
        print(f"{k:>8}: 2N(beta/alpha)^2, 2N beta/alpha at N = 1000:", v[-1])
