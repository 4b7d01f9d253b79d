"""Lab 2 at 24 blocks: pre-norm, post-norm, and post-norm with warm-up, every rate and seed.

# site: not-a-listing (an entry point: the listings are sweep.py's, which the page includes)

Each placement is trained in a stack of its own (pre-norm; post-norm with and without warm-up),
so that no stack computes a LayerNorm its models do not use. The models never mix; the size of
a stack can change only how its batched kernels round.
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
STACKS = (
    ("pre-norm",),
    ("post-norm", "post-norm + warm-up"),
)  # one placement per stack


def measure(device: str = "cpu", seed: int = 0, seeds: int = 3) -> dict:
    """Every variant x learning rate x seed at 24 blocks, one stack per placement."""
    parts = [
        sweep.measure(
            device, seed=seed, seeds=seeds, depth=DEPTH, grids=GRIDS, variants=v
        )
        for v in STACKS
    ]
    shared = {k: parts[0][k] for k in ("unigram", "sha256", "chars", "vocab", "depth")}
    for part in parts[1:]:
        assert all(part[k] == v for k, v in shared.items()), "the stacks saw other text"
    return dict(
        shared,
        sweeps={k: sw for part in parts for k, sw in part["sweeps"].items()},
        cpu_seconds=sum(part["cpu_seconds"] for part in parts),
    )
