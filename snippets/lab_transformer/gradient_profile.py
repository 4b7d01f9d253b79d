"""Lab 2: the gradient each block receives at initialisation, with attention and a real loss.

Letters: L blocks, W_l block l's MLP output weight, g_l = ||d loss / d W_l|| (Frobenius).
The loss is next-character cross-entropy on windows of the lab's corpus (torch's own source),
so the gradient comes from real targets through attention branches, not from random labels.
Run `python -m snippets.lab_transformer.gradient_profile` to print what the page states.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import torch
from torch import nn

from snippets.degradation.training_curves import one_thread
from snippets.lab_transformer.stream import TinyLM
from snippets.lab_transformer.sweep import load

DEPTHS, WINDOWS, END = (6, 24, 48), 64, 4


# --8<-- [start:profile]
def xavier(model: TinyLM) -> None:
    """Xavier-normal weights, zero biases in every Linear: Xiong et al.'s setting."""
    for layer in model.modules():
        if isinstance(layer, nn.Linear):
            nn.init.xavier_normal_(layer.weight)
            nn.init.zeros_(layer.bias)


def profile(model: TinyLM, x: torch.Tensor, y: torch.Tensor) -> list[float]:
    """g_l for l = 1..L: the gradient norm of each block's last MLP weight."""
    logits = model(x)  # (B, T, V)
    loss = nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
    weights = [block[1].branch[2].weight for block in model.blocks]
    return [g.norm().item() for g in torch.autograd.grad(loss, weights)]


# --8<-- [end:profile]


def end_ratio(g: list[float], k: int = END) -> float:
    """Mean g of the k blocks nearest the output / the k nearest the input."""
    return sum(g[-k:]) / sum(g[:k])


@dataclass(frozen=True)
class Result:
    depths: tuple[int, ...]
    seeds: int
    windows: int
    # (placement, init, depth) -> seed -> per-block gradient norms
    grads: dict[tuple[str, str, int], list[list[float]]]

    def ratios(self, placement: str, init: str, depth: int) -> list[float]:
        return [end_ratio(g) for g in self.grads[placement, init, depth]]

    def median_profile(self, placement: str, init: str, depth: int) -> list[float]:
        return [
            statistics.median(c)
            for c in zip(*self.grads[placement, init, depth], strict=True)
        ]


def measure(
    device: str = "cpu", seed: int = 0, seeds: int = 5, depths: tuple = DEPTHS
) -> Result:
    """Both placements, PyTorch's default init and Xavier's, every depth, `seeds` seeds."""
    text = load()
    grads: dict = {}
    with one_thread():
        for s in range(seed, seed + seeds):
            x, y = text.windows(torch.Generator().manual_seed(s), WINDOWS)
            for placement in ("post-norm", "pre-norm"):
                for init in ("default", "xavier"):
                    for depth in depths:
                        torch.manual_seed(s)
                        model = TinyLM(len(text.chars), depth, placement)
                        if init == "xavier":
                            xavier(model)
                        grads.setdefault((placement, init, depth), []).append(
                            profile(model, x, y)
                        )
    return Result(tuple(depths), seeds, WINDOWS, grads)


if __name__ == "__main__":
    import time

    t = time.process_time()
    r = measure()
    for key in r.grads:
        print(key, "output/input end:", [round(v, 2) for v in r.ratios(*key)])
    print(f"{time.process_time() - t:.1f} s")
