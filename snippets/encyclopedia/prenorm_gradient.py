"""Encyclopedia, The Residual Stream: why pre-norm weight gradients fall toward the output.

Letters used on the page: L blocks, d stream width, x_l the stream after block l (x_0 the input),
g_l = ∂loss/∂x_l, J_k the Jacobian of block k's two writes with respect to its input.
The stacks, initialisation and loss are those of `depth_profile`; this adds ∂loss/∂x_l.
Run `python -m snippets.encyclopedia.prenorm_gradient` to print what the page states.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import torch
from torch import nn

from snippets.encyclopedia.depth_profile import one_thread, xavier_init
from snippets.encyclopedia.transformer_block import PostNormBlock, PreNormBlock


# --8<-- [start:stream_gradient]
def stream_gradients(
    kind: str, L: int, d: int, heads: int, B: int, T: int, V: int
) -> dict:
    """‖x_0‖; per block l = 1..L: ‖x_l‖, ‖g_l‖ and ‖∂loss/∂W‖ of its last MLP weight."""
    block = {"pre": PreNormBlock, "post": PostNormBlock}[kind]
    blocks, head = nn.ModuleList(block(d, heads) for _ in range(L)), nn.Linear(d, V)
    xavier_init(blocks)
    xavier_init(head)
    x, streams = torch.randn(B, T, d), []  # (B, T, d)
    x0 = x.norm(dim=-1).mean().item()
    for b in blocks:
        x = b(x)  # (B, T, d)
        x.retain_grad()  # keep g_l = ∂loss/∂x_l, the gradient the MLP's write receives
        streams.append(x)
    if kind == "pre":  # one σ_L divides every block's direct write alike
        x = nn.functional.layer_norm(x, (d,))
    logits = head(x)  # (B, T, V)
    targets = torch.randint(V, (B * T,))  # (B·T,)
    nn.functional.cross_entropy(logits.reshape(-1, V), targets).backward()
    return {
        "input": x0,
        "stream": [s.norm(dim=-1).mean().item() for s in streams],
        "g": [s.grad.norm().item() for s in streams],
        "weight": [b.mlp.out.weight.grad.norm().item() for b in blocks],
    }


# --8<-- [end:stream_gradient]


@dataclass(frozen=True)
class Result:
    """Per-seed profiles of both placements."""

    L: int
    seeds: int
    runs: dict[
        str, list[dict]
    ]  # kind -> seed -> {"input": ‖x_0‖, "stream", "g", "weight": lists over l = 1..L}

    def end_ratio(self, kind: str, key: str, k: int = 4) -> list[float]:
        """Per seed: mean of the k blocks nearest the output / the k nearest the input."""
        return [sum(r[key][-k:]) / sum(r[key][:k]) for r in self.runs[kind]]

    def squares(self, kind: str) -> list[list[float]]:
        """Per seed: ‖x_l‖² for l = 0..L."""
        return [[n * n for n in [r["input"], *r["stream"]]] for r in self.runs[kind]]

    def gains(self, kind: str) -> list[list[tuple[float, float]]]:
        """Per seed and block l = 2..L: (‖g_{l−1}‖²/‖g_l‖² − 1, ‖x_{l−1}‖²)."""
        return [
            [
                (r["g"][i - 1] ** 2 / r["g"][i] ** 2 - 1, r["stream"][i - 1] ** 2)
                for i in range(1, len(r["g"]))
            ]
            for r in self.runs[kind]
        ]

    def median(self, kind: str, key: str) -> list[float]:
        """Median over seeds, block by block."""
        return [
            statistics.median(c)
            for c in zip(*(r[key] for r in self.runs[kind]), strict=True)
        ]


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
    """Profile g_l and weight gradients of pre- and post-norm stacks, seeds seed..seed+seeds-1."""
    runs: dict[str, list[dict]] = {"pre": [], "post": []}
    with torch.device(device), one_thread():
        for s in range(seed, seed + seeds):
            for kind in runs:
                torch.manual_seed(s)
                runs[kind].append(stream_gradients(kind, L, d, heads, B, T, V=128))
    return Result(L, seeds, runs)


if __name__ == "__main__":
    r = measure()
    for kind in ("pre", "post"):
        print(kind, "‖g_l‖:", [f"{v:.3g}" for v in r.median(kind, "g")])
        print(
            kind,
            "‖∂W‖/‖g_l‖:",
            [
                f"{w / g:.3g}"
                for w, g in zip(
                    r.median(kind, "weight"), r.median(kind, "g"), strict=True
                )
            ],
        )
        print(
            kind,
            "end ratios g, W:",
            r.end_ratio(kind, "g"),
            r.end_ratio(kind, "weight"),
        )
