"""The residual stream: a residual stack read as a running sum, with every block's write recorded.

Letters: N batch size, d stream width, L depth in blocks; h_l is the stream after block l and
F_l(h_{l-1}) the write of block l.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock
from snippets.residual_stream.prenorm import PostNormBlock


# --8<-- [start:stream]
def run_stream(
    blocks: list[ResidualBlock], x: torch.Tensor
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """h_l = h_{l-1} + F_l(h_{l-1}) for l = 1..L; returns h_L and the L writes."""
    h, writes = x, []
    for block in blocks:
        write = block.branch(h)  # (N, d): reads the whole stream
        writes.append(write)
        h = h + write  # (N, d): adds; nothing already in h is replaced
    return h, writes


def replay(x: torch.Tensor, writes: list[torch.Tensor]) -> torch.Tensor:
    """x + F_1 + F_2 + ... + F_L, added in the order the blocks wrote."""
    total = x
    for write in writes:
        total = total + write  # (N, d)
    return total


# --8<-- [end:stream]


# --8<-- [start:walk]
def three_blocks(
    x: torch.Tensor, f1: nn.Module, f2: nn.Module, f3: nn.Module
) -> dict[str, torch.Tensor]:
    """The stream after each of three blocks, and h3 as the input plus three writes."""
    h1 = x + f1(x)  # (N, 64)
    h2 = h1 + f2(h1)  # (N, 64)
    h3 = h2 + f3(h2)  # (N, 64)
    unrolled = x + f1(x) + f2(h1) + f3(h2)  # the same additions in the same order
    plain = f3(f2(f1(x)))  # (N, 64): without shortcuts only f3's output is left
    return {"h1": h1, "h2": h2, "h3": h3, "unrolled": unrolled, "plain": plain}


# --8<-- [end:walk]


@dataclass(frozen=True)
class Result:
    """Exactness of the running sum in float32 and float64, and its failure under post-norm."""

    depth: int
    same_order_equal: bool  # float32, h_L against replay(x, writes)
    float32_reordered_equal: bool  # float32, h_L against x + (F_1 + ... + F_L)
    float32_reordered_max_error: float
    float32_relative_error: float
    float64_reordered_max_error: float
    post_norm_max_error: float  # a post-norm stack against x + its writes
    independent_relative_error: (
        float  # float32 h_L against x + the writes summed in float64, last first
    )
    post_norm_independent_relative_error: (
        float  # the same comparison for the post-norm stack
    )
    walk_blocks: int  # the branches the three-block walk was given
    walk_equal: bool
    walk_max_error: float
    plain_max_error: float  # the plain stack's output against the same unrolled sum
    walk_independent_error: float  # h3 against the four terms in float64, relative
    plain_independent_error: (
        float  # the plain stack's output against the same, relative
    )


def measure(
    device: str = "cpu", seed: int = 0, d: int = 64, batch: int = 32, depth: int = 50
) -> Result:
    """A 50-block residual stack in float32 and float64, a post-norm stack, the three-block walk."""
    torch.manual_seed(seed)
    with torch.device(device):
        blocks = [ResidualBlock(d) for _ in range(depth)]
        x = torch.randn(batch, d)  # (N, d)
        with torch.no_grad():
            h, writes = run_stream(blocks, x)
            reordered = x + torch.stack(writes).sum(
                0
            )  # sum the writes first, then add x
            h64, writes64 = run_stream([b.double() for b in blocks], x.double())
            reordered64 = x.double() + torch.stack(writes64).sum(0)
            post = [PostNormBlock(d) for _ in range(depth)]
            hp = x
            post_writes = []
            for block in post:
                post_writes.append(block.branch(hp))
                hp = block(hp)
            branches = [ResidualBlock(d).branch for _ in range(3)]
            walk = three_blocks(x, *branches)
            # The four terms again, each computed in float64 and summed last-first.
            f64 = [copy.deepcopy(f).double() for f in branches]
            inputs = [x, walk["h1"], walk["h2"]]
            terms = [x.double()] + [
                f(h.double()) for f, h in zip(f64, inputs, strict=True)
            ]
            walk_reference = sum(reversed(terms))
    scale = h.abs().max().item()

    def relative(out: torch.Tensor, reference: torch.Tensor) -> float:
        return ((out.double() - reference).abs().max() / reference.abs().max()).item()

    def independent(out: torch.Tensor, writes: list[torch.Tensor]) -> float:
        """Relative distance from x + the writes, summed in float64 and in reverse order."""
        reference = x.double()
        for write in reversed(writes):
            reference = reference + write.double()
        return ((out.double() - reference).abs().max() / reference.abs().max()).item()

    return Result(
        depth=depth,
        same_order_equal=torch.equal(h, replay(x, writes)),
        float32_reordered_equal=torch.equal(h, reordered),
        float32_reordered_max_error=(h - reordered).abs().max().item(),
        float32_relative_error=(h - reordered).abs().max().item() / scale,
        float64_reordered_max_error=(h64 - reordered64).abs().max().item(),
        post_norm_max_error=(hp - replay(x, post_writes)).abs().max().item(),
        independent_relative_error=independent(h, writes),
        post_norm_independent_relative_error=independent(hp, post_writes),
        walk_blocks=len(branches),
        walk_equal=torch.equal(walk["h3"], walk["unrolled"]),
        walk_max_error=(walk["h3"] - walk["unrolled"]).abs().max().item(),
        plain_max_error=(walk["plain"] - walk["unrolled"]).abs().max().item(),
        walk_independent_error=relative(walk["h3"], walk_reference),
        plain_independent_error=relative(walk["plain"], walk_reference),
    )


if __name__ == "__main__":
    print(measure())
