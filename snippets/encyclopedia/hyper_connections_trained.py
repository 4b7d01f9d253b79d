"""Encyclopedia, "Hyper-Connections": Lab 2's model trained with n copies of its stream.

The model, data, optimiser, step count and learning rate are Lab 2's reading model
(snippets/lab_transformer/reading.py: 6 pre-norm blocks, Adam). The hyper-connected models
wrap the same branches (each update's LayerNorm and its attention or MLP), built from the
same seed, so they start from the same weights and see the same batches; only the
connections between the branches differ. Static hyper-connections: the read weights a,
write weights b and mixing matrix M of each update are learned constants, not functions of
the input. The final LayerNorm reads the sum of the copies, as in Zhu et al.
Letters: n copies, L updates (two per block), M_l update l's mixing matrix.
Run `python -m snippets.encyclopedia.hyper_connections_trained` to print what the page
states (over a minute per seed).
"""

# site: not-a-listing (the experiment behind the measurements; listing: hyper_connections.py)
from __future__ import annotations

import time
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from snippets.degradation.training_curves import one_thread
from snippets.encyclopedia.hyper_connections import (
    HyperConnection,
    SinkhornConnection,
    composite_gain,
)
from snippets.lab_transformer.reading import DEPTH, LR, STEPS
from snippets.lab_transformer.stream import (
    Data,
    Run,
    TinyLM,
    build,
    load,
    train,
    valid_loss,
)

COPIES = 4  # Zhu et al.'s expansion rate in their headline runs
KINDS = {"hyper-connections": HyperConnection, "Sinkhorn mixing": SinkhornConnection}
# the kinds this file's experiment trains beside pre-norm (hyper_connections_mhc.py: the other)
TRAINED = ("hyper-connections",)


class HyperLM(nn.Module):
    """A pre-norm TinyLM whose 2L residual updates are hyper-connections on n copies."""

    def __init__(self, base: TinyLM, n: int, kind: type[HyperConnection]) -> None:
        super().__init__()
        self.n = n
        self.embed, self.pos, self.norm, self.unembed = (
            base.embed,
            base.pos,
            base.norm,
            base.unembed,
        )
        updates = [update for block in base.blocks for update in block]
        self.connections = nn.ModuleList(
            kind(nn.Sequential(u.norm, u.branch), n, index=i)  # LN then the branch
            for i, u in enumerate(updates)
        )

    def forward(self, tokens: Tensor) -> Tensor:
        x = self.embed(tokens) + self.pos.weight[: tokens.shape[1]]  # (B, T, d)
        H = x.expand(self.n, *x.shape)  # (n, B, T, d): n copies of the stream
        for connection in self.connections:
            H = connection(H)
        return self.unembed(self.norm(H.sum(0)))  # (B, T, V)

    def mixes(self) -> Tensor:
        """Every update's mixing matrix, in float64: (2L, n, n)."""
        return torch.stack([c.mixing().detach().double() for c in self.connections])


class Quiet(Run):
    """Lab 2's run record without its write-ratio checkpoints (they read single streams)."""

    def checkpoint(self, model: nn.Module, step: int, last: bool = False) -> None:
        pass


def hyper_run(
    data: Data, seed: int, kind: type[HyperConnection], steps: int = STEPS
) -> tuple[HyperLM, float]:
    """Lab 2's pre-norm model from `seed`, wrapped in hyper-connections, trained like it."""
    model = HyperLM(build(data, DEPTH, "pre-norm", seed), COPIES, kind)
    probe, _ = data.batch(torch.Generator().manual_seed(10_000 + seed), valid=True)
    train(model, data, Quiet("pre-norm", DEPTH, 0, probe), steps, LR, seed)
    return model, valid_loss(model, data, seed)


def parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def weight_counts(seed: int, n: int = COPIES) -> dict[str, int]:
    """Weights of Lab 2's pre-norm model and its hyper-connected versions, untrained."""
    data = load("cpu")
    counts = {"pre-norm": parameters(build(data, DEPTH, "pre-norm", seed))}
    for name, kind in KINDS.items():
        model = HyperLM(build(data, DEPTH, "pre-norm", seed), n, kind)
        counts[name] = parameters(model)
        counts[f"{name}: branches"] = parameters(model) - sum(
            p.numel() for c in model.connections for p in c.parameters(recurse=False)
        )
    counts["updates"], counts["n"] = 2 * DEPTH, n
    return counts


def singular_values(mixes: Tensor) -> list[list[float]]:
    """Each mixing matrix's singular values, largest first: (2L, n)."""
    return torch.linalg.svdvals(mixes).tolist()


@dataclass(frozen=True)
class Trained:
    """One hyper-connected model after training."""

    valid_loss: float
    untrained_loss: float  # the same model before training
    untrained_gains: list[float]  # its composite gains: M_l = I (or Sinkhorn's start)
    gains: list[float]  # largest singular value of M_l ... M_1, l = 1 .. 2L
    singular: list[list[float]]  # each M_l's singular values
    row_error: float  # largest |row sum - 1| over the M_l
    column_error: float
    negative: float  # the most negative entry of any M_l (0 if none)
    off_diagonal: float  # mean |entry| off the diagonal, over every M_l
    read: list[list[float]]  # a_l per update
    write: list[list[float]]  # b_l per update
    seconds: float  # CPU time of the training


@dataclass(frozen=True)
class Result:
    seed: int
    depth: int
    updates: int
    steps: int
    n: int
    prenorm_loss: float
    prenorm_seconds: float
    prenorm_parameters: int
    parameters: dict[str, int]  # kind -> parameter count
    trained: dict[str, Trained]


def read_model(
    model: HyperLM, untrained: HyperLM, before: float, seconds: float, loss: float
) -> Trained:
    mixes = model.mixes()  # (2L, n, n)
    eye = torch.eye(model.n, dtype=torch.bool)
    return Trained(
        valid_loss=loss,
        untrained_loss=before,
        untrained_gains=composite_gain(untrained.mixes()),
        gains=composite_gain(mixes),
        singular=singular_values(mixes),
        row_error=(mixes.sum(-1) - 1).abs().max().item(),
        column_error=(mixes.sum(-2) - 1).abs().max().item(),
        negative=min(0.0, mixes.min().item()),
        off_diagonal=mixes[:, ~eye].abs().mean().item(),
        read=[c.read.detach().tolist() for c in model.connections],
        write=[c.write.detach().tolist() for c in model.connections],
        seconds=seconds,
    )


def measure(
    device: str = "cpu",
    seed: int = 0,
    steps: int = STEPS,
    kinds: tuple[str, ...] = TRAINED,
) -> Result:
    """Train Lab 2's pre-norm model and its hyper-connected versions from `seed`."""
    data = load(device)
    with one_thread():
        start = time.process_time()
        base = build(data, DEPTH, "pre-norm", seed)
        probe, _ = data.batch(torch.Generator().manual_seed(10_000 + seed), valid=True)
        train(base, data, Quiet("pre-norm", DEPTH, 0, probe), steps, LR, seed)
        prenorm = valid_loss(base, data, seed)
        prenorm_seconds = time.process_time() - start
        trained, counts = {}, {}
        for name in kinds:
            kind = KINDS[name]
            untrained = HyperLM(build(data, DEPTH, "pre-norm", seed), COPIES, kind)
            before = valid_loss(untrained, data, seed)
            start = time.process_time()
            model, loss = hyper_run(data, seed, kind, steps)
            seconds = time.process_time() - start
            counts[name] = parameters(model)
            trained[name] = read_model(model, untrained, before, seconds, loss)
    return Result(
        seed=seed,
        depth=DEPTH,
        updates=2 * DEPTH,
        steps=steps,
        n=COPIES,
        prenorm_loss=prenorm,
        prenorm_seconds=prenorm_seconds,
        prenorm_parameters=parameters(base),
        parameters=counts,
        trained=trained,
    )


if __name__ == "__main__":
    import sys

    t = time.process_time()
    r = measure(seed=int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(f"pre-norm: held-out loss {r.prenorm_loss:.4f} ({r.prenorm_seconds:.1f} s)")
    print(f"parameters: pre-norm {r.prenorm_parameters}, {r.parameters}")
    for name, m in r.trained.items():
        print(
            f"{name}: held-out loss {m.valid_loss:.4f} (untrained {m.untrained_loss:.3f}, "
            f"{m.seconds:.1f} s); composite gain {[round(g, 3) for g in m.gains]}"
        )
        print(
            f"  rows off by {m.row_error:.2e}, columns {m.column_error:.2e}, most negative "
            f"{m.negative:.3f}, mean |off-diagonal| {m.off_diagonal:.3f}"
        )
        print("  largest singular value per M_l", [round(s[0], 3) for s in m.singular])
    print(f"{time.process_time() - t:.1f} s")
