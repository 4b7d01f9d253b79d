"""Encyclopedia, The Residual Stream: stream norm and per-layer gradients at initialisation.

Letters used on the page: B batch size, T sequence length, d stream width, h heads,
L blocks, V vocabulary, x_l the stream after block l (x_0 is the input).
Run `python -m snippets.encyclopedia.depth_profile` to print what the page states.
"""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Iterator
from dataclasses import dataclass

import torch
from torch import nn

from snippets.encyclopedia.transformer_block import PostNormBlock, PreNormBlock


# --8<-- [start:profile]
def xavier_init(module: nn.Module) -> None:
    """Xavier-normal weights, zero biases in every Linear: the init Xiong et al. use."""
    for layer in module.modules():
        if isinstance(layer, nn.Linear):
            nn.init.xavier_normal_(layer.weight)
            nn.init.zeros_(layer.bias)


def profile(
    kind: str, L: int, d: int, heads: int, B: int, T: int, V: int
) -> tuple[list[float], list[float]]:
    """Token norm ‖x_l‖ (l = 0..L); ‖∂loss/∂W‖ of each block's last MLP weight."""
    block = {"pre": PreNormBlock, "post": PostNormBlock}[kind]
    blocks, head = nn.ModuleList(block(d, heads) for _ in range(L)), nn.Linear(d, V)
    xavier_init(blocks)
    xavier_init(head)
    x = torch.randn(B, T, d)  # (B, T, d)
    norms = [x.norm(dim=-1).mean().item()]
    for b in blocks:
        x = b(x)  # (B, T, d)
        norms.append(x.norm(dim=-1).mean().item())
    if kind == "pre":  # pre-norm ends with one more LayerNorm; post-norm already did
        x = nn.functional.layer_norm(x, (d,))
    logits = head(x)  # (B, T, V)
    targets = torch.randint(V, (B * T,))  # (B·T,)
    nn.functional.cross_entropy(logits.reshape(-1, V), targets).backward()
    return norms, [b.mlp.out.weight.grad.norm().item() for b in blocks]


# --8<-- [end:profile]


@dataclass(frozen=True)
class Result:
    """Per-seed profiles of both placements, and the settings they ran with."""

    L: int
    d: int
    heads: int
    B: int
    T: int
    V: int
    seeds: int
    norms: dict[str, list[list[float]]]  # kind -> seed -> [‖x_0‖, ..., ‖x_L‖]
    grads: dict[str, list[list[float]]]  # kind -> seed -> [block 1, ..., block L]

    def median(self, which: str, kind: str) -> list[float]:
        """Median over seeds, position by position."""
        return [
            statistics.median(col)
            for col in zip(*getattr(self, which)[kind], strict=True)
        ]

    def end_ratio(self, kind: str, k: int = 4) -> list[float]:
        """Per seed: mean gradient of the k blocks nearest the output / the k nearest the input."""
        return [sum(g[-k:]) / sum(g[:k]) for g in self.grads[kind]]


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Tensors this small gain nothing from intra-op threads; on a busy machine they cost 5-10x."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def measure(
    device: str = "cpu",
    seed: int = 0,
    seeds: int = 5,
    L: int = 24,
    d: int = 64,
    heads: int = 4,
    B: int = 16,
    T: int = 16,
) -> Result:
    """Profile pre-norm and post-norm stacks at initialisation, seeds seed..seed+seeds-1."""
    norms: dict[str, list[list[float]]] = {"pre": [], "post": []}
    grads: dict[str, list[list[float]]] = {"pre": [], "post": []}
    with torch.device(device), one_thread():
        for s in range(seed, seed + seeds):
            for kind in ("pre", "post"):
                torch.manual_seed(s)
                n, g = profile(kind, L, d, heads, B, T, V=128)
                norms[kind].append(n)
                grads[kind].append(g)
    return Result(L, d, heads, B, T, 128, seeds, norms, grads)


if __name__ == "__main__":
    r = measure()
    for kind in ("pre", "post"):
        print(kind, "median ‖x_l‖:", [round(v, 2) for v in r.median("norms", kind)])
        print(
            kind, "median ‖∂loss/∂W2‖:", [f"{v:.3g}" for v in r.median("grads", kind)]
        )
        print(
            kind,
            "output-end / input-end gradient:",
            [round(v, 2) for v in r.end_ratio(kind)],
        )
