"""The residual stream: how big a pre-norm block's write is next to the stream it is added to, at
default init.

Letters: N batch size, d stream width, σ the RMS of the stream entering the block.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_stream.prenorm import PostNormBlock, PreNormBlock

SIGMAS = (1.0, 0.02)


# --8<-- [start:ratio]
def write_to_stream(block: PreNormBlock, x: torch.Tensor) -> float:
    """Mean over rows of ‖F(LN(x))‖ / ‖x‖: the write's size relative to the stream."""
    with torch.no_grad():
        write = block.branch(block.norm(x))  # (N, d): LN removes x's scale first
    return (write.norm(dim=-1) / x.norm(dim=-1)).mean().item()


def ratios_along_stack(blocks: nn.Sequential, x: torch.Tensor) -> list[float]:
    """The same ratio at every block of a pre-norm stack, as the stream grows."""
    out, h = [], x
    with torch.no_grad():
        for block in blocks:
            out.append(write_to_stream(block, h))
            h = block(h)  # (N, d)
    return out


# --8<-- [end:ratio]


@dataclass(frozen=True)
class Result:
    """ratio[σ] for a single block; along[l − 1] through a 50-block stack fed σ = 1.

    post_along: the same ratio through a 50-block post-norm stack, whose stream LayerNorm holds at
    unit RMS (there LN(h) = h, so the ratio is the post-norm block's own write next to its stream).
    """

    seed: int
    ratio: dict[float, float]
    along: list[float]
    post_along: list[float]


def measure(
    device: str = "cpu", seed: int = 0, d: int = 128, batch: int = 64, depth: int = 50
) -> Result:
    """One pre-norm block fed streams of RMS 1 and 0.02; 50-block pre- and post-norm stacks."""
    torch.manual_seed(seed)
    with torch.device(device):
        block = PreNormBlock(d)
        x = torch.randn(batch, d)  # (N, d)
        stack = nn.Sequential(*(PreNormBlock(d) for _ in range(depth)))
        post = nn.Sequential(*(PostNormBlock(d) for _ in range(depth)))
    ratio = {sigma: write_to_stream(block, sigma * x) for sigma in SIGMAS}
    return Result(
        seed, ratio, ratios_along_stack(stack, x), ratios_along_stack(post, x)
    )


if __name__ == "__main__":
    r = measure()
    print(
        {s: round(v, 3) for s, v in r.ratio.items()},
        [round(v, 3) for v in r.along[::10]],
    )
