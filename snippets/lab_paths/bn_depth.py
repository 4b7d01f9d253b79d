"""Lab 1: how much each block of a 500-block BatchNorm ResNet writes, against its depth.

Letters: L blocks (500), l a block's depth (1..L), h_l the stream entering block l, F_l its
branch, N batch size (128). The block is the degradation miniature's
(snippets/degradation/training_curves.py):
h_{l+1} = ReLU(h_l + F_l(h_l)), its branch ending in BatchNorm, at He initialisation.
Run `python -m snippets.lab_paths.bn_depth` to print what the page states.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from snippets.degradation.training_curves import make_data, make_net

BLOCKS, BATCH = 500, 128


# --8<-- [start:writes]
def relative_writes(net: nn.Sequential, x: Tensor) -> tuple[list[float], list[float]]:
    """Per block l: ‖F_l(h_l)‖ / ‖h_l‖, and the stream's mean square E[h_l²]."""
    ratio, power = [], []

    def look(branch: nn.Module, inputs: tuple[Tensor], write: Tensor) -> None:
        h = inputs[0]  # (N, d), the stream entering the block
        s = h.abs().max()  # divide first: an unnormalised stream can overflow
        ratio.append(((write / s).norm() / (h / s).norm()).item())
        power.append(h.pow(2).mean().item())

    hooks = [m.branch.register_forward_hook(look) for m in net if hasattr(m, "branch")]
    with torch.no_grad():
        net.train()(x)  # BatchNorm normalises with the batch, as in training
    for hook in hooks:
        hook.remove()
    return ratio, power


class Scale(nn.Module):
    """SkipInit's scalar: the branch's write times a learned α that starts at 0."""

    def __init__(self) -> None:
        super().__init__()
        self.alpha = nn.Parameter(torch.zeros(()))

    def forward(self, x: Tensor) -> Tensor:
        return self.alpha * x


def without_batchnorm(net: nn.Sequential, skipinit: bool) -> nn.Sequential:
    """Drop every branch's BatchNorms; with skipinit, end each branch with Scale."""
    for block in (m for m in net if hasattr(m, "branch")):
        kept = [m for m in block.branch if not isinstance(m, nn.BatchNorm1d)]
        scale = [Scale().to(kept[0].weight)] if skipinit else []
        block.branch = nn.Sequential(*kept, *scale)
    return net


# --8<-- [end:writes]

VARIANTS = ("batchnorm", "no norm", "skipinit")


@dataclass(frozen=True)
class Result:
    """ratio[variant][l - 1] and power[variant][l - 1] for one seed."""

    seed: int
    blocks: int
    ratio: dict[str, list[float]]
    power: dict[str, list[float]]


def measure(
    device: str = "cpu", seed: int = 0, blocks: int = BLOCKS, variants=VARIANTS
) -> Result:
    """One He-initialised ResNet of the degradation miniature's blocks: as built, without norm,
    SkipInit."""
    x = make_data(seed)[0][:BATCH].double().to(device)  # (N, 16)
    torch.manual_seed(seed)
    built = make_net(blocks, residual=True).double().to(device)
    ratio, power = {}, {}
    for variant in variants:  # float64: without norm the stream passes 1e100
        net = copy.deepcopy(built)  # the same weights in every variant
        if variant != "batchnorm":
            net = without_batchnorm(net, skipinit=variant == "skipinit")
        ratio[variant], power[variant] = relative_writes(net, x)
    return Result(seed, blocks, ratio, power)


if __name__ == "__main__":
    r = measure()
    for v in VARIANTS:
        q = r.ratio[v]
        print(
            f"{v:9} ‖write‖/‖stream‖ at l = 1, 10, 100, {r.blocks}:",
            q[0],
            q[9],
            q[99],
            q[-1],
        )
