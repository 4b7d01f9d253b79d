"""Lab 1's tasks: the effective depth of a residual stack, measured and predicted.

    python lab_paths_tasks.py

Needs only Python and PyTorch. Fill in the two functions marked TASK, then run this file: it
measures the gradient's energy by path length on residual stacks of Linear-ReLU-Linear
branches (PyTorch's default initialisation, every branch scaled by alpha) and checks both of your
functions, with a hint for every failure. It opens no network connection and writes no file.

Letters: L the depth in blocks, k a path's length (how many branches it passes through), E_k the
energy of all paths of length k together, r² the share of the stream's second moment that one
branch writes (1/18 at PyTorch's default initialisation, times alpha²).
"""

# site: not-a-listing (a download: docs/module/lab-why-it-trains.md, "Your turn")

from __future__ import annotations

import math
import sys

import torch
from torch import nn

R2_DEFAULT = (
    1 / 18
)  # r² of a Linear-ReLU-Linear branch at PyTorch's default initialisation
DEPTH, WIDTH, INPUTS, SEEDS = 50, 64, 4, (0, 1, 2)
ALPHAS = (1.0, 2.0, 3.0)  # the branch scales the check measures
NEAR = 0.15  # a prediction within this fraction of the measured length passes


# TASK: the measured length ---------------------------------------------------------------
def energy_weighted_length(energies: list[float]) -> float:
    """The mean path length k, each length weighted by the energy E_k its paths carry.

    energies[k] is E_k for k = 0, 1, ..., L. Return a float.
    """
    raise NotImplementedError(
        "weight each path length k by its energy energies[k], and divide by the total"
    )


# TASK: the predicted length --------------------------------------------------------------
def predicted_length(depth: int, r2: float) -> float:
    """The energy-weighted mean path length that the binomial rule predicts, without measuring.

    Each of the L blocks either adds its branch to a path (energy factor r²) or not (factor 1).
    """
    raise NotImplementedError(
        "a path takes each branch with probability r²/(1 + r²); what is its mean length?"
    )


# The measurement (given) --------------------------------------------------------------------
class Block(nn.Module):
    """x + alpha * branch(x), the branch Linear -> ReLU -> Linear at PyTorch's default init."""

    def __init__(self, width: int, alpha: float) -> None:
        super().__init__()
        self.alpha = alpha
        self.branch = nn.Sequential(
            nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.alpha * self.branch(x)


def path_energies(depth: int, alpha: float, seed: int) -> list[float]:
    """E_k for k = 0..L: the input gradient of a stack, expanded path by path (float64)."""
    torch.manual_seed(seed)
    stack = nn.Sequential(*(Block(WIDTH, alpha) for _ in range(depth))).double()
    x = torch.randn(INPUTS, WIDTH, dtype=torch.float64)
    jacobians = []
    with torch.no_grad():
        for block in stack:  # each branch's Jacobian where the forward pass reaches it:
            first, _, second = block.branch  # alpha W2 diag(ReLU'(W1 x + b1)) W1
            open_ = (first(x) > 0).to(x.dtype)  # (N, d)
            jacobians.append(alpha * second.weight @ (open_[:, :, None] * first.weight))
            x = block(x)  # (N, d)
    terms = torch.zeros(depth + 1, INPUTS, WIDTH, dtype=torch.float64)
    terms[0] = 1.0  # the upstream gradient of sum(output): the path through no branch
    for J in reversed(
        jacobians
    ):  # from the output down: each path may take one more branch
        terms[1:] += torch.einsum("knd,nde->kne", terms[:-1], J)
    return terms.pow(2).sum(dim=(1, 2)).tolist()


# The check ----------------------------------------------------------------------------------
def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return math.isfinite(a) and abs(a - b) <= tol * max(1.0, abs(b))


def _hint_task1(f) -> str:
    cases = (
        [1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 2.0, 1.0],
        [4.0, 1.0],
        [9.0, 3.0, 1.0],
    )
    for e in cases:
        want = sum(k * v for k, v in enumerate(e)) / sum(e)
        got = float(f(list(e)))
        if _close(got, want):
            continue
        by_size = sum(k * v**0.5 for k, v in enumerate(e)) / sum(v**0.5 for v in e)
        if _close(got, by_size):
            return f"for {e} you return {got:.4g}: that weights k by a row's size, not its energy"
        if _close(got, sum(k * v for k, v in enumerate(e))):
            return f"for {e} you return {got:.4g}: divide by the total energy, sum(energies)"
        if _close(got, (len(e) - 1) / 2):
            return f"for {e} you return {got:.4g}, the mean of k by count: weight k by energies[k]"
        return f"for {e} you return {got:.4g}, expected {want:.4g}"
    return ""


def _hint_task2(f) -> str:
    for depth, r2 in ((1, 1.0), (10, 0.25), (50, R2_DEFAULT), (50, 4.0)):
        want = depth * r2 / (1 + r2)
        got = float(f(depth, r2))
        if _close(got, want):
            continue
        r = r2**0.5
        if _close(got, depth * r / (1 + r)):
            return (
                f"predicted_length({depth}, {r2:.4g}) = {got:.4g} uses the gain r, not the "
                "energy r²: that is the count x size weighting, the loose bound"
            )
        if _close(got, depth * r2):
            return f"predicted_length({depth}, {r2:.4g}) = {got:.4g}: the odds are r²/(1 + r²)"
        return f"predicted_length({depth}, {r2:.4g}) = {got:.4g}, expected {want:.4g}"
    return ""


def check(module) -> list[tuple[str, bool, str]]:
    """(task, passed, what to do) for each task, the measurements included."""
    out = []
    tasks = (("energy_weighted_length", _hint_task1), ("predicted_length", _hint_task2))
    for name, hint in tasks:
        f = getattr(module, name)
        try:
            problem = hint(f)
        except NotImplementedError as e:
            problem = f"not done yet: {e}"
        except Exception as e:  # a learner's error is reported, not raised
            problem = f"raised {type(e).__name__}: {e}"
        out.append((name, not problem, problem))
    if all(ok for _, ok, _ in out):
        for alpha in ALPHAS:
            energies = [path_energies(DEPTH, alpha, s) for s in SEEDS]
            measured = [module.energy_weighted_length(e) for e in energies]
            predicted = module.predicted_length(DEPTH, R2_DEFAULT * alpha**2)
            worst = max(abs(m / predicted - 1) for m in measured)
            text = (
                f"alpha = {alpha:g}, {DEPTH} blocks: measured {min(measured):.2f} to "
                f"{max(measured):.2f}, predicted {predicted:.2f} (off by {worst:.0%} at most)"
            )
            out.append(("measured", worst < NEAR, text))
    return out


def main(module=None) -> int:
    results = check(module or sys.modules[__name__])
    for name, ok, text in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}{': ' + text if text else ''}")
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
