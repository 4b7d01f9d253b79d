"""Encyclopedia, The Residual Stream: every equation of the derivation, checked in float64.

Letters used on the page: d stream width; L number of residual blocks; x_l the stream
entering block l; f_l the residual branch of block l; J_l = ∂f_l/∂x evaluated at x_l.
Run `python -m snippets.encyclopedia.derivation` to print what the page states.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn
from torch.autograd.functional import jacobian


class Branch(nn.Module):
    """f(x) = W2 tanh(W1 x + b1) + b2: smooth, so every Jacobian is dense and non-zero."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 2 * d), nn.Tanh(), nn.Linear(2 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)  # (d,)


# --8<-- [start:stack]
def stream(branches: Sequence[nn.Module], x: torch.Tensor) -> list[torch.Tensor]:
    """x_0, ..., x_L with x_{l+1} = x_l + f_l(x_l)."""
    xs = [x]
    for f in branches:
        xs.append(xs[-1] + f(xs[-1]))  # (d,)
    return xs


def jacobian_as_product(
    branches: Sequence[nn.Module], xs: list[torch.Tensor]
) -> torch.Tensor:
    """∂x_L/∂x_0 = (I + J_{L-1}) ··· (I + J_0): later blocks multiply on the left."""
    eye = torch.eye(xs[0].shape[0], dtype=xs[0].dtype, device=xs[0].device)
    total = eye
    for f, x in zip(branches, xs, strict=False):
        total = (eye + jacobian(f, x)) @ total  # (d, d)
    return total


def jacobian_as_paths(Js: list[torch.Tensor]) -> dict[tuple[int, ...], torch.Tensor]:
    """One term per subset S of blocks, J_k in block order; S = () gives I."""
    eye = torch.eye(Js[0].shape[0], dtype=Js[0].dtype, device=Js[0].device)
    terms = {}
    for size in range(len(Js) + 1):
        for S in itertools.combinations(range(len(Js)), size):
            term = eye
            for k in S:
                term = Js[k] @ term  # (d, d)
            terms[S] = term
    return terms


# --8<-- [end:stack]


@dataclass(frozen=True)
class Result:
    """Autograd's Jacobian of the stack next to the product and the path sum."""

    d: int
    L: int
    autograd: torch.Tensor  # (d, d): ∂x_L/∂x_0 by autograd through the whole stack
    product: torch.Tensor  # (d, d): ∏ (I + J_k)
    plain_product: (
        torch.Tensor
    )  # (d, d): ∏ J_k, what a plain stack of the same branches would give
    reversed_product: torch.Tensor  # (d, d): the factors multiplied in the wrong order
    paths: dict[tuple[int, ...], torch.Tensor]
    plain_autograd: torch.Tensor  # (d, d): the plain stack x_{l+1} = f_l(x_l)
    plain_paths: dict[tuple[int, ...], torch.Tensor]  # from the plain stack's J_k
    reparam_error: float  # max |H(x) - (x + f(x))| for a plain block H and f = H - id
    zero_branch_jacobian: torch.Tensor  # (d, d): the stack with every last layer zeroed
    zero_branch_plain_jacobian: (
        torch.Tensor
    )  # (d, d): the plain stack x_{l+1} = f_l(x_l), same zeroed branches

    @property
    def path_sum(self) -> torch.Tensor:
        return torch.stack(list(self.paths.values())).sum(0)

    @property
    def plain_path_sum(self) -> torch.Tensor:
        return torch.stack(list(self.plain_paths.values())).sum(0)

    def order_table(self) -> dict[str, list]:
        """Norm of the summed terms of each path length |S|, and how many terms there are."""
        rows = []
        for size in range(self.L + 1):
            group = [t for S, t in self.paths.items() if len(S) == size]
            norm = torch.stack(group).sum(0).norm().item()
            rows.append([size, len(group), math.comb(self.L, size), norm])
        columns = ["blocks on the path, k", "terms", "C(L, k)", "norm of their sum"]
        return {"columns": columns, "rows": rows}


def measure(device: str = "cpu", seed: int = 0, d: int = 8, L: int = 4) -> Result:
    """Build L random branches, run the stream, and compute ∂x_L/∂x_0 three ways.

    The plain stack of the same branches is run too: what the page says it lacks.
    """
    torch.manual_seed(seed)
    branches = [Branch(d).double().to(device) for _ in range(L)]
    x0 = torch.randn(d, dtype=torch.float64, device=device)
    xs = stream(branches, x0)
    full = jacobian(lambda x: stream(branches, x)[-1], x0)
    product = jacobian_as_product(branches, xs)
    Js = [jacobian(f, x) for f, x in zip(branches, xs, strict=False)]
    plain = torch.linalg.multi_dot(Js[::-1])
    eye = torch.eye(d, dtype=torch.float64, device=device)
    reversed_product = torch.linalg.multi_dot([eye + J for J in Js])

    def plain_stack(x: torch.Tensor) -> torch.Tensor:
        for g in branches:
            x = g(x)
        return x

    plain_xs = [x0]  # the plain stack's own inputs to each block
    for g in branches[:-1]:
        plain_xs.append(g(plain_xs[-1]))
    plain_Js = [jacobian(g, x) for g, x in zip(branches, plain_xs, strict=True)]
    plain_autograd = jacobian(plain_stack, x0)

    H = branches[0]  # a plain block: x -> H(x), no shortcut
    f = lambda x: H(x) - x  # noqa: E731 - its residual, f = H - id
    # algebraically 0; what is left is float64 rounding
    reparam = (H(x0) - (x0 + f(x0))).abs().max().item()

    for b in branches:
        nn.init.zeros_(b.net[2].weight)
        nn.init.zeros_(b.net[2].bias)
    zero_res = jacobian(lambda x: stream(branches, x)[-1], x0)
    zero_plain = jacobian(plain_stack, x0)
    return Result(
        d=d,
        L=L,
        autograd=full,
        product=product,
        plain_product=plain,
        reversed_product=reversed_product,
        paths=jacobian_as_paths(Js),
        plain_autograd=plain_autograd,
        plain_paths=jacobian_as_paths(plain_Js),
        reparam_error=reparam,
        zero_branch_jacobian=zero_res,
        zero_branch_plain_jacobian=zero_plain,
    )


if __name__ == "__main__":
    r = measure()
    print("max |autograd - product|:", (r.autograd - r.product).abs().max().item())
    print(
        "max |product - path sum|:",
        (r.product - r.path_sum).abs().max().item(),
        f"({len(r.paths)} subsets)",
    )
    print(
        "zero branches give I exactly:",
        torch.equal(r.zero_branch_jacobian, torch.eye(r.d, dtype=torch.float64)),
    )
    print(r.order_table())
