"""Encyclopedia, "Variants of the Residual Stream, Compared": the five models trained side by side.

Lab 2's harness (snippets/lab_transformer/stream.py): its corpus and held-out windows, its training
loop (Adam at its reading model's learning rate, no warm-up), and from one seed the same initial
weights for everything the variants share and the same batches in the same order. Every variant
trains for the same number of steps. Run `python -m snippets.encyclopedia.variants_models` to print
what the page states (a few minutes).
"""

# site: not-a-listing (the experiment behind the measurements; listings: variants.py)
from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from snippets.degradation.training_curves import one_thread
from snippets.encyclopedia.variants import VARIANTS, Variant, count
from snippets.lab_transformer.reading import DEPTH, LR
from snippets.lab_transformer.stream import Data, Run, load, train, valid_loss

STEPS = 1000  # two thirds of Lab 2's reading model's 1500: five models per seed fit the budget
EARLY = (
    10  # held-out loss is also read a tenth of the way in: the comparison's yardstick
)
TAIL, EVERY = (
    5,
    50,
)  # the score: mean held-out loss at the last TAIL checkpoints, EVERY steps apart
# (the learning rate stays constant, so one reading carries the last few steps' noise)


class Scored(Run):
    """Lab 2's Run, scoring held-out loss at chosen steps instead of reading write ratios."""

    def attach(self, data: Data, seed: int, at: set[int]) -> Scored:
        self.data, self.seed, self.at, self.scores = data, seed, at, {}
        return self

    def checkpoint(self, model: torch.nn.Module, step: int, last: bool = False) -> None:
        if step in self.at and step not in self.scores:
            with torch.no_grad():
                self.scores[step] = valid_loss(model, self.data, self.seed)


@dataclass(frozen=True)
class Model:
    valid: float  # mean held-out loss over the last TAIL checkpoints
    final: float  # held-out loss after the last step
    untrained: float  # the same windows before training
    early: float  # after a tenth of the steps
    train_tail: float  # mean training loss over the last tenth of the steps
    params: int
    cpu_seconds: float
    dwa: list[list[float]] | None  # DenseFormer's learned weights, per block


@dataclass(frozen=True)
class Result:
    seed: int
    depth: int
    steps: int
    early: int
    tail: list[int]
    lr: float
    models: dict[str, Model]


def measure(device: str = "cpu", seed: int = 0, steps: int = STEPS) -> Result:
    """Train Lab 2's pre-norm model and the four variants from `seed`, side by side."""
    data = load(device)
    models, early = {}, steps // EARLY
    tail = [steps - EVERY * i for i in reversed(range(TAIL))]
    with one_thread():
        for name in VARIANTS:
            torch.manual_seed(seed)
            model = Variant(len(data.chars), DEPTH, name).to(data.train.device)
            probe = data.valid[:1]  # unused: Scored reads no ratios
            run = Scored(name, DEPTH, 0, probe, every=steps).attach(
                data, seed, {0, early, *tail}
            )
            start = time.process_time()
            train(model, data, run, steps, LR, seed)
            dwa = None
            if name == "DenseFormer":
                dwa = [w.detach().cpu().tolist() for w in model.dwa]
            models[name] = Model(
                valid=sum(run.scores[t] for t in tail) / TAIL,
                final=run.scores[steps],
                untrained=run.scores[0],
                early=run.scores[early],
                train_tail=sum(run.losses[-steps // 10 :]) / (steps // 10),
                params=count(model),
                cpu_seconds=time.process_time() - start,
                dwa=dwa,
            )
    return Result(seed, DEPTH, steps, early, tail, LR, models)


if __name__ == "__main__":
    t = time.time()
    r = measure()
    for name, m in r.models.items():
        print(
            f"{name:12} valid {m.valid:.4f} early {m.early:.3f} untrained {m.untrained:.3f}"
            f" train {m.train_tail:.3f} params {m.params} cpu {m.cpu_seconds:.1f} s"
        )
    print(f"{time.time() - t:.1f} s wall")
