"""Lab 2 at 24 blocks, what warm-up adds: post-norm with and without it, every rate and seed.

# site: not-a-listing (an entry point: the listings are sweep.py's, which the page includes)

The other half of the 24-block sweep (train_deep.py has pre-norm against post-norm), on the
same grids, seeds and code.
"""

from __future__ import annotations

from snippets.lab_transformer import train_deep

DEPTH = train_deep.DEPTH
VARIANTS = ("post-norm", "post-norm + warm-up")


def measure(device: str = "cpu", seed: int = 0, seeds: int = 3) -> dict:
    """Post-norm with and without warm-up x learning rate x seed at 24 blocks."""
    return train_deep.measure(device, seed=seed, seeds=seeds, variants=VARIANTS)
