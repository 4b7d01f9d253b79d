"""Lab 2's tasks: predict how much the residual stream grows, and choose a branch scale that
keeps it in check at any depth.

    python lab_stream_tasks.py

Needs only Python and PyTorch. Fill in the two functions marked TASK, then run this file: it
builds stacks of residual blocks (Linear-ReLU-Linear branches at PyTorch's default
initialisation, every branch multiplied by alpha), measures how much the stream's root mean
square grows through them, and checks both of your functions against it, with a hint for every
failure. It opens no network connection and writes no file.

Letters: L the depth in blocks, alpha the branch scale, r² the share of the stream's second
moment that one unscaled branch writes (1/18 at PyTorch's default initialisation).
"""

# site: not-a-listing (a download: docs/module/lab-transformer-stream.md, "Your turn")

from __future__ import annotations

import math
import statistics
import sys

import torch
from torch import nn

R2_DEFAULT = (
    1 / 18
)  # r² of a Linear-ReLU-Linear branch at PyTorch's default initialisation
WIDTH, BATCH, SEEDS = 128, 256, (0, 1, 2)
DEPTH, ALPHAS = 48, (0.5, 1.0)  # the growth check
TARGET, DEPTHS = 2.0, (12, 48, 192)  # the design check: growth by TARGET at every depth
NEAR = 0.15  # a prediction within this fraction of the median measured growth passes


# TASK: the growth -------------------------------------------------------------------------
def stream_growth(depth: int, alpha: float, r2: float) -> float:
    """RMS(stream after L blocks) / RMS(input), when every block writes alpha * branch(x)
    and an unscaled branch writes a share r2 of the second moment it reads. Return a float."""
    raise NotImplementedError(
        "each block multiplies the second moment by (1 + share written); what does alpha do to it?"
    )


# TASK: the scale --------------------------------------------------------------------------
def alpha_for_growth(depth: int, target: float, r2: float) -> float:
    """The branch scale alpha at which L blocks grow the stream's RMS by exactly `target`."""
    raise NotImplementedError(
        "solve stream_growth(depth, alpha, r2) = target for alpha"
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


def measured_growth(depth: int, alpha: float, seed: int) -> float:
    """RMS(h_L) / RMS(x) for unit-normal inputs through a fresh stack (float64)."""
    torch.manual_seed(seed)
    stack = nn.Sequential(*(Block(WIDTH, alpha) for _ in range(depth))).double()
    x = torch.randn(BATCH, WIDTH, dtype=torch.float64)
    with torch.no_grad():
        return float(stack(x).pow(2).mean().sqrt() / x.pow(2).mean().sqrt())


# The check ----------------------------------------------------------------------------------
def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return math.isfinite(a) and abs(a - b) <= tol * max(1.0, abs(b))


def _hint_growth(f) -> str:
    for depth, alpha, r2 in ((1, 1.0, 1.0), (10, 2.0, 0.25), (48, 0.5, R2_DEFAULT)):
        want = (1 + alpha**2 * r2) ** (depth / 2)
        got = float(f(depth, alpha, r2))
        if _close(got, want):
            continue
        seen = f"stream_growth({depth}, {alpha:g}, {r2:.4g}) = {got:.4g}"
        if _close(got, want**2):
            return f"{seen}: that is the second moment's growth; the RMS is its square root"
        if _close(got, (1 + alpha * r2) ** (depth / 2)):
            return (
                f"{seen}: scaling a write by alpha scales its energy by alpha squared"
            )
        if _close(got, (1 + depth * alpha**2 * r2) ** 0.5):
            return f"{seen}: the shares multiply block after block, they do not add"
        return f"{seen}, expected {want:.4g}"
    return ""


def _hint_alpha(f) -> str:
    for depth, target, r2 in ((1, 2.0, 1.0), (10, 3.0, 0.25), (48, TARGET, R2_DEFAULT)):
        want = math.sqrt((target ** (2 / depth) - 1) / r2)
        got = float(f(depth, target, r2))
        if not _close(got, want):
            seen = f"alpha_for_growth({depth}, {target:g}, {r2:.4g}) = {got:.4g}"
            return f"{seen}, expected {want:.4g}"
    return ""


def check(module) -> list[tuple[str, bool, str]]:
    """(task, passed, what to do) for each task, then the measurements."""
    out = []
    for name, hint in (
        ("stream_growth", _hint_growth),
        ("alpha_for_growth", _hint_alpha),
    ):
        try:
            problem = hint(getattr(module, name))
        except NotImplementedError as e:
            problem = f"not done yet: {e}"
        except Exception as e:  # a learner's error is reported, not raised
            problem = f"raised {type(e).__name__}: {e}"
        out.append((name, not problem, problem))
    if not all(ok for _, ok, _ in out):
        return out
    for alpha in ALPHAS:
        grown = [measured_growth(DEPTH, alpha, s) for s in SEEDS]
        predicted = module.stream_growth(DEPTH, alpha, R2_DEFAULT)
        worst = abs(
            statistics.median(grown) / predicted - 1
        )  # one seed scatters; the median less
        text = f"alpha = {alpha:g}, {DEPTH} blocks: grew {min(grown):.2f}x to {max(grown):.2f}x"
        out.append(("measured", worst < NEAR, f"{text}, predicted {predicted:.2f}x"))
    for depth in DEPTHS:
        alpha = module.alpha_for_growth(depth, TARGET, R2_DEFAULT)
        grown = [measured_growth(depth, alpha, s) for s in SEEDS]
        worst = abs(statistics.median(grown) / TARGET - 1)
        text = f"{depth} blocks at alpha = {alpha:.3f}: grew {min(grown):.2f}x to {max(grown):.2f}x"
        out.append(("designed", worst < NEAR, f"{text}, target {TARGET:g}x"))
    return out


def main(module=None) -> int:
    results = check(module or sys.modules[__name__])
    for name, ok, text in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}{': ' + text if text else ''}")
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
