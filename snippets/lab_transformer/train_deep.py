"""Lab 2 at 24 blocks: the learning-rate sweep of sweep.py, every variant, rate and seed.

# site: not-a-listing (an entry point: the listings are sweep.py's, which the page includes)
"""

from __future__ import annotations

from snippets.lab_transformer import sweep

DEPTH = 24
# Four rates per variant, factors of about 3 apart. On the 6-block grid (sweep.LRS) both
# post-norm variants did best at its lowest rate at this depth, so their grids start one step
# lower; the claims check that every best rate lies inside its grid.
GRIDS = {
    "pre-norm": sweep.LRS,
    "post-norm": (1e-4, 3e-4, 1e-3, 3e-3),
    "post-norm + warm-up": (1e-4, 3e-4, 1e-3, 3e-3),
}


def measure(device: str = "cpu", seed: int = 0, seeds: int = 3) -> dict:
    """Every variant x learning rate x seed at 24 blocks, trained side by side."""
    return sweep.measure(device, seed=seed, seeds=seeds, depth=DEPTH, grids=GRIDS)
