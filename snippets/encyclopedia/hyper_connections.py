"""Encyclopedia, Hyper-Connections: n copies of the residual stream, read, written and mixed.

Letters used on the page: d the stream width; n the number of copies (the expansion rate); L the
number of blocks; H_l the n copies entering block l, an (n, d) matrix; a_l the read weights
(n,), b_l the write weights (n,), M_l the mixing matrix (n, n); f_l the block's branch.
Run `python -m snippets.encyclopedia.hyper_connections` to print what the page states.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn


# --8<-- [start:block]
class HyperConnection(nn.Module):
    """One branch f on n copies of the stream: H -> M H + b f(a H)."""

    def __init__(self, branch: nn.Module, n: int, index: int = 0) -> None:
        super().__init__()
        self.branch = branch
        read = torch.zeros(n)
        read[index % n] = 1.0  # block l starts reading copy l mod n
        self.read = nn.Parameter(read)  # a, (n,)
        self.write = nn.Parameter(torch.ones(n))  # b, (n,): f(.) goes to every copy
        self.mix = nn.Parameter(torch.eye(n))  # M, (n, n): each copy passes itself on

    def mixing(self) -> Tensor:
        return self.mix  # M, learned freely

    def forward(self, H: Tensor) -> Tensor:  # H: (n, ..., d), the n copies
        x = torch.einsum("n,n...->...", self.read, H)  # the branch's input, (..., d)
        out = self.branch(x)  # (..., d)
        mixed = torch.einsum("mn,n...->m...", self.mixing(), H)  # (n, ..., d)
        return mixed + torch.einsum("m,...->m...", self.write, out)  # (n, ..., d)


# --8<-- [end:block]


# --8<-- [start:sinkhorn]
def sinkhorn(logits: Tensor, iterations: int = 20) -> Tensor:
    """exp(logits) scaled until rows and columns sum to 1 (Sinkhorn-Knopp), (..., n, n)."""
    P = logits.exp()
    for _ in range(iterations):
        P = P / P.sum(-1, keepdim=True)  # rows sum to 1
        P = P / P.sum(-2, keepdim=True)  # columns: exactly 1 after the last step
    return P


class SinkhornConnection(HyperConnection):
    """mHC's constraint on M: exp(logits), scaled to doubly stochastic."""

    def __init__(self, branch: nn.Module, n: int, index: int = 0, diagonal=4.0) -> None:
        super().__init__(branch, n, index)
        del self.mix  # replaced by its logits: as many weights
        self.logits = nn.Parameter(diagonal * torch.eye(n))  # (n, n): M starts near I

    def mixing(self) -> Tensor:
        return sinkhorn(self.logits)  # (n, n), rows and columns summing to 1


def composite_gain(mixes: Tensor) -> list[float]:
    """Largest singular value of M_l ... M_1 for l = 1 .. L, mixes: (L, n, n)."""
    P = torch.eye(mixes.shape[-1], dtype=mixes.dtype)
    gains = []
    for M in mixes:
        P = M @ P  # the copies' path through every mixing matrix so far
        gains.append(torch.linalg.matrix_norm(P, 2).item())
    return gains


# --8<-- [end:sinkhorn]


class Dense(nn.Module):
    """A fixed random branch, tanh(x W) (float64): any f would do for the identities."""

    def __init__(self, d: int, generator: torch.Generator) -> None:
        super().__init__()
        w = torch.randn(d, d, generator=generator, dtype=torch.float64) / d**0.5
        self.register_buffer("w", w)

    def forward(self, x: Tensor) -> Tensor:
        return torch.tanh(x @ self.w)


@dataclass(frozen=True)
class Result:
    """The identities (bit for bit) and the composite gains of three kinds of mixing."""

    n: int
    d: int
    blocks: int
    one_copy_exact: (
        bool  # n = 1, a = b = M = 1: every block's output is x + f(x), bit for bit
    )
    one_copy_perturbed_exact: bool  # the same with M = 1.01: the counterfactual
    copies_exact: (
        bool  # n copies at the start weights: each copy is the residual stream
    )
    copies_perturbed_exact: bool  # the same with a perturbed M
    nudge: float  # the perturbations: M + nudge * (standard normal draws)
    iterations: int  # Sinkhorn iterations per matrix
    depths: list[int]  # where the gains are read
    sigma: float  # size of the perturbation of each entry of an unconstrained M
    diagonal: float  # the Sinkhorn logits' diagonal: exp of it dominates, so each M starts near I
    diagonal_share: float  # median diagonal entry of those Sinkhorn matrices
    free: list[float]  # composite gain of I + sigma G at each depth
    sinkhorn: list[float]  # the same logits' Sinkhorn matrices (20 iterations)
    row_error: float  # largest |row sum - 1| of those matrices
    column_error: float  # largest |column sum - 1|
    row_errors: list[float]  # each matrix's largest |row sum - 1|, l = 1 .. max(depths)


def residual_stack(branches: Sequence[nn.Module], x: Tensor) -> list[Tensor]:
    """x_0, x_1 = x_0 + f_1(x_0), ..., the single-stream residual network."""
    xs = [x]
    for f in branches:
        xs.append(xs[-1] + f(xs[-1]))
    return xs


def measure(
    device: str = "cpu",
    seed: int = 0,
    n: int = 4,
    d: int = 16,
    blocks: int = 12,
    depths: Sequence[int] = (4, 16, 64, 256),
    sigma: float = 0.2,
    diagonal: float = 4.0,
    nudge: float = 0.01,
    iterations: int = 20,
) -> Result:
    """Float64 on the CPU whatever the device: the identities are about the algebra."""
    g = torch.Generator().manual_seed(seed)
    branches = [Dense(d, g) for _ in range(blocks)]
    x = torch.randn(8, d, generator=g, dtype=torch.float64)
    xs = residual_stack(branches, x)
    with torch.no_grad():
        exact = {}
        for copies, size in ((1, 0.0), (1, nudge), (n, 0.0), (n, nudge)):
            H = x.expand(copies, *x.shape)  # (copies, N, d): n copies of the stream
            same = True
            for i, f in enumerate(branches):
                hc = HyperConnection(f, copies, index=i).double()
                noise = torch.randn(copies, copies, generator=g, dtype=torch.float64)
                hc.mix.add_(size * noise)
                H = hc(H)
                same &= all(torch.equal(h, xs[i + 1]) for h in H)
            exact[copies, size] = same
        G = torch.randn(max(depths), n, n, generator=g, dtype=torch.float64)
        free = composite_gain(torch.eye(n, dtype=torch.float64) + sigma * G)
        eye = torch.eye(n, dtype=torch.float64)
        ds = sinkhorn(
            diagonal * eye + sigma * G, iterations
        )  # the same draws, projected near I
        constrained = composite_gain(ds)
    at = [k - 1 for k in depths]
    return Result(
        n=n,
        d=d,
        blocks=blocks,
        one_copy_exact=exact[1, 0.0],
        one_copy_perturbed_exact=exact[1, nudge],
        copies_exact=exact[n, 0.0],
        copies_perturbed_exact=exact[n, nudge],
        nudge=nudge,
        iterations=iterations,
        depths=list(depths),
        sigma=sigma,
        diagonal=diagonal,
        diagonal_share=ds.diagonal(dim1=-2, dim2=-1).median().item(),
        free=[free[k] for k in at],
        sinkhorn=[constrained[k] for k in at],
        row_error=(ds.sum(-1) - 1).abs().max().item(),
        column_error=(ds.sum(-2) - 1).abs().max().item(),
        row_errors=(ds.sum(-1) - 1).abs().amax(-1).tolist(),
    )


if __name__ == "__main__":
    r = measure()
    print("n = 1 reproduces x + f(x) bit for bit:", r.one_copy_exact)
    print(
        f"{r.n} copies at the start weights are each the residual stream:",
        r.copies_exact,
    )
    for L, a, b in zip(r.depths, r.free, r.sinkhorn, strict=True):
        print(f"L = {L:>3}: composite gain, unconstrained {a:.4g}, Sinkhorn {b:.12f}")
    print("Sinkhorn rows off by at most", r.row_error, "columns by", r.column_error)
