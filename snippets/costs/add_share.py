"""Costs: what the residual addition costs next to the MLP branch it wraps.

Letters: N tokens in the batch (batch × sequence), d stream width; the branch is
Linear(d, 4d) -> ReLU -> Linear(4d, d). Run `python -m snippets.costs.add_share`.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
from torch.utils.flop_counter import FlopCounterMode

from snippets.residual_block.identity_shortcut import ResidualBlock


# --8<-- [start:flops]
def branch_flops(block: ResidualBlock, x: torch.Tensor) -> int:
    """Multiply-adds of the branch, counted by torch (2 FLOPs each)."""
    with FlopCounterMode(display=False) as counter:
        block.branch(x)  # (N, d)
    return counter.get_total_flops()


def add_flops(x: torch.Tensor) -> int:
    """The shortcut's `+` adds N·d pairs of numbers: one FLOP each."""
    return x.numel()


# --8<-- [end:flops]


# --8<-- [start:timing]
def paired_times(
    f: Callable[[], object], g: Callable[[], object], device: str, rounds: int
) -> tuple[float, float]:
    """Median seconds per call of f and of g, timed in alternation."""
    gpu = device.startswith("cuda")
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    # On CPU count the process's CPU time: time other programs take does not count.
    clock = time.perf_counter if gpu else time.process_time

    def once(fn: Callable[[], object], calls: int) -> float:
        sync()
        start = clock()
        for _ in range(calls):
            fn()
        sync()  # a GPU runs asynchronously: wait for it before reading the clock
        return (clock() - start) / calls

    def calls_for_2ms(fn: Callable[[], object]) -> int:
        once(fn, 1)  # warm-up: first-call allocations and library set-up
        return max(1, int(2e-3 / max(once(fn, 1), 1e-7)))

    # Repeat each call until one sample is long beside the timer's own overhead.
    calls = [calls_for_2ms(f), calls_for_2ms(g)]
    tf, tg = [], []
    for _ in range(rounds):
        tf.append(once(f, calls[0]))
        tg.append(once(g, calls[1]))
    return statistics.median(tf), statistics.median(tg)


# --8<-- [end:timing]


@contextlib.contextmanager
def one_thread(device: str) -> Iterator[None]:
    """On CPU, time with one thread: CPU time then equals the work done."""
    before = torch.get_num_threads()
    if not device.startswith("cuda"):
        torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@dataclass(frozen=True)
class Row:
    """One width: counted FLOPs and measured seconds of branch and add."""

    d: int
    tokens: int
    branch_flops: int
    add_flops: int
    branch_s: float
    add_s: float

    @property
    def flop_share(self) -> float:
        return self.add_flops / self.branch_flops

    @property
    def time_share(self) -> float:
        return self.add_s / self.branch_s


@torch.no_grad()
def time_width(device: str, seed: int, d: int, tokens: int, rounds: int) -> Row:
    """Count and time the forward branch and the add at one width d."""
    torch.manual_seed(seed)
    block = ResidualBlock(d, expansion=4).to(device)
    x = torch.randn(tokens, d, device=device)  # (N, d)
    fx = block.branch(x)  # (N, d)
    tb, ta = paired_times(lambda: block.branch(x), lambda: x + fx, device, rounds)
    return Row(d, tokens, branch_flops(block, x), add_flops(x), tb, ta)


def measure(
    device: str = "cpu",
    seed: int = 0,
    widths: tuple[int, ...] = (256, 1024),
    tokens: int = 256,
    rounds: int = 7,
) -> list[Row]:
    """One row per width, timed with one CPU thread (or on the GPU)."""
    with one_thread(device):
        return [time_width(device, seed, d, tokens, rounds) for d in widths]


def sweep(
    device: str,
    widths: tuple[int, ...],
    tokens: int,
    rounds: int,
    token_counts: tuple[int, ...],
    width: int,
) -> dict:
    """The benchmark (`nox -s bench`): shares across widths, then across batch sizes."""

    def row(r: Row, first: int) -> list[float]:
        add_bytes = 3 * 4 * r.add_flops  # read x and F(x), write y: 4 bytes each
        return [
            first,
            r.flop_share,
            r.time_share,
            r.time_share / r.flop_share,
            add_bytes / r.add_s / 1e9,
            r.branch_flops / r.branch_s / 1e9,
        ]

    shares = [
        "FLOP share",
        "time share",
        "time / FLOP share",
        "add GB/s",
        "branch GFLOP/s",
    ]
    by_width = [row(r, r.d) for r in measure(device, 0, widths, tokens, rounds)]
    with one_thread(device):
        by_tokens = [
            row(time_width(device, 0, width, n, rounds), n) for n in token_counts
        ]
    return {
        "tokens": tokens,
        "width": width,
        "table": {"columns": ["d", *shares], "rows": by_width},
        "tokens_table": {"columns": ["tokens N", *shares], "rows": by_tokens},
    }


if __name__ == "__main__":
    for r in measure():
        print(
            f"d={r.d:5}  FLOP share {r.flop_share:.2e}  time share {r.time_share:.2e}"
            f"  ({r.time_share / r.flop_share:.0f}× the FLOP share)"
        )
