"""The degradation problem: the constructed solution. A deeper net can compute exactly what a
shallower one does.

Letters: N batch size (256), d width (32). training_curves.py builds the nets: 3 blocks
(8 weight layers) and 10 blocks (22). Copy the shallow net into the deep net's stem, first
3 blocks and head; the 7 extra blocks must then hand their input on unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from snippets.degradation.training_curves import (
    D_IN,
    DEEP,
    SHALLOW,
    WIDTH,
    make_net,
    one_thread,
)

STEM = 3  # Linear, BatchNorm1d, ReLU


# --8<-- [start:embed]
def embed(shallow: nn.Sequential, deep: nn.Sequential, zero_extra: bool) -> None:
    """Load the shallow net into the deep one; optionally silence the extra blocks."""
    kept = STEM + SHALLOW
    deep[:kept].load_state_dict(shallow[:kept].state_dict())  # stem and blocks
    deep[-1].load_state_dict(shallow[-1].state_dict())  # the linear head
    for block in deep[kept:-1] if zero_extra else []:
        last_bn = block.branch[-1] if hasattr(block, "branch") else block[0][-1]
        nn.init.zeros_(last_bn.weight)  # γ = 0 and β = 0: the branch outputs exactly 0,
        nn.init.zeros_(last_bn.bias)  # and ReLU(x + 0) = x, since x ≥ 0 after a ReLU


def deviation(block: nn.Module, h: Tensor) -> float:
    """‖block(h) − h‖ / ‖h‖: how far a block is from the identity on input h."""
    with torch.no_grad():
        return ((block(h) - h).norm() / h.norm()).item()


# --8<-- [end:embed]


@dataclass(frozen=True)
class Result:
    """Block deviations from identity, and deep-versus-shallow output differences."""

    plain_block_deviation: float  # one plain block at He init
    residual_block_deviation: float  # one residual block at He init, γ = 1
    zeroed_block_deviation: float  # one residual block with its last BN zeroed
    residual_embedded_equal: bool  # deep residual net, extra blocks zeroed
    residual_untouched_difference: float  # same, extra blocks left at init (relative)
    plain_untouched_difference: float  # deep plain net, extra blocks at init (relative)
    plain_zeroed_difference: float  # deep plain net, extra blocks' last BN zeroed
    shallow_out: Tensor
    deep_out: Tensor  # the deep residual net with zeroed extra blocks
    untouched_out: Tensor  # the deep residual net with extra blocks at init


def relative(a: Tensor, b: Tensor) -> float:
    return ((a - b).norm() / b.norm()).item()


def measure(device: str = "cpu", seed: int = 0, batch: int = 256) -> Result:
    """Everything in training mode (batch statistics), on one random batch."""
    torch.manual_seed(seed)
    h = torch.relu(
        torch.randn(batch, WIDTH, device=device)
    )  # (N, d), ≥ 0 like a block's input
    blocks = [
        make_net(1, residual)[STEM].to(device) for residual in (False, True, True)
    ]
    embed_ok = blocks[2]
    nn.init.zeros_(embed_ok.branch[-1].weight)
    nn.init.zeros_(embed_ok.branch[-1].bias)
    x = torch.randn(batch, D_IN, device=device)  # (N, 16)
    out = {}
    with one_thread(), torch.no_grad():
        for residual in (True, False):
            shallow = make_net(SHALLOW, residual).to(device)
            out[residual, "shallow"] = shallow(x)  # (N, K)
            for zero in (True, False):
                deep = make_net(DEEP, residual).to(device)
                embed(shallow, deep, zero_extra=zero)
                out[residual, zero] = deep(x)  # (N, K)
    return Result(
        plain_block_deviation=deviation(blocks[0], h),
        residual_block_deviation=deviation(blocks[1], h),
        zeroed_block_deviation=deviation(blocks[2], h),
        residual_embedded_equal=torch.equal(out[True, True], out[True, "shallow"]),
        residual_untouched_difference=relative(out[True, False], out[True, "shallow"]),
        plain_untouched_difference=relative(out[False, False], out[False, "shallow"]),
        plain_zeroed_difference=relative(out[False, True], out[False, "shallow"]),
        shallow_out=out[True, "shallow"],
        deep_out=out[True, True],
        untouched_out=out[True, False],
    )


if __name__ == "__main__":
    r = measure()
    print({k: v for k, v in r.__dict__.items() if not isinstance(v, Tensor)})
