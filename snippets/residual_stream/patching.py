"""The residual stream: write an edit into the stream after block k and look for it at the end of
the stack.

Letters: N batch size, d stream width, L depth in blocks, k the block after which δ is added.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock
from snippets.residual_block.pre_activation import zero_branch
from snippets.residual_stream.prenorm import PreNormBlock


# --8<-- [start:patch]
def run_with_patch(
    blocks: nn.Sequential, x: torch.Tensor, k: int, delta: torch.Tensor
) -> list[torch.Tensor]:
    """The stream after every block, with delta added right after block k (1-based)."""
    h, stream = x, []
    for i, block in enumerate(blocks, start=1):
        h = block(h)  # (N, d)
        if i == k:
            h = h + delta  # the edit goes straight into the stream
        stream.append(h)
    return stream


def survival(effect: torch.Tensor, delta: torch.Tensor) -> tuple[float, float]:
    """How much of delta the final change holds: share along delta, and cosine."""
    along = (effect * delta).sum(-1) / (delta * delta).sum(
        -1
    )  # (N,): 1.0 means all of it
    cosine = nn.functional.cosine_similarity(
        effect, delta.expand_as(effect), dim=-1
    )  # (N,)
    return along.mean().item(), cosine.mean().item()


# --8<-- [end:patch]


def build(kind: str, depth: int, d: int, k: int) -> nn.Sequential:
    """Residual stacks (blocks after k zeroed, or all at default init), pre-norm or plain."""
    if kind == "pre-norm":
        return nn.Sequential(*(PreNormBlock(d) for _ in range(depth)))
    blocks = [ResidualBlock(d) for _ in range(depth)]
    if kind == "zeroed after k":
        blocks = blocks[:k] + [zero_branch(b) for b in blocks[k:]]
    if kind == "plain":
        blocks = [b.branch for b in blocks]
    return nn.Sequential(*blocks)


KINDS = ("zeroed after k", "residual", "pre-norm", "plain")


@dataclass(frozen=True)
class Result:
    """Per stack: (share along δ, cosine) of the final change; exactness when zeroed."""

    depth: int
    k: int
    survival: dict[str, tuple[float, float]]
    zeroed_final_equals_patched_stream: bool
    zeroed_effect_max_error: (
        float  # max |effect − δ|: float32 rounding of (h_k + δ) − h_k
    )
    effect_norm: dict[str, float]  # ‖effect‖ / ‖δ‖, mean over the batch
    stream_unchanged_after_k: dict[
        str, bool
    ]  # every stream after block k equals the final one, bit for bit


def measure(
    device: str = "cpu",
    seed: int = 0,
    d: int = 64,
    batch: int = 32,
    depth: int = 24,
    k: int = 4,
) -> Result:
    """Patch one coordinate of each example (δ_n = e_j, j random per example) after block 4 of 24
    and compare with a clean run."""
    surv, norms, unchanged = {}, {}, {}
    exact, err = False, float("nan")
    for kind in KINDS:
        torch.manual_seed(seed)
        with torch.device(device), torch.no_grad():
            stack = build(kind, depth, d, k)
            x = torch.randn(batch, d)  # (N, d)
            # (N, d): in each example one activation value changed by 1, as in activation
            # patching; a different random coordinate in each example: the batch averages N edits
            delta = torch.zeros(batch, d)
            delta[torch.arange(batch), torch.randint(d, (batch,))] = 1.0
            clean = run_with_patch(stack, x, k, torch.zeros(d))
            patched = run_with_patch(stack, x, k, delta)
        effect = patched[-1] - clean[-1]  # (N, d)
        surv[kind] = survival(effect, delta)
        norms[kind] = (effect.norm(dim=-1) / delta.norm(dim=-1)).mean().item()
        unchanged[kind] = all(torch.equal(patched[-1], h) for h in patched[k - 1 :])
        if kind == "zeroed after k":
            exact = unchanged[kind]
            err = (effect - delta).abs().max().item()
    return Result(depth, k, surv, exact, err, norms, unchanged)


if __name__ == "__main__":
    r = measure()
    for kind in KINDS:
        along, cosine = r.survival[kind]
        print(
            f"{kind:15} along δ {along:.3f}  cosine {cosine:.3f}  size {r.effect_norm[kind]:.3f}"
        )
    print(r.zeroed_final_equals_patched_stream, r.zeroed_effect_max_error)
