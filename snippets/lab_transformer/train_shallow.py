"""Lab 2 at 6 blocks: the learning-rate sweep of sweep.py, every variant, rate and seed.

# site: not-a-listing (an entry point: the listings are sweep.py's, which the page includes)
"""

from __future__ import annotations

import statistics

from snippets.lab_transformer import sweep

DEPTH = 6


def measure(device: str = "cpu", seed: int = 0, seeds: int = 3) -> dict:
    """Every variant x learning rate x seed at 6 blocks, trained side by side."""
    return sweep.measure(device, seed=seed, seeds=seeds, depth=DEPTH)


def growth(result: sweep.Sweep) -> dict[str, list[float]]:
    """Per seed: how much training multiplied the first and the median block's write/stream."""
    first = [
        result.ratios_trained[s][0] / result.ratios_init[s][0] for s in result.seeds
    ]
    middle = [
        statistics.median(result.ratios_trained[s])
        / statistics.median(result.ratios_init[s])
        for s in result.seeds
    ]
    return {"first": first, "median": middle}
