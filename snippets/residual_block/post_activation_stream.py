"""The residual block: what the post-activation block's final ReLU does to the stream it really
receives.

Letters: N batch size, d stream width. In a post-activation network every block's input is the
previous block's output, which came out of a ReLU: the stream is non-negative.
Run `python -m snippets.residual_block.post_activation_stream` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.pre_activation import (
    PostActBlock,
    PreActBlock,
    zero_branch,
)


# --8<-- [start:clip]
def clipped_sum(block: nn.Module, x: torch.Tensor) -> tuple[float, float]:
    """Share of x + F(x) below zero, and share of the sum's gradient exactly 0."""
    x = x.detach()
    s = block.shortcut(x) + block.branch(x)  # (N, d): the sum, before any final ReLU
    s.retain_grad()
    y = torch.relu(s) if isinstance(block, PostActBlock) else s  # (N, d)
    y.backward(torch.ones_like(y))  # g = 1 everywhere, so a 0 is a cut, not a small g
    return (s < 0).float().mean().item(), (s.grad == 0).float().mean().item()


# --8<-- [end:clip]


@dataclass(frozen=True)
class Result:
    """Zeroed and active post-activation blocks on a non-negative stream and on signed inputs."""

    stream_min: float
    zeroed_on_stream_equal: bool
    zeroed_on_stream_deviation: float
    zeroed_on_signed_equal: bool
    zeroed_on_signed_deviation: float
    signed_negative_fraction: float
    post_negative_sum: float
    post_cut_gradient: float
    pre_negative_sum: float
    pre_cut_gradient: float


def measure(
    device: str = "cpu", seed: int = 0, d: int = 64, batch: int = 256
) -> Result:
    """Make a stream with one post-activation block; feed it to a zeroed and an active block."""
    torch.manual_seed(seed)
    signed = 3 * torch.randn(
        batch, d, device=device
    )  # (N, d): the residual-block page's signed batch
    with torch.no_grad():
        stream = PostActBlock(d).to(device)(
            signed
        )  # (N, d): what the next block receives
        zeroed = zero_branch(PostActBlock(d)).to(device)
        on_stream, on_signed = zeroed(stream), zeroed(signed)
    post_neg, post_cut = clipped_sum(PostActBlock(d).to(device), stream)
    pre_neg, pre_cut = clipped_sum(PreActBlock(d).to(device), stream)
    return Result(
        stream_min=stream.min().item(),
        zeroed_on_stream_equal=torch.equal(on_stream, stream),
        zeroed_on_stream_deviation=(on_stream - stream).abs().max().item(),
        zeroed_on_signed_equal=torch.equal(on_signed, signed),
        zeroed_on_signed_deviation=(on_signed - signed).abs().max().item(),
        signed_negative_fraction=(signed < 0).float().mean().item(),
        post_negative_sum=post_neg,
        post_cut_gradient=post_cut,
        pre_negative_sum=pre_neg,
        pre_cut_gradient=pre_cut,
    )


if __name__ == "__main__":
    print(measure())
