"""Common mistakes: updating the residual stream in place with `x += F(x)`.

Letters: N batch size, d stream width. Every scenario runs the in-place block and the
out-of-place block with the same weights on the same input, and reports what autograd did.
Run `python -m snippets.mistakes.inplace_add` to print the outcomes.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


# --8<-- [start:blocks]
class InPlaceBlock(nn.Module):
    """The mistake: the stream tensor itself is overwritten, x += F(x)."""

    def __init__(self, branch: nn.Module) -> None:
        super().__init__()
        self.branch = branch

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x += self.branch(x)  # (N, d), written into the tensor the caller passed in
        return x


class OutOfPlaceBlock(InPlaceBlock):
    """The fix: x + F(x) is a new tensor; the old one stays as autograd saved it."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.branch(x)  # (N, d)


class HiddenWriteBlock(InPlaceBlock):
    """Worse: writing through .data hides the update from autograd altogether."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x.data += self.branch(x).detach()  # (N, d); autograd never sees this addition
        return x


# --8<-- [end:blocks]


# --8<-- [start:run]
@dataclass(frozen=True)
class Outcome:
    """Where a forward-backward pass failed ("forward", "backward" or ""), and why."""

    stage: str
    message: str
    grads: list[torch.Tensor]  # ∂L/∂x, then ∂L/∂θ for every trainable parameter


def run(block: nn.Module, stem: nn.Module, x: torch.Tensor, r: torch.Tensor) -> Outcome:
    """Run x through stem -> block, backpropagate L = Σ r·y, catch autograd's error."""
    params = [p for p in [*stem.parameters(), *block.parameters()] if p.requires_grad]
    x = x.clone().requires_grad_(True)  # a fresh leaf for every run
    try:
        y = block(stem(x))  # stem: what produced the stream (nothing, a Linear, a ReLU)
    except RuntimeError as err:
        return Outcome("forward", str(err), [])
    try:
        grads = torch.autograd.grad((r * y).sum(), [x, *params], allow_unused=True)
    except RuntimeError as err:
        return Outcome("backward", str(err), [])
    zeros = [torch.zeros_like(t) for t in [x, *params]]  # no gradient means zero
    return Outcome(
        "", "", [z if g is None else g for g, z in zip(grads, zeros, strict=True)]
    )


# --8<-- [end:run]


def branch(d: int, trainable: bool = True, norm_first: bool = False) -> nn.Sequential:
    """Linear -> ReLU -> Linear, optionally behind a LayerNorm (the pre-norm branch)."""
    layers = [nn.LayerNorm(d)] if norm_first else []
    net = nn.Sequential(*layers, nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d))
    return net.requires_grad_(trainable)


SCENARIOS = {
    # name: (what produces the stream, branch is trainable, branch starts with LayerNorm)
    "input leaf": ("identity", True, False),
    "after Linear": ("linear", True, False),
    "after Linear, pre-norm branch": ("linear", True, True),
    "after ReLU, frozen branch": ("relu", False, False),
    "after Linear, frozen branch": ("linear", False, False),
}


def stem(kind: str, d: int) -> nn.Module:
    """The layer in front of the block: nothing, a Linear (saves its input), or a ReLU."""
    if kind == "linear":
        return nn.Linear(d, d)
    if kind == "relu":
        return nn.Sequential(
            nn.Linear(d, d), nn.ReLU()
        )  # ReLU's backward reads its output
    return nn.Identity()


@dataclass(frozen=True)
class Pair:
    """The in-place and the out-of-place run of one scenario, same weights and input."""

    inplace: Outcome
    reference: Outcome

    @property
    def max_grad_difference(self) -> float:
        """Largest |difference| over every gradient; inf when a run raised."""
        if self.inplace.stage or self.reference.stage:
            return float("inf")
        diffs = zip(self.inplace.grads, self.reference.grads, strict=True)
        return max((a - b).abs().max().item() for a, b in diffs)

    @property
    def bit_identical(self) -> bool:
        """Every gradient of the in-place run equals the reference's, bit for bit."""
        if self.inplace.stage or self.reference.stage:
            return False
        pairs = zip(self.inplace.grads, self.reference.grads, strict=True)
        return all(torch.equal(a, b) for a, b in pairs)


@dataclass(frozen=True)
class Result:
    """Every scenario, the hidden .data write, and no-grad inference, for one seed."""

    seed: int
    scenarios: dict[str, Pair]
    hidden_write: Pair  # after a trainable Linear, update written through .data
    inference_equal: bool  # under torch.no_grad the in-place output equals x + F(x)
    caller_tensor_changed: (
        bool  # ... and the tensor the caller passed in now holds it too
    )


def _pair(
    block_type: type[InPlaceBlock],
    kind: str,
    trainable: bool,
    norm_first: bool,
    device: str,
    seed: int,
    d: int,
    batch: int,
) -> Pair:
    torch.manual_seed(seed)
    s, f = stem(kind, d).to(device), branch(d, trainable, norm_first).to(device)
    x = torch.randn(batch, d, device=device)  # (N, d)
    r = torch.randn(batch, d, device=device)  # (N, d): a random direction for the loss
    return Pair(run(block_type(f), s, x, r), run(OutOfPlaceBlock(f), s, x, r))


def measure(device: str = "cpu", seed: int = 0, d: int = 32, batch: int = 8) -> Result:
    """Run every scenario in place and out of place; also the .data write and inference."""
    pairs = {
        name: _pair(InPlaceBlock, *spec, device, seed, d, batch)
        for name, spec in SCENARIOS.items()
    }
    hidden = _pair(HiddenWriteBlock, "linear", True, False, device, seed, d, batch)
    torch.manual_seed(seed)
    f = branch(d).to(device)
    x = torch.randn(batch, d, device=device)
    with torch.no_grad():
        expected = OutOfPlaceBlock(f)(x)
        kept = x.clone()
        same = torch.equal(InPlaceBlock(f)(x), expected)
    return Result(seed, pairs, hidden, same, not torch.equal(x, kept))


if __name__ == "__main__":
    result = measure()
    for name, pair in [*result.scenarios.items(), (".data write", result.hidden_write)]:
        o = pair.inplace
        print(
            f"{name:32} {o.stage or 'ran':9} {o.message[:70] or pair.max_grad_difference}"
        )
    print("no_grad inference identical:", result.inference_equal)
