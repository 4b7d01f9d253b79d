"""The residual stream: how the size of the stream changes with depth: plain residual, pre-norm,
post-norm.

Letters: N batch size, d stream width, L depth in blocks; RMS(h) = sqrt(mean of h²).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.gradient_highway.depth_sweep import make_stack
from snippets.residual_stream.prenorm import PostNormBlock, PreNormBlock

KINDS = ("residual", "pre-norm", "post-norm", "residual, He init")


# --8<-- [start:growth]
def rms(h: torch.Tensor) -> float:
    """Root mean square of the stream: its typical entry size."""
    return h.pow(2).mean().sqrt().item()


def stream_rms_by_depth(blocks: nn.Sequential, x: torch.Tensor) -> list[float]:
    """RMS(h_l) / RMS(x) for l = 0..L: the stream's growth after each block."""
    h, sizes = x, [1.0]
    with torch.no_grad():
        for block in blocks:
            h = block(h)  # (N, d)
            sizes.append(rms(h) / rms(x))
    return sizes


# --8<-- [end:growth]


def build(kind: str, depth: int, d: int) -> nn.Sequential:
    """The four stacks of the figure, every one at PyTorch's default init except the last."""
    if kind == "pre-norm":
        return nn.Sequential(*(PreNormBlock(d) for _ in range(depth)))
    if kind == "post-norm":
        return nn.Sequential(*(PostNormBlock(d) for _ in range(depth)))
    return make_stack(depth, d, residual=True, init="he" if "He" in kind else "default")


@dataclass(frozen=True)
class Result:
    """sizes[kind][l] = RMS(h_l) / RMS(x) for one seed, and each stack's RMS(x)."""

    seed: int
    sizes: dict[str, list[float]]
    input_rms: dict[str, float]


def measure(
    device: str = "cpu", seed: int = 0, d: int = 64, batch: int = 32, depth: int = 50
) -> Result:
    """Every stack from the same seed, fed unit-variance inputs."""
    sizes, input_rms = {}, {}
    for kind in KINDS:
        torch.manual_seed(seed)
        with torch.device(device):
            stack = build(kind, depth, d)
            x = torch.randn(batch, d)  # (N, d): RMS about 1
        sizes[kind] = stream_rms_by_depth(stack, x)
        input_rms[kind] = rms(x)
    return Result(seed, sizes, input_rms)


if __name__ == "__main__":
    r = measure()
    for kind, row in r.sizes.items():
        print(
            f"{kind:18}", "  ".join(f"L={L}: {row[L]:.3g}" for L in (1, 5, 10, 20, 50))
        )
