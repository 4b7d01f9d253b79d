"""Other skip patterns: DenseNet-style concatenation in an MLP: its width, and the memory backward
needs.

Letters: N batch size, k0 the input width, k the growth rate (features each layer adds), L depth,
d the residual stream's width. Memory is the bytes of the tensors autograd saves for the backward
pass, counted once per storage and without the parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock


# --8<-- [start:stack]
class DenseStack(nn.Module):
    """Layer i reads all earlier features concatenated (width k0 + i·k), adds k more."""

    def __init__(self, k0: int, k: int, depth: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Sequential(nn.Linear(k0 + i * k, k), nn.ReLU()) for i in range(depth)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = [x]  # (N, k0)
        for layer in self.layers:
            features.append(layer(torch.cat(features, dim=-1)))  # each adds (N, k)
        return torch.cat(features, dim=-1)  # (N, k0 + L·k)


# --8<-- [end:stack]


# --8<-- [start:saved]
def saved_bytes(model: nn.Module, x: torch.Tensor) -> int:
    """Activation bytes autograd keeps for backward: each storage once, no weights."""
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in weights:
            kept[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(kept.values())


# --8<-- [end:saved]


# --8<-- [start:predicted]
def predicted_bytes(kind: str, depth: int, n: int, k0: int, k: int) -> int:
    """float32 bytes: dense keeps each concatenation (k0 + i·k) and ReLU output (k);
    residual (d = k0) keeps each block's input and its ReLU output (d each)."""
    if kind == "dense":
        widths = sum(k0 + i * k for i in range(depth)) + depth * k
    else:
        widths = depth * 2 * k0
    return 4 * n * widths


# --8<-- [end:predicted]

DEPTHS = (4, 8, 16, 32, 64)


@dataclass(frozen=True)
class Result:
    """Output widths of dense stacks, and saved bytes of both stacks against depth."""

    k0: int
    k: int
    n: int
    widths: dict[int, int]  # depth -> output width of the dense stack
    saved: dict[str, dict[int, int]]  # kind -> depth -> measured bytes
    predicted: dict[str, dict[int, int]]
    width_at_100: int
    residual_widths: dict[int, int]  # depth -> output width of the residual stack
    long_depth: int  # layers of the stack width_at_100 is read from, counted from it


def measure(
    device: str = "cpu", seed: int = 0, k0: int = 64, k: int = 32, n: int = 64
) -> Result:
    """Build each stack, run one forward pass under the hook, read off widths and bytes."""
    torch.manual_seed(seed)
    x = torch.randn(n, k0, device=device)  # (N, k0)
    widths, residual_widths, saved, predicted = (
        {},
        {},
        {"dense": {}, "residual": {}},
        {"dense": {}, "residual": {}},
    )
    for depth in DEPTHS:
        dense = DenseStack(k0, k, depth).to(device)
        residual = nn.Sequential(*(ResidualBlock(k0) for _ in range(depth))).to(device)
        with torch.no_grad():
            widths[depth] = dense(x).shape[-1]
            residual_widths[depth] = residual(x).shape[-1]
        for kind, model in (("dense", dense), ("residual", residual)):
            saved[kind][depth] = saved_bytes(model, x)
            predicted[kind][depth] = predicted_bytes(kind, depth, n, k0, k)
    long = DenseStack(k0, k, 100).to(
        device
    )  # the long stack the skip-patterns page quotes
    with torch.no_grad():
        width_at_100 = long(x[:1]).shape[-1]
    return Result(
        k0,
        k,
        n,
        widths,
        saved,
        predicted,
        width_at_100,
        residual_widths,
        len(long.layers),
    )


if __name__ == "__main__":
    r = measure()
    print(r.widths, r.width_at_100)
    for kind in ("dense", "residual"):
        print(kind, r.saved[kind], r.saved[kind] == r.predicted[kind])
