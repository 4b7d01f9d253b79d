"""Worked answers to Lab 2's tasks (snippets/lab_transformer/tasks.py, served as
lab_stream_tasks.py). Letters as there: L the depth, alpha the branch scale, r² the share of
the second moment an unscaled branch writes.
"""

from __future__ import annotations

import math

from snippets.lab_transformer import tasks


# --8<-- [start:answers]
def stream_growth(depth: int, alpha: float, r2: float) -> float:
    """Each block multiplies the second moment by 1 + alpha² r²; the RMS is its root."""
    return (1 + alpha**2 * r2) ** (depth / 2)


def alpha_for_growth(depth: int, target: float, r2: float) -> float:
    """Solve (1 + alpha² r²)^(L/2) = target: alpha shrinks like 1/sqrt(L) at depth."""
    return math.sqrt((target ** (2 / depth) - 1) / r2)


# --8<-- [end:answers]


def additive_growth(depth: int, alpha: float, r2: float) -> float:
    """The growth if the blocks' shares added instead of multiplying: sqrt(1 + L alpha² r²)."""
    return (1 + depth * alpha**2 * r2) ** 0.5


def measure_at(depth: int, alpha: float, seeds: list[int]) -> list[float]:
    """The growth through `depth` blocks at a given alpha, one value per seed."""
    return [tasks.measured_growth(depth, alpha, s) for s in seeds]


def measure(device: str = "cpu", seed: int = 0, seeds: int = 5) -> dict:
    """Measured growth and both predictions at DEPTH for each alpha, and the growth at each of
    DEPTHS with the designed alpha (float64 on the CPU; the device is not used)."""
    ids = list(range(seed, seed + seeds))
    out: dict = {"seeds": ids, "by_alpha": {}, "by_depth": {}}
    for alpha in tasks.ALPHAS:
        out["by_alpha"][f"{alpha:g}".replace(".", "_")] = {  # a key without a dot
            "measured": [tasks.measured_growth(tasks.DEPTH, alpha, s) for s in ids],
            "predicted": stream_growth(tasks.DEPTH, alpha, tasks.R2_DEFAULT),
            "additive": additive_growth(tasks.DEPTH, alpha, tasks.R2_DEFAULT),
        }
    for depth in tasks.DEPTHS:
        alpha = alpha_for_growth(depth, tasks.TARGET, tasks.R2_DEFAULT)
        out["by_depth"][str(depth)] = {
            "alpha": alpha,
            "alpha_root_depth": alpha * depth**0.5,
            "measured": [tasks.measured_growth(depth, alpha, s) for s in ids],
        }
    return out


if __name__ == "__main__":
    r = measure()
    for alpha, by in r["by_alpha"].items():
        shown = {k: round(by[k], 2) for k in ("predicted", "additive")}
        print(f"alpha {alpha}: grew", [round(m, 2) for m in by["measured"]], shown)
    for depth, by in r["by_depth"].items():
        grown = [round(m, 2) for m in by["measured"]]
        print(f"{depth} blocks, alpha {by['alpha']:.3f}: grew", grown)
