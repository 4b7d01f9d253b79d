"""Costs: narrow-deep against wide-shallow residual MLPs with the same parameters.

Letters: N tokens per batch, d width, L depth in blocks; every block is the residual
block with a 4d hidden layer. Run `python -m snippets.costs.depth_width`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from snippets.costs.add_share import one_thread, paired_times
from snippets.residual_block.identity_shortcut import ResidualBlock


# --8<-- [start:stacks]
def residual_mlp(d: int, depth: int) -> nn.Sequential:
    """L residual blocks of width d; each holds 8·d² weights (plus 5·d biases)."""
    return nn.Sequential(*(ResidualBlock(d, expansion=4) for _ in range(depth)))


# 64 · 8 · 256² = 4 · 8 · 1024² weights: the same budget, spent two ways
SHAPES = {"narrow-deep": (256, 64), "wide-shallow": (1024, 4)}


def train_step(stack: nn.Sequential, x: torch.Tensor) -> None:
    """One forward and backward pass: what a training step costs without the optimiser."""
    stack.zero_grad(set_to_none=True)
    stack(x).square().mean().backward()  # (N, d) -> scalar


# --8<-- [end:stacks]


@dataclass(frozen=True)
class Budget:
    """Parameters and forward FLOPs per token of one shape, counted on the meta device."""

    d: int
    depth: int
    parameters: int
    flops_per_token: int


def budget(d: int, depth: int) -> Budget:
    """Count without allocating: meta tensors have shapes but no storage."""
    with torch.device("meta"):
        stack = residual_mlp(d, depth)
        x = torch.zeros(1, d)  # (1, d): one token
        with FlopCounterMode(display=False) as counter:
            stack(x)
    params = sum(p.numel() for p in stack.parameters())
    return Budget(d, depth, params, counter.get_total_flops())


# The counterfactual: the wide stack at twice its depth (twice the budget), which should lose.
DOUBLED = {"narrow-deep": (256, 64), "wide-shallow": (1024, 8)}


def throughput(
    device: str,
    tokens: int,
    rounds: int,
    seed: int = 0,
    shapes: dict[str, tuple[int, int]] = SHAPES,
) -> dict[str, float]:
    """Training-step tokens per second of both shapes, timed side by side."""
    stacks, inputs = {}, {}
    for name, (d, depth) in shapes.items():
        torch.manual_seed(seed)
        stacks[name] = residual_mlp(d, depth).to(device)
        inputs[name] = torch.randn(tokens, d, device=device)  # (N, d)
    narrow, wide = (
        lambda n=n: train_step(stacks[n], inputs[n])
        for n in ("narrow-deep", "wide-shallow")
    )
    with one_thread(device):
        t_narrow, t_wide = paired_times(narrow, wide, device, rounds)
    return {"narrow-deep": tokens / t_narrow, "wide-shallow": tokens / t_wide}


def measure(
    device: str = "cpu", seed: int = 0, tokens: int = 64, rounds: int = 3
) -> dict:
    """Budgets of both shapes and their throughput at one batch size."""
    budgets = {name: budget(d, depth) for name, (d, depth) in SHAPES.items()}
    return {"budgets": budgets, "throughput": throughput(device, tokens, rounds, seed)}


def sweep(device: str, batches: tuple[int, ...], rounds: int) -> dict:
    """The benchmark (`nox -s bench`): throughput of both shapes at each batch size."""
    rows, doubled = [], []
    for n in batches:
        for shapes, out in ((SHAPES, rows), (DOUBLED, doubled)):
            tp = throughput(device, n, rounds, shapes=shapes)
            wide, narrow = tp["wide-shallow"], tp["narrow-deep"]
            out.append([n, narrow, wide, wide / narrow])
    columns = [
        "tokens N",
        "narrow-deep tokens/s",
        "wide-shallow tokens/s",
        "wide / narrow",
    ]
    return {
        "table": {"columns": columns, "rows": rows},
        "doubled_table": {"columns": columns, "rows": doubled},
        "doubled": {name: list(shape) for name, shape in DOUBLED.items()},
    }


if __name__ == "__main__":
    r = measure()
    for name, b in r["budgets"].items():
        print(f"{name:13} params {b.parameters:,}  FLOPs/token {b.flops_per_token:,}")
    print({k: f"{v:,.0f} tokens/s" for k, v in r["throughput"].items()})
