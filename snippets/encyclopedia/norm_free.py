"""Normalisation-free residual blocks and the zero-initialised branches used every day.

Letters: d the stream's width, L the number of blocks, h_l the stream entering block l, alpha
the NF block's branch scale, beta_l the predicted standard deviation of h_l, gamma the gain that
keeps a ReLU's output variance at 1 behind a standardised layer, B the number of inputs.
Float64 on the CPU throughout. Run `python -m snippets.encyclopedia.norm_free` to print it all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from snippets.degradation.training_curves import one_thread

D, BATCH, BLOCKS, ALPHA = 128, 512, 50, 0.2
RANK, NUDGE = 8, 1e-3  # LoRA's rank; the counterfactual's distance from the zero
RELU_GAIN = math.sqrt(2 / (1 - 1 / math.pi))  # 1 / the std of ReLU(z), z ~ N(0, 1)


# --8<-- [start:nf]
class WSLinear(nn.Linear):
    """A linear layer with scaled weight standardisation: each row has mean 0 and
    variance gain² / fan_in, so a unit-variance input gives a unit-variance output."""

    def __init__(self, d_in: int, d_out: int, gain: float = 1.0) -> None:
        super().__init__(d_in, d_out, bias=False)
        self.gain = gain

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.weight
        sd = w.std(1, keepdim=True, unbiased=False)
        w = (w - w.mean(1, keepdim=True)) / (sd * w.shape[1] ** 0.5)
        return F.linear(x, self.gain * w)


class NFBlock(nn.Module):
    """h + alpha * f(h / beta): the branch reads a unit-variance input and writes a
    unit-variance output, so the stream's variance grows by exactly alpha² per block."""

    def __init__(
        self, d: int, alpha: float, beta: float, scale_input: bool = True
    ) -> None:
        super().__init__()
        self.alpha, self.beta, self.scale_input = alpha, beta, scale_input
        self.f = nn.Sequential(WSLinear(d, d), nn.ReLU(), WSLinear(d, d, RELU_GAIN))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        x = h / self.beta if self.scale_input else h
        return h + self.alpha * self.f(x)


def nf_stack(
    d: int, blocks: int, alpha: float, scale_input: bool = True
) -> nn.Sequential:
    """beta_k² = 1 + k·alpha²: the variance block k's input is predicted to have."""
    betas = [math.sqrt(1 + k * alpha**2) for k in range(blocks)]
    return nn.Sequential(*(NFBlock(d, alpha, b, scale_input) for b in betas))


# --8<-- [end:nf]


# --8<-- [start:zero]
class LoRALinear(nn.Module):
    """W x + B A x with B = 0 at the start (Hu et al.): the base layer, unchanged."""

    def __init__(self, base: nn.Linear, rank: int) -> None:
        super().__init__()
        self.base = base
        self.A = nn.Parameter(
            torch.randn(rank, base.in_features, dtype=base.weight.dtype) / rank
        )
        self.B = nn.Parameter(
            torch.zeros(base.out_features, rank, dtype=base.weight.dtype)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + x @ self.A.T @ self.B.T


class AdaLNZeroBlock(nn.Module):
    """x + g(c) * f(LN(x)) with the layer that makes the gate g from the condition c
    zero-initialised (DiT's adaLN-Zero): the block starts as the identity."""

    def __init__(self, d: int, d_cond: int) -> None:
        super().__init__()
        self.f = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.gate = nn.Linear(d_cond, d)
        nn.init.zeros_(self.gate.weight)
        nn.init.zeros_(self.gate.bias)

    def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return x + self.gate(c) * self.f(F.layer_norm(x, x.shape[-1:]))


# --8<-- [end:zero]


@dataclass(frozen=True)
class Result:
    blocks: int
    d: int
    alpha: float
    seeds: list[int]
    variance: dict[
        str, list[list[float]]
    ]  # "scaled" / "unscaled" -> per seed: Var(h_l), l = 0..L
    predicted: list[float]  # beta_l² = 1 + l·alpha²
    compounded: list[
        float
    ]  # (1 + alpha²)^l: what the unscaled blocks are predicted to give
    lora_same: list[
        bool
    ]  # per seed: the B = 0 layer's output equals the base layer's bit for bit
    lora_nudged_same: list[bool]  # the same with B nudged off zero
    lora_grad_a: list[float]  # max |∂loss/∂A| at B = 0 (A cannot move first)
    lora_grad_b: list[float]  # ‖∂loss/∂B‖ at B = 0 (B moves first)
    adaln_same: list[bool]  # the adaLN-Zero block returns its input bit for bit
    adaln_nudged_same: list[bool]
    adaln_grad_f: list[float]  # max |∂loss/∂(branch weights)| at the zero gate
    adaln_grad_gate: list[float]  # ‖∂loss/∂(gate weights)‖
    lora_nudged_grad_a: list[float]  # max |∂loss/∂A| with B nudged off zero
    adaln_nudged_grad_f: list[
        float
    ]  # max |∂loss/∂(branch weights)| with the gate nudged


def variances(stack: nn.Sequential, h: torch.Tensor) -> list[float]:
    out = [h.var().item()]
    with torch.no_grad():
        for block in stack:
            h = block(h)
            out.append(h.var().item())
    return out


def _lora(g: torch.Generator, nudge: float) -> tuple[bool, float, float]:
    base = nn.Linear(D, D, dtype=torch.float64)
    lora = LoRALinear(base, rank=RANK)
    with torch.no_grad():
        lora.B.add_(nudge * torch.randn(lora.B.shape, generator=g, dtype=torch.float64))
    x = torch.randn(BATCH, D, generator=g, dtype=torch.float64)
    same = bool(torch.equal(lora(x), base(x)))
    lora(x).pow(2).mean().backward()
    return same, lora.A.grad.abs().max().item(), lora.B.grad.norm().item()


def _adaln(g: torch.Generator, nudge: float) -> tuple[bool, float, float]:
    block = AdaLNZeroBlock(D, 16).double()
    with torch.no_grad():
        block.gate.weight.add_(
            nudge
            * torch.randn(block.gate.weight.shape, generator=g, dtype=torch.float64)
        )
    x = torch.randn(BATCH, D, generator=g, dtype=torch.float64)
    c = torch.randn(BATCH, 16, generator=g, dtype=torch.float64)
    same = bool(torch.equal(block(x, c), x))
    block(x, c).pow(2).mean().backward()
    grad_f = max(p.grad.abs().max().item() for p in block.f.parameters())
    return same, grad_f, block.gate.weight.grad.norm().item()


def measure(device: str = "cpu", seed: int = 0, seeds: int = 5) -> Result:
    """Every check, per seed (float64 on the CPU; the device is not used)."""
    ids = list(range(seed, seed + seeds))
    var: dict[str, list[list[float]]] = {"scaled": [], "unscaled": []}
    lora, adaln = [], []
    with one_thread():
        for s in ids:
            for name, scale in (("scaled", True), ("unscaled", False)):
                torch.manual_seed(s)  # the same weights for both
                stack = nf_stack(D, BLOCKS, ALPHA, scale_input=scale).double()
                h = torch.randn(
                    BATCH,
                    D,
                    generator=torch.Generator().manual_seed(s),
                    dtype=torch.float64,
                )
                var[name].append(variances(stack, h))
            g = torch.Generator().manual_seed(10_000 + s)
            torch.manual_seed(10_000 + s)
            lora.append((_lora(g, 0.0), _lora(g, NUDGE)))
            adaln.append((_adaln(g, 0.0), _adaln(g, NUDGE)))
    return Result(
        blocks=BLOCKS,
        d=D,
        alpha=ALPHA,
        seeds=ids,
        variance=var,
        predicted=[1 + k * ALPHA**2 for k in range(BLOCKS + 1)],
        compounded=[(1 + ALPHA**2) ** k for k in range(BLOCKS + 1)],
        lora_same=[z[0] for z, _ in lora],
        lora_nudged_same=[n[0] for _, n in lora],
        lora_grad_a=[z[1] for z, _ in lora],
        lora_grad_b=[z[2] for z, _ in lora],
        adaln_same=[z[0] for z, _ in adaln],
        adaln_nudged_same=[n[0] for _, n in adaln],
        adaln_grad_f=[z[1] for z, _ in adaln],
        adaln_grad_gate=[z[2] for z, _ in adaln],
        lora_nudged_grad_a=[n[1] for _, n in lora],
        adaln_nudged_grad_f=[n[1] for _, n in adaln],
    )


if __name__ == "__main__":
    r = measure()
    L = r.blocks
    print(
        f"Var(h_L), L = {L}: {r.variance['scaled'][0][L]:.3f}; beta_L² {r.predicted[L]:.3f}"
    )
    print(
        f"without 1/beta: {r.variance['unscaled'][0][L]:.3f}; (1+alpha²)^L {r.compounded[L]:.3f}"
    )
    print(
        f"LoRA, B = 0: same {r.lora_same}; grads A {r.lora_grad_a[0]}, B {r.lora_grad_b[0]:.3g}"
    )
    print(
        f"adaLN-Zero: same {r.adaln_same}; f {r.adaln_grad_f[0]}, gate {r.adaln_grad_gate[0]:.3g}"
    )
