"""Encyclopedia, Residual networks as ensembles: the derivation's equations, checked exactly.

Letters used on the page: L blocks; k the length of a path (how many branches it passes through);
J_l block l's branch Jacobian (here the branch is linear, f_l(x) = J_l x, so the checks are exact);
r a branch's gain; p_l the probability that block l is dropped (stochastic depth), p_L at the top.
Run `python -m snippets.encyclopedia.ensembles` to print what the page states.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import torch
from torch import Tensor, nn


# --8<-- [start:stack]
def linear_rule(L: int, top_drop: float) -> list[float]:
    """Stochastic depth's rule, p_l = (l / L) p_L: early blocks are rarely dropped."""
    return [top_drop * i / L for i in range(1, L + 1)]


class Stack(nn.Module):
    """A residual stack that loses blocks at random in training, or by choice."""

    def __init__(self, branches: Sequence[nn.Module], top_drop: float = 0.5) -> None:
        super().__init__()
        self.branches = nn.ModuleList(branches)
        self.p = linear_rule(len(branches), top_drop)

    def forward(self, x: Tensor, keep: Sequence[float] | None = None) -> Tensor:
        """x_{l+1} = x_l + m_l f_l(x_l); keep[l] = 0 deletes block l, 1 keeps it."""
        keep = [1.0] * len(self.branches) if keep is None else keep
        for f, p, k in zip(self.branches, self.p, keep, strict=True):
            if (
                self.training
            ):  # drop-path: one draw per example, kept writes scaled by 1/(1 - p)
                m = (torch.rand(x.shape[0], 1, device=x.device) >= p).to(
                    x.dtype
                )  # (N, 1)
                x = x + m * f(x) / (1 - p)  # (N, d)
            else:
                x = x + k * f(x)  # (N, d)
        return x


# --8<-- [end:stack]


def path_lengths(kinds: Sequence[str]) -> list[int]:
    """Expand the product of the blocks' factors and count the terms of each length k.

    A residual block's factor is I + J (a term picks I or J); a plain block's is J (it must pick J).
    """
    choices = [(0, 1) if kind == "residual" else (1,) for kind in kinds]
    counts = [0] * (len(kinds) + 1)
    for picks in itertools.product(*choices):
        counts[sum(picks)] += 1
    return counts


def gradient_by_length(gains: Sequence[float]) -> list[float]:
    """Scalar branches of gain r_l: the summed size of the paths of each length, path by path."""
    sizes = [0.0] * (len(gains) + 1)
    for picks in itertools.product((0, 1), repeat=len(gains)):
        sizes[sum(picks)] += math.prod(
            r for r, on in zip(gains, picks, strict=True) if on
        )
    return sizes


def weighted_mean_length(sizes: Sequence[float]) -> float:
    """The gradient-weighted mean path length: sum_k k * size_k / sum_k size_k."""
    return sum(k * s for k, s in enumerate(sizes)) / sum(sizes)


def expected_depth(p: Sequence[Fraction]) -> Fraction:
    """E[number of blocks kept], summed over every one of the 2^L drop patterns (exact)."""
    total = Fraction(0)
    for keep in itertools.product((0, 1), repeat=len(p)):
        prob = math.prod((1 - q) if k else q for q, k in zip(p, keep, strict=True))
        total += prob * sum(keep)
    return total


def linear_branches(L: int, d: int, gain: float, seed: int) -> list[nn.Linear]:
    """L linear branches f_l(x) = J_l x with random J_l of spectral size about `gain` (float64)."""
    g = torch.Generator().manual_seed(seed)
    branches = []
    for _ in range(L):
        f = nn.Linear(d, d, bias=False).double()
        with torch.no_grad():
            f.weight.copy_(
                torch.randn(d, d, generator=g, dtype=torch.float64)
                * gain
                / math.sqrt(d)
            )
        branches.append(f)
    return branches


def path_terms(
    Js: Sequence[Tensor], plain: bool = False
) -> dict[tuple[int, ...], Tensor]:
    """Every term of the expanded product, keyed by the blocks it passes through."""
    eye = torch.eye(Js[0].shape[0], dtype=Js[0].dtype)
    L = len(Js)
    subsets = (
        [tuple(range(L))]
        if plain
        else [S for n in range(L + 1) for S in itertools.combinations(range(L), n)]
    )
    terms = {}
    for S in subsets:
        term = eye
        for k in S:
            term = Js[k] @ term
        terms[S] = term
    return terms


def end_to_end(
    Js: Sequence[Tensor], plain: bool = False, skip: int | None = None
) -> Tensor:
    """The stack's Jacobian, block by block, with block `skip` deleted (a lesion)."""
    total = torch.eye(Js[0].shape[0], dtype=Js[0].dtype)
    for k, J in enumerate(Js):
        if k != skip:
            total = (J if plain else torch.eye(J.shape[0], dtype=J.dtype) + J) @ total
    return total


@dataclass(frozen=True)
class Lesion:
    """A stack's Jacobian with each block deleted, next to the paths that avoid that block."""

    lesioned: list[Tensor]  # (d, d) per deleted block
    surviving_paths: list[
        Tensor
    ]  # (d, d) per deleted block: sum of the full stack's terms without it
    change: list[float]  # ‖full - lesioned‖ / ‖full‖ per deleted block
    # per deleted block: the fraction of the paths that avoid it
    surviving_shares: list[float]


def lesion(Js: Sequence[Tensor], plain: bool) -> Lesion:
    terms = path_terms(Js, plain)
    full = end_to_end(Js, plain)
    zero = torch.zeros_like(full)
    lesioned, surviving, change, shares = [], [], [], []
    for k in range(len(Js)):
        cut = end_to_end(Js, plain, skip=k)
        lesioned.append(cut)
        surviving.append(sum((t for S, t in terms.items() if k not in S), zero))
        change.append(((full - cut).norm() / full.norm()).item())
        shares.append(sum(1 for S in terms if k not in S) / len(terms))
    return Lesion(lesioned, surviving, change, shares)


def expected_output(stack: Stack, x: Tensor, rescale: bool) -> Tensor:
    """E[output] of drop-path over all 2^L patterns, each weighted by its probability (float64)."""
    stack.eval()
    total = torch.zeros_like(x)
    for keep in itertools.product((0, 1), repeat=len(stack.p)):
        prob = math.prod(
            (1 - q) if k else q for q, k in zip(stack.p, keep, strict=True)
        )
        scale = [
            k / (1 - q) if rescale else float(k)
            for q, k in zip(stack.p, keep, strict=True)
        ]
        total = total + prob * stack(x, keep=scale)
    return total


@dataclass(frozen=True)
class Result:
    """Everything the entry's derivation states, for one seed."""

    L: int
    counts: list[int]  # paths of each length, all blocks residual
    counts_one_plain: list[int]  # the same with block 0 made plain
    gain: float
    sizes: list[float]  # summed path size of each length, equal gains r
    sizes_unequal: list[float]  # the same with gains spread from 0 to 2r (same mean)
    residual: Lesion
    plain: Lesion
    depth_lengths: list[int]
    # p_L of the linear rule, and the uniform rate it is compared with
    top_drop: Fraction
    expected_depths: list[Fraction]  # linear rule, p_L = top_drop
    expected_depths_uniform: list[Fraction]  # every block dropped with top_drop
    drop_blocks: int  # blocks of the drop-path stack
    full_output: Tensor  # (N, d)
    mean_output: Tensor  # (N, d): E over drop patterns, with the 1/(1 - p) rescaling
    mean_output_unscaled: Tensor  # (N, d): without it


def measure(
    device: str = "cpu",
    seed: int = 0,
    L: int = 10,
    d: int = 6,
    r: float = math.sqrt(1 / 18),
    top_drop: Fraction = Fraction(1, 2),
) -> Result:
    """Count and size the paths, lesion linear stacks, average drop-path exactly (float64)."""
    Js = [f.weight.detach() for f in linear_branches(6, d, r, seed)]
    spread = [2 * r * i / (L - 1) for i in range(L)]
    depth_lengths = [4, 8, 12]
    stack = Stack(linear_branches(6, d, r, seed + 1000))
    x = torch.randn(
        4, d, dtype=torch.float64, generator=torch.Generator().manual_seed(seed)
    )
    with torch.no_grad():
        stack.eval()
        full = stack(x)
        mean = expected_output(stack, x, rescale=True)
        mean_unscaled = expected_output(stack, x, rescale=False)
    return Result(
        L=L,
        counts=path_lengths(["residual"] * L),
        counts_one_plain=path_lengths(["plain"] + ["residual"] * (L - 1)),
        gain=r,
        sizes=gradient_by_length([r] * L),
        sizes_unequal=gradient_by_length(spread),
        residual=lesion(Js, plain=False),
        plain=lesion(Js, plain=True),
        depth_lengths=depth_lengths,
        top_drop=top_drop,
        expected_depths=[
            expected_depth([top_drop * Fraction(i, n) for i in range(1, n + 1)])
            for n in depth_lengths
        ],
        expected_depths_uniform=[expected_depth([top_drop] * n) for n in depth_lengths],
        drop_blocks=len(stack.p),
        full_output=full,
        mean_output=mean,
        mean_output_unscaled=mean_unscaled,
    )


if __name__ == "__main__":
    res = measure()
    print("paths of each length:", res.counts, "total", sum(res.counts))
    print(
        "gradient-weighted mean length:",
        weighted_mean_length(res.sizes),
        "predicted",
        res.L * res.gain / (1 + res.gain),
    )
    print(
        "lesion, relative change per deleted block (residual):",
        [f"{c:.3f}" for c in res.residual.change],
    )
    print(
        "lesion, relative change per deleted block (plain):",
        [f"{c:.3f}" for c in res.plain.change],
    )
    print(
        f"expected depth with p_L = {res.top_drop}:",
        [str(e) for e in res.expected_depths],
        "at L =",
        res.depth_lengths,
    )
    print(
        "drop-path keeps the mean output:",
        (res.mean_output - res.full_output).abs().max().item(),
    )
