"""Long skips: a small U-Net, the paths through it, and what two poolings take out of a digit.

Letters: c the channels at full resolution, k the number of levels (each halves the image's side
with 2×2 average pooling), L the blocks of a residual stack, sigma the standard deviation of
the noise added to an image. Data: scikit-learn's handwritten digits (1,797 grey 8×8 images,
shipped with the package; nothing is downloaded), pixels scaled to [0, 1]; the first 1,280
train, the other 517 test. Run `python -m snippets.encyclopedia.unet_skips` to print it all.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy
import torch
from sklearn.datasets import load_digits
from torch import Tensor, nn
from torch.nn import functional as F

N_TRAIN, CHANNELS, SIDE = 1280, 8, 8  # SIDE: the digits are SIDE × SIDE pixels
POOL, POOLINGS = 2, 2  # each level pools 2×2; the bottleneck is two levels down


# --8<-- [start:unet]
class UNet(nn.Module):
    """Two levels: 8×8 → 4×4 → 2×2 and back. On the way up, each level concatenates
    the encoder's features of the same resolution (the long skip) with the upsampled
    ones. skip=False concatenates zeros instead: same weights, same arithmetic."""

    def __init__(self, c: int = CHANNELS, skip: bool = True) -> None:
        super().__init__()
        self.skip = skip

        def conv(c_in: int, c_out: int) -> nn.Module:
            return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU())

        self.down1 = nn.Sequential(conv(1, c), conv(c, c))  # 8×8
        self.down2 = conv(c, 2 * c)  # 4×4
        self.middle = conv(2 * c, 2 * c)  # 2×2
        self.up2 = conv(2 * c + 2 * c, 2 * c)  # 4×4: upsampled + skip
        self.up1 = nn.Sequential(conv(2 * c + c, c), nn.Conv2d(c, 1, 3, padding=1))

    def forward(self, x: Tensor) -> Tensor:
        s1 = self.down1(x)
        s2 = self.down2(F.avg_pool2d(s1, 2))
        m = self.middle(F.avg_pool2d(s2, 2))
        if not self.skip:
            s1, s2 = torch.zeros_like(s1), torch.zeros_like(s2)
        u = self.up2(torch.cat([F.interpolate(m, scale_factor=2), s2], dim=1))
        return self.up1(torch.cat([F.interpolate(u, scale_factor=2), s1], dim=1))


# --8<-- [end:unet]


# --8<-- [start:paths]
def unet_output(levels: int) -> sympy.Expr:
    """A linear U-Net with one scalar per layer. Level j's encoder layer multiplies by
    a_j; its decoder layer reads the upsampled result from below through u_j and the
    skip through v_j (the two halves of one convolution's weights); the bottom is m."""
    x = sympy.Symbol("x")
    inner: sympy.Expr = sympy.Symbol("m") * x
    for j in range(levels, 0, -1):
        a, u, v = sympy.symbols(f"a{j} u{j} v{j}")
        inner = u * inner.subs(x, a * x) + v * a * x
    return sympy.expand(inner)


def residual_output(blocks: int) -> sympy.Expr:
    """A linear residual stack, block l's branch multiplying by f_l: x · ∏ (1 + f_l)."""
    x = sympy.Symbol("x")
    out: sympy.Expr = x
    for j in range(1, blocks + 1):
        out = out + sympy.Symbol(f"f{j}") * out
    return sympy.expand(out)


def paths(expr: sympy.Expr) -> list[int]:
    """One path per term of the expanded output; its length is the number of weight
    layers it passes through (the term's degree, less the input x)."""
    return sorted(
        sum(sympy.Poly(t).degree_list()) - 1 for t in sympy.Add.make_args(expr)
    )


# --8<-- [end:paths]


def data() -> tuple[Tensor, Tensor]:
    """Training and test images, (N, 1, 8, 8), pixels in [0, 1]."""
    images = torch.tensor(load_digits().images, dtype=torch.float32).unsqueeze(1) / 16
    if images.shape[-2:] != (SIDE, SIDE):
        raise ValueError(
            f"sklearn's digits are {tuple(images.shape[-2:])}, not {SIDE} × {SIDE}"
        )
    return images[:N_TRAIN], images[N_TRAIN:]


@dataclass
class Paths:
    levels: list[int]
    unet: dict[int, list[int]]  # levels -> the lengths of its paths
    residual: dict[int, list[int]]  # blocks -> the lengths of its paths


def measure_paths(levels: tuple[int, ...] = (1, 2, 3, 4)) -> Paths:
    return Paths(
        levels=list(levels),
        unet={k: paths(unet_output(k)) for k in levels},
        residual={k: paths(residual_output(k)) for k in levels},
    )


def summary(images: Tensor, levels: int = POOLINGS) -> Tensor:
    """Each image averaged over blocks of 2^levels × 2^levels pixels, at full size."""
    low = images
    for _ in range(levels):
        low = F.avg_pool2d(low, POOL)
    return F.interpolate(low, scale_factor=POOL**levels)


def pooled_energy(images: Tensor, levels: int = POOLINGS) -> float:
    """‖x − summary(x)‖² / ‖x − mean(x)‖², over all images: the share of their variation
    that a bottleneck `levels` poolings deep does not see."""
    centred = images - images.mean(dim=(2, 3), keepdim=True)
    return float((images - summary(images, levels)).pow(2).sum() / centred.pow(2).sum())


def measure_pooling() -> dict[str, float]:
    """The share pooling removes from the test digits, and from their own summaries."""
    _, test = data()
    return {
        "digits": pooled_energy(test),
        "summaries": pooled_energy(summary(test)),
        "images": len(test),
    }


if __name__ == "__main__":
    p = measure_paths()
    for k in p.levels:
        print(
            f"{k} levels: U-Net paths {p.unet[k]}; {k} residual blocks: {len(p.residual[k])} paths"
        )
    print(
        f"pooling twice removes {measure_pooling()['digits']:.1%} of the test digits' variation"
    )
