"""Costs: arithmetic on subnormal float32 numbers, and what flushing them to zero changes.

Letters: N rows, d width. float32 is normal down to 2⁻¹²⁶ ≈ 1.2e-38; below that it keeps
going, with fewer significant bits, down to 2⁻¹⁴⁹ (subnormal numbers).
Run `python -m snippets.costs.denormals`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from snippets.costs.add_share import one_thread, paired_times
from snippets.gradient_highway.depth_sweep import make_stack

TINY = torch.finfo(torch.float32).tiny  # 2⁻¹²⁶, the smallest normal float32


# --8<-- [start:flush]
@contextlib.contextmanager
def flushing(on: bool) -> Iterator[None]:
    """Treat subnormal inputs and results as zero (x86 FTZ/DAZ) for this thread only."""
    torch.set_flush_denormal(on)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)


def subnormal_like(x: torch.Tensor) -> torch.Tensor:
    """x scaled by 2⁻¹³⁰: the same numbers, every one of them below 2⁻¹²⁶."""
    with flushing(False):
        return x * 2.0**-130


# --8<-- [end:flush]


OPS: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "sqrt": lambda a, w: torch.sqrt(a),
    "multiply": lambda a, w: a * 0.75,
    "relu": lambda a, w: torch.relu(a),
    "matmul": lambda a, w: a @ w,
}


SMALL_NORMAL = (
    2.0**-100
)  # far below 1 yet far above 2⁻¹²⁶: scaled by it, inputs stay normal


def slowdown(
    device: str,
    op: str,
    flush: bool,
    rounds: int,
    n: int = 256,
    d: int = 512,
    subnormal: bool = True,
) -> float:
    """Seconds of `op` on subnormal inputs over seconds on the same inputs at normal scale.

    subnormal=False times inputs scaled by 2⁻¹⁰⁰ instead: small, but normal (the control).
    """
    torch.manual_seed(0)
    normal = torch.rand(n, d, device=device) + 0.5  # (N, d), all in [0.5, 1.5)
    tiny = subnormal_like(normal) if subnormal else normal * SMALL_NORMAL  # (N, d)
    w = torch.randn(d, d, device=device) / d**0.5  # (d, d)
    f = OPS[op]
    with one_thread(device), flushing(flush):
        t_tiny, t_normal = paired_times(
            lambda: f(tiny, w), lambda: f(normal, w), device, rounds
        )
    return t_tiny / t_normal


@dataclass(frozen=True)
class Result:
    """What flushing does to values, and the sqrt slowdown with and without it."""

    device: str
    subnormal_in: float  # fraction of inputs that are subnormal (neither 0 nor normal)
    kept_without_flush: float  # fraction of `tiny * 1` still nonzero, flush off
    kept_with_flush: float  # the same with flush on
    sqrt_slowdown: float
    sqrt_slowdown_flushed: float


def is_subnormal(t: torch.Tensor) -> torch.Tensor:
    return (t != 0) & (t.abs() < TINY)


def measure(device: str = "cpu", seed: int = 0, rounds: int = 7) -> Result:
    """One thread: flushing is a per-thread switch, so a second thread would escape it."""
    torch.manual_seed(seed)
    tiny = subnormal_like(torch.rand(256, 512, device=device) + 0.5)  # (N, d)
    with one_thread(device):
        without = (tiny * 1.0 != 0).float().mean().item()
        with flushing(True):
            kept = (tiny * 1.0 != 0).float().mean().item()
    return Result(
        device,
        is_subnormal(tiny).float().mean().item(),
        without,
        kept,
        slowdown(device, "sqrt", False, rounds),
        slowdown(device, "sqrt", True, rounds),
    )


def plain_stack_backward(device: str, depth: int, rounds: int) -> dict[str, float]:
    """Backward through a plain deep stack, whose gradients fall below 2⁻¹²⁶ with depth."""
    torch.manual_seed(0)
    stack = make_stack(depth, 128, residual=False).to(device)
    x = torch.randn(32, 128, device=device)  # (N, d)

    def backward() -> None:
        stack.zero_grad(set_to_none=True)
        stack(x).sum().backward()

    with one_thread(device):
        backward()
        grads = torch.cat([p.grad.flatten() for p in stack.parameters()])
        fraction = is_subnormal(grads).float().mean().item()
        with flushing(False):
            t_off, _ = paired_times(backward, backward, device, rounds)
        with flushing(True):
            t_on, _ = paired_times(backward, backward, device, rounds)
    return {"subnormal_grad_fraction": fraction, "time_ratio": t_off / t_on}


def threads_escape_flush(n: int = 1 << 20) -> float:
    """Fraction of `tiny * 1` flushed when several threads share the work (CPU only)."""
    tiny = subnormal_like(torch.rand(n) + 0.5)  # (n,)
    _ = tiny * 1.0  # start the worker threads before switching the flag on
    with flushing(True):
        return (tiny * 1.0 == 0).float().mean().item()


def sweep(device: str, rounds: int, depth: int) -> dict:
    """The benchmark (`nox -s bench`): four operations and a plain stack's backward pass."""
    rows = [
        [op, slowdown(device, op, False, rounds), slowdown(device, op, True, rounds)]
        for op in OPS
    ]
    columns = ["operation", "subnormal / normal time", "same, flushed"]
    out = {"table": {"columns": columns, "rows": rows}, "depth": depth}
    # The counterfactuals, timed the same way: inputs scaled by 2⁻¹⁰⁰ (small but normal) ...
    control = [
        [op, *(slowdown(device, op, f, rounds, subnormal=False) for f in (False, True))]
        for op in OPS
    ]
    out["normal_table"] = {"columns": columns, "rows": control}
    if device.startswith("cuda"):  # ... and, on a GPU host, the table on its own CPU
        host = [
            [op, *(slowdown("cpu", op, f, rounds) for f in (False, True))] for op in OPS
        ]
        out["host_cpu_table"] = {"columns": columns, "rows": host}
    tiny = subnormal_like(torch.rand(256, 512, device=device) + 0.5)  # (N, d)
    with one_thread(device), flushing(True):
        out["sqrt_nonzero_flushed"] = (torch.sqrt(tiny) != 0).float().mean().item()
    out["plain_stack"] = plain_stack_backward(device, depth, rounds)
    # The host CPU's threads, also on a GPU run: the flag is a CPU matter either way.
    out["threads"] = torch.get_num_threads()
    out["flushed_with_all_threads"] = threads_escape_flush()
    return out


if __name__ == "__main__":
    print(measure())
