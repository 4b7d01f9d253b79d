"""Other skip patterns: a highway block (Srivastava et al. 2015): how near the identity, at what
cost.

Letters: N batch size, d width, H the transform (Linear -> ReLU), T = sigmoid(W_T x + b_T) the
transform gate, so that y = T·H(x) + (1 − T)·x, element by element.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from snippets.residual_block.identity_shortcut import ResidualBlock


# --8<-- [start:block]
class HighwayBlock(nn.Module):
    """y = T(x)·H(x) + (1 − T(x))·x, with a learned sigmoid transform gate T."""

    def __init__(self, d: int, gate_bias: float = -2.0) -> None:
        super().__init__()
        self.branch = nn.Sequential(nn.Linear(d, d), nn.ReLU())  # H: (N, d)
        self.gate = nn.Linear(d, d)  # W_T, b_T: the price of the gate
        nn.init.constant_(self.gate.bias, gate_bias)  # < 0: start near carrying x
        self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.sigmoid(self.gate(x))  # (N, d), strictly between 0 and 1
        return t * self.branch(x) + (1 - t) * self.shortcut(x)


# --8<-- [end:block]


# --8<-- [start:closing]
def deviation(block: HighwayBlock, x: torch.Tensor) -> tuple[float, float, float]:
    """max |y − x|, the same from the identity y − x = T·(H(x) − x), and max T."""
    with torch.no_grad():
        t = torch.sigmoid(block.gate(x))  # (N, d)
        predicted = (t * (block.branch(x) - x)).abs().max().item()
        return (block(x) - x).abs().max().item(), predicted, t.max().item()


# --8<-- [end:closing]

GATE_BIASES = (0.0, -2.0, -5.0, -10.0, -20.0, -40.0, -80.0, -120.0)


def _built(
    b: float, device: str, seed: int, d: int, n: int
) -> tuple[HighwayBlock, torch.Tensor]:
    """The sweep's block at gate bias b and its batch, float64, from `seed`."""
    torch.manual_seed(seed)
    block = HighwayBlock(d, gate_bias=b).double().to(device)
    x = torch.randn(n, d, dtype=torch.float64, device=device)  # (N, d)
    return block, x


def largest_gate(
    biases: list[float], device: str = "cpu", seed: int = 0, d: int = 64, n: int = 64
) -> list[float]:
    """max T of a freshly built block and batch at each b_T (the sweep's construction)."""
    out = []
    for b in biases:
        block, x = _built(b, device, seed, d, n)
        with torch.no_grad():
            out.append(torch.sigmoid(block.gate(x)).max().item())
    return out


def _ulps(deviation: torch.Tensor, x: torch.Tensor, dtype: torch.dtype) -> float:
    """The largest |deviation| in units of the last place of x held in `dtype`.

    The unit is the spacing above |x|, element by element."""
    a = x.to(dtype).abs()
    spacing = torch.nextafter(a, torch.full_like(a, float("inf"))) - a
    return (deviation.abs() / spacing.double()).max().item()


@dataclass(frozen=True)
class Result:
    """Deviation from the identity against b_T; parameter counts next to residual blocks."""

    d: int
    n: int
    rows: list[list[float]]  # b_T, max T, max T·|H − x|, max |y − x|, y == x (f64, f32)
    ulps: dict[str, list[float]]  # dtype -> per b_T, the largest T·|H − x| in ulps of x
    zero_init_residual_deviation: float
    params: dict[str, int]
    mlp_expansion: int  # hidden width / d of the residual MLP block compared with


def measure(device: str = "cpu", seed: int = 0, d: int = 64, n: int = 64) -> Result:
    """One random block and batch per b_T; float64 for the maths, float32 for the bits."""
    rows, ulps = [], {"float64": [], "float32": []}
    for b in GATE_BIASES:
        block, x = _built(b, device, seed, d, n)
        dev, predicted, t_max = deviation(block, x)
        with torch.no_grad():
            exact = torch.sigmoid(block.gate(x)) * (block.branch(x) - x)  # (N, d)
            ulps["float64"].append(_ulps(exact, x, torch.float64))
            ulps["float32"].append(_ulps(exact, x, torch.float32))
            same64 = torch.equal(block(x), x)
            x32, block32 = x.float(), block.float()
            same32 = torch.equal(block32(x32), x32)
        rows.append([b, t_max, predicted, dev, same64, same32])
    torch.manual_seed(seed)
    residual = ResidualBlock(d).double().to(device)
    nn.init.zeros_(residual.branch[-1].weight)  # zero-initialised last layer: F(x) = 0
    nn.init.zeros_(residual.branch[-1].bias)
    x = torch.randn(n, d, dtype=torch.float64, device=device)
    with torch.no_grad():
        zero_dev = (residual(x) - x).abs().max().item()
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    highway = HighwayBlock(d)
    mlp = ResidualBlock(d, expansion=4)
    params = {
        "highway": count(highway),
        "highway gate": count(highway.gate),
        "residual, same H": count(highway.branch),
        "residual MLP, e = 4": count(mlp),
        "residual shortcut": count(ResidualBlock(d).shortcut),
    }
    return Result(d, n, rows, ulps, zero_dev, params, mlp.branch[0].out_features // d)


if __name__ == "__main__":
    r = measure()
    for row in r.rows:
        print(row)
    print(r.zero_init_residual_deviation, r.params)
