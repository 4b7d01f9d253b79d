"""Worked answers to Lab 1's tasks (snippets/lab_paths/tasks.py, served as lab_paths_tasks.py).

Letters as there: L the depth, k a path's length, E_k the energy its paths carry, r² the share
of the stream's second moment one branch writes.
"""

from __future__ import annotations

from snippets.lab_paths import tasks


# --8<-- [start:answers]
def energy_weighted_length(energies: list[float]) -> float:
    """Task 1: the mean of k, weighted by E_k."""
    return sum(k * e for k, e in enumerate(energies)) / sum(energies)


def predicted_length(depth: int, r2: float) -> float:
    """Task 2: each of the L blocks is on a path with probability r² / (1 + r²)."""
    return depth * r2 / (1 + r2)


# --8<-- [end:answers]


def heuristic_length(depth: int, r2: float) -> float:
    """The count × size weighting, binomial(L, k) r^k: mean L r / (1 + r) (the loose bound)."""
    r = r2**0.5
    return depth * r / (1 + r)


def measure(device: str = "cpu", seed: int = 0, seeds: int = 5) -> dict:
    """The energy-weighted length at DEPTH blocks for each alpha and seed, and both predictions
    (float64 on the CPU; the device is not used)."""
    ids = list(range(seed, seed + seeds))
    out: dict = {
        "depth": tasks.DEPTH,
        "alphas": list(tasks.ALPHAS),
        "seeds": ids,
        "by_alpha": {},
    }
    for alpha in tasks.ALPHAS:
        r2 = tasks.R2_DEFAULT * alpha**2
        out["by_alpha"][f"{alpha:g}"] = {
            "r2": r2,
            "measured": [
                energy_weighted_length(tasks.path_energies(tasks.DEPTH, alpha, s))
                for s in ids
            ],
            "predicted": predicted_length(tasks.DEPTH, r2),
            "heuristic": heuristic_length(tasks.DEPTH, r2),
        }
    return out


if __name__ == "__main__":
    for alpha, r in measure()["by_alpha"].items():
        shown = {k: round(r[k], 2) for k in ("predicted", "heuristic")}
        print(f"alpha {alpha}: measured", [round(m, 2) for m in r["measured"]], shown)
