"""The degradation problem trained to a plateau: the two plain nets (8 and 22 weight layers)
at every rate of their grid, one seed (converged.py holds the data, nets and training loop)."""

from __future__ import annotations

from snippets.degradation import converged
from snippets.degradation.converged import STEPS, Result


# --8<-- [start:measure]
def measure(device: str = "cpu", seed: int = 0, steps: int = STEPS) -> Result:
    """The 8- and 22-layer plain nets, each trained at every rate of converged.PLAIN_LRS."""
    return converged.measure(device, seed, residual=False, steps=steps)


# --8<-- [end:measure]
