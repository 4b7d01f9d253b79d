"""Encyclopedia, "Hyper-Connections": Lab 2's model with Sinkhorn-constrained mixing, trained.

The same experiment as hyper_connections_trained.py (Lab 2's pre-norm reading model wrapped in
hyper-connections on n = 4 copies, trained with Lab 2's step count and learning rate from the
same seeds), with mHC's constraint on each mixing matrix: M_l = sinkhorn(logits_l), the
listing's SinkhornConnection. Static: the logits are learned constants.
Run `python -m snippets.encyclopedia.hyper_connections_mhc` to print what the page states
(about a minute per seed).
"""

# site: not-a-listing (the experiment behind the measurements; listing: hyper_connections.py)
from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from snippets.degradation.training_curves import one_thread
from snippets.encyclopedia.hyper_connections import SinkhornConnection, composite_gain
from snippets.encyclopedia.hyper_connections_trained import (
    COPIES,
    HyperLM,
    Trained,
    hyper_run,
    read_model,
)
from snippets.lab_transformer.reading import DEPTH, STEPS
from snippets.lab_transformer.stream import build, load, valid_loss


@dataclass(frozen=True)
class Result:
    seed: int
    depth: int
    updates: int
    steps: int
    n: int
    trained: Trained  # the Sinkhorn-constrained model after training
    unprojected_gains: list[
        float
    ]  # the same trained logits, exponentiated, not projected
    row_errors: list[float]  # each trained M_l's largest |row sum - 1|


def measure(device: str = "cpu", seed: int = 0, steps: int = STEPS) -> Result:
    """Train Lab 2's model with Sinkhorn-constrained hyper-connections from `seed`; read it."""
    data = load(device)
    with one_thread():
        untrained = HyperLM(
            build(data, DEPTH, "pre-norm", seed), COPIES, SinkhornConnection
        )
        before = valid_loss(untrained, data, seed)
        start = time.process_time()
        model, loss = hyper_run(data, seed, SinkhornConnection, steps)
        seconds = time.process_time() - start
        trained = read_model(model, untrained, before, seconds, loss)
        logits = torch.stack([c.logits.detach().double() for c in model.connections])
        mixes = model.mixes()  # (2L, n, n)
    return Result(
        seed=seed,
        depth=DEPTH,
        updates=2 * DEPTH,
        steps=steps,
        n=COPIES,
        trained=trained,
        unprojected_gains=composite_gain(logits.exp()),
        row_errors=(mixes.sum(-1) - 1).abs().amax(-1).tolist(),
    )


if __name__ == "__main__":
    t = time.process_time()
    r = measure()
    m = r.trained
    print(f"held-out loss {m.valid_loss:.4f} (untrained {m.untrained_loss:.3f})")
    print("composite gain", [round(g, 5) for g in m.gains])
    print("unprojected", [round(g, 3) for g in r.unprojected_gains])
    print(f"rows off by {m.row_error:.2e}, columns {m.column_error:.2e}")
    print(f"{time.process_time() - t:.1f} s")
