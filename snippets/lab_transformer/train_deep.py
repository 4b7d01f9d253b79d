"""Lab 2 at 24 blocks, what placement decides: pre-norm and post-norm, every rate and seed.

# site: not-a-listing (an entry point: the listings are sweep.py's, which the page includes)

The 24-block sweep is split in two experiments so that neither takes the whole of a CI slot:
this one (pre-norm against post-norm) and train_deep_warmup.py (post-norm with and without
warm-up). Post-norm is trained in both, on the same seeds, grid and code.
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
VARIANTS = ("pre-norm", "post-norm")


def measure(
    device: str = "cpu",
    seed: int = 0,
    seeds: int = 3,
    variants: tuple[str, ...] = VARIANTS,
) -> dict:
    """Each of `variants` x learning rate x seed at 24 blocks, trained side by side."""
    return sweep.measure(
        device, seed=seed, seeds=seeds, depth=DEPTH, grids=GRIDS, variants=variants
    )
