# site: not-a-listing (timing harness for Lab 2's stacked training; the page shows its numbers)
"""Costs: what training M models side by side in one stack costs against training one.

Lab 2's sweep (snippets/lab_transformer/sweep.py) trains every seed and learning rate of a
variant as one stack: each model keeps its own weights, batches, loss and Adam state, and one
pass of batched matrix products serves them all. This sweep times a training step of a stack of
M models (M seeds of pre-norm at one rate, 6 blocks, the sweep's batch and context) for several M,
on one CPU thread as the claims run, and reports each M's time per step against one model's.
Run `nox -s bench -- -k stacked_seeds`.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Iterator

import torch

from snippets.degradation.training_curves import one_thread
from snippets.lab_transformer import sweep
from snippets.lab_transformer.stream import TinyLM


@contextlib.contextmanager
def steps(n: int) -> Iterator[None]:
    """sweep.train for n steps instead of the sweep's STEPS (no warm-up inside them)."""
    before = sweep.STEPS, sweep.WARMUP
    sweep.STEPS, sweep.WARMUP = n, 0
    try:
        yield
    finally:
        sweep.STEPS, sweep.WARMUP = before


def step_seconds(text: sweep.Text, models: int, depth: int, n: int) -> float:
    """Wall seconds per training step of a stack of `models` pre-norm models (seeds 0..models-1)."""
    built = []
    for s in range(models):
        torch.manual_seed(s)
        built.append(TinyLM(len(text.chars), depth, "pre-norm"))
    P = sweep.stack(built)
    pre = torch.ones(models, dtype=torch.bool)
    lrs = torch.full((models,), 1e-3)
    warm = torch.zeros(models, dtype=torch.bool)
    with steps(n):
        start = time.perf_counter()
        sweep.train(P, text, pre, lrs, warm, list(range(models)))
        return (time.perf_counter() - start) / n


def one_at_a_time(
    text: sweep.Text, models: int, depth: int, n: int
) -> list[list[float]]:
    """The same models trained one after the other, each a stack of one, as the sweep's rows:
    one model's (the median of the single runs), then all of them: [M, s per step, its ratio
    to one model's, the speed-up]. Taking one model's time from the same runs keeps a slow
    first run or a busy stretch from passing for a saving."""
    step_seconds(text, 1, depth, 2)  # first-call set-up is not a step
    each = [step_seconds(text, 1, depth, n) for _ in range(models)]
    one, alone = statistics.median(each), sum(each)
    return [[1, one, 1.0, 1.0], [models, alone, alone / one, models * one / alone]]


def sweep_stack(
    device: str, stacks: tuple[int, ...], depth: int, steps_timed: int, rounds: int
) -> dict:
    """The benchmark (`nox -s bench`): each stack size's median seconds per step, against one's."""
    if device != "cpu":
        raise ValueError("stacked_seeds times the CPU sweep; run it with --device cpu")
    text = sweep.load()
    with one_thread():
        step_seconds(text, 1, depth, 2)  # first-call set-up is not a step
        # Each round times every stack size in turn, so a slow stretch of the machine slows
        # a round's sizes alike; a size's ratio to one model is taken within its round, then
        # the median over rounds.
        rounds_ = [
            {m: step_seconds(text, m, depth, steps_timed) for m in stacks}
            for _ in range(rounds)
        ]
    per_step = {m: statistics.median(r[m] for r in rounds_) for m in stacks}
    ratio = {m: statistics.median(r[m] / r[1] for r in rounds_) for m in stacks}
    rows = [[m, per_step[m], ratio[m], m / ratio[m]] for m in stacks]
    return {
        "depth": depth,
        "steps_timed": steps_timed,
        "rounds": rounds,
        "batch": sweep.BATCH,
        "table": {
            "columns": [
                "models M",
                "s per step",
                "time / one model's",
                "speed-up over one at a time",
            ],
            "rows": rows,
        },
    }
