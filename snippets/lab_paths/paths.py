"""Lab 1: the input gradient of the gradient-highway page's residual stacks, split into its paths
by length.

Letters: N inputs (4), d width (128), L depth in blocks, k a path's length (how many branches
it passes through), J_k the Jacobian of block k's branch, g the upstream gradient.
Run `python -m snippets.lab_paths.paths` to print what the page states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.func import jacrev, vmap

from snippets.gradient_highway.depth_sweep import make_stack

DEPTHS = (10, 20, 50)
WIDTH, INPUTS, PATHS = 128, 4, 4  # d, N, random paths per length and input
GAINS = {
    "default": (1 / 18) ** 0.5,
    "he": 2**0.5,
}  # the gradient-highway page's branch gains r


# --8<-- [start:lengths]
def branch_jacobians(stack: nn.Sequential, x: Tensor) -> Tensor:
    """J_k = ∂F_k/∂x where block k is reached, for every block and input."""
    jacobians = []
    for block in stack:
        jacobians.append(vmap(jacrev(block.branch))(x))  # (N, d, d)
        x = block(x)  # (N, d)
    return torch.stack(jacobians)  # (L, N, d, d)


def gradient_by_path_length(g: Tensor, jacobians: Tensor) -> Tensor:
    """Expand g (I + J_L) ... (I + J_1); row k sums every path through k branches."""
    L = len(jacobians)
    terms = torch.zeros(L + 1, *g.shape, dtype=g.dtype)  # (L + 1, N, d)
    terms[0] = g  # the one path that takes every shortcut
    for J in jacobians.flip(0):  # from the output down to the input
        terms[1:] += torch.einsum("knd,nde->kne", terms[:-1], J)  # one branch more
    return terms


def energy_by_path_length(terms: Tensor) -> Tensor:
    """‖terms_k‖² for k = 0..L: nearly orthogonal rows, so their energies add."""
    return terms.pow(2).sum(dim=(1, 2))  # (L + 1,)


def per_path_sizes(g: Tensor, jacobians: Tensor, paths: int, gen) -> Tensor:
    """Mean ‖g J_a J_b ...‖ over random paths through k of the L branches, k = 0..L."""
    L, N = jacobians.shape[:2]
    k = torch.arange(L + 1).repeat_interleave(paths)  # (K,) each path's length
    sizes = torch.zeros(L + 1, dtype=g.dtype)
    for n in range(N):
        takes = torch.rand(len(k), L, generator=gen).argsort(dim=1) < k[:, None]
        v = g[n].expand(len(k), -1)  # (K, d); row p takes k[p] random branches
        for b in reversed(range(L)):  # top block first
            v = torch.where(takes[:, b, None], v @ jacobians[b, n], v)
        sizes += v.norm(dim=1).view(L + 1, paths).mean(dim=1) / N
    return sizes


# --8<-- [end:lengths]


@dataclass(frozen=True)
class Depth:
    """One stack: exactness of the split, the energy each path length carries, and Veit et
    al.'s count × size heuristic beside it."""

    depth: int
    max_relative_error: float  # sum of the rows against autograd's gradient
    plain_relative_error: float  # the same rows against the plain stack's gradient
    energy: list[float]  # ‖terms_k‖² for k = 0..L (summed over the inputs)
    energy_sum_ratio: (
        float  # Σ_k ‖terms_k‖² / ‖g‖², g = Σ_k terms_k (autograd's gradient)
    )
    energy_length: float  # mean k weighted by energy
    energy_predicted: float  # L r² / (1 + r²)
    growth: float  # ‖g‖² / ‖terms_0‖²: the gradient's energy gain through the stack
    growth_predicted: float  # (1 + r²)^L = Σ_k C(L, k) r^(2k)
    per_path: list[float]  # mean ‖path‖ for k = 0..L
    contribution: list[float]  # C(L, k) · per_path[k]: the count × size heuristic
    magnitude_sum_ratio: (
        float  # Σ_k contribution[k] / mean ‖g‖ per input (triangle bound)
    )
    effective_length: float  # mean k weighted by contribution
    predicted_length: float  # L r / (1 + r), r = the branch's gain per path step


@dataclass(frozen=True)
class Result:
    seed: int
    default: dict[int, Depth]  # PyTorch's default init, depth -> Depth
    he: Depth  # He init at the largest depth


def relative_error(a: Tensor, b: Tensor) -> float:
    return ((a - b).norm() / b.norm()).item()


def one_stack(depth: int, init: str, seed: int, device: str) -> Depth:
    torch.manual_seed(seed)
    d, n = WIDTH, INPUTS
    stack = make_stack(depth, d, True, init).double().to(device)
    x = torch.randn(n, d, dtype=torch.float64, device=device)
    jac = branch_jacobians(stack, x).cpu()
    g = torch.ones(n, d, dtype=torch.float64)  # the loss is the sum of the outputs
    terms = gradient_by_path_length(g, jac)
    xg = x.clone().requires_grad_(True)
    stack(xg).sum().backward()
    torch.manual_seed(seed)
    plain = make_stack(depth, d, False, init).double().to(device)  # the same branches
    xp = x.clone().requires_grad_(True)
    plain(xp).sum().backward()
    gen = torch.Generator().manual_seed(seed)
    size = per_path_sizes(g, jac, PATHS, gen).tolist()
    share = [math.comb(depth, k) * s for k, s in enumerate(size)]
    energy = energy_by_path_length(terms).tolist()
    grad = xg.grad.cpu()
    gain = GAINS[init]
    return Depth(
        depth,
        relative_error(terms.sum(0), grad),
        relative_error(terms.sum(0), xp.grad.cpu()),
        energy,
        sum(energy) / grad.pow(2).sum().item(),
        sum(k * e for k, e in enumerate(energy)) / sum(energy),
        depth * gain**2 / (1 + gain**2),
        grad.pow(2).sum().item() / energy[0],
        (1 + gain**2) ** depth,
        size,
        share,
        sum(share) / grad.norm(dim=1).mean().item(),
        sum(k * c for k, c in enumerate(share)) / sum(share),
        depth * gain / (1 + gain),
    )


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Default init at every depth in DEPTHS; He init at the largest."""
    default = {L: one_stack(L, "default", seed, device) for L in DEPTHS}
    return Result(seed, default, one_stack(DEPTHS[-1], "he", seed, device))


if __name__ == "__main__":
    r = measure()
    for L, s in r.default.items():
        print(
            f"default L={L}: paths sum to the gradient within {s.max_relative_error:.1e};"
            f" energy-weighted mean length {s.energy_length:.2f} (predicted"
            f" {s.energy_predicted:.2f}; count × size {s.effective_length:.2f}; by count {L / 2});"
            f" Σ‖terms_k‖²/‖g‖² {s.energy_sum_ratio:.2f};"
            f" Σ C(L,k)·size/‖g‖ {s.magnitude_sum_ratio:.3g}"
        )
    he = r.he
    print(
        f"He init L={he.depth}: energy-weighted {he.energy_length:.2f}"
        f" (predicted {he.energy_predicted:.2f});"
        f" count × size {he.effective_length:.2f}"
    )
