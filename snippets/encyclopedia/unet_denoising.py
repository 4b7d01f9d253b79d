"""Denoising scikit-learn's digits with the small U-Net of unet_skips.py, with its long skips and
with zeros in their place (the same weights and arithmetic), at light and heavy noise.

Letters: sigma the standard deviation of the Gaussian noise added to an image with pixels in
[0, 1]. Run `python -m snippets.encyclopedia.unet_denoising` to train one seed and print it.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F

from snippets.degradation.training_curves import one_thread
from snippets.encyclopedia.unet_skips import UNet, data

BATCH, STEPS, LR = 64, 600, 3e-3
SIGMAS = (0.2, 0.6)  # the noise: light (the digit is plain to see) and heavy
EVERY = 100  # steps between two measurements of the test error
SHOWN = 6  # test digits kept for the figure


# --8<-- [start:train]
def denoise(
    seed: int,
    sigma: float,
    skip: bool,
    train: Tensor,
    test: Tensor,
    device: str = "cpu",
) -> tuple[list[float], Tensor, Tensor]:
    """Train a U-Net to return the clean image from image + sigma·noise (fresh noise every
    batch, mean squared error); the test error every EVERY steps, on noise drawn once
    per seed, and the last outputs for the test images."""
    torch.manual_seed(seed)  # the same start with and without skips
    net = UNet(skip=skip).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=LR)
    g = torch.Generator().manual_seed(seed)
    noisy = test + sigma * torch.randn(
        test.shape, generator=torch.Generator().manual_seed(10_000 + seed)
    )
    curve = []
    for step in range(STEPS + 1):
        if step % EVERY == 0:
            with torch.no_grad():
                out = net(noisy.to(device)).cpu()
            curve.append(F.mse_loss(out, test).item())
        if step == STEPS:
            break
        x = train[torch.randint(0, len(train), (BATCH,), generator=g)]
        y = x + sigma * torch.randn(x.shape, generator=g)
        loss = F.mse_loss(net(y.to(device)), x.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return curve, out, noisy


# --8<-- [end:train]


@dataclass
class Denoising:
    """One seed. Keyed by sigma (as text), then "skip" or "none" (the net without skips)."""

    seed: int
    curves: dict[str, dict[str, list[float]]]  # the test MSE every EVERY steps
    noisy: dict[str, float]  # the MSE of the noisy input itself
    shown: dict[str, dict[str, list[list[list[float]]]]]  # SHOWN images: outputs, input


def measure(device: str = "cpu", seed: int = 0) -> Denoising:
    """Both nets at both noise levels, one seed, from the same start."""
    train, test = data()
    curves: dict[str, dict[str, list[float]]] = {}
    noisy: dict[str, float] = {}
    shown: dict[str, dict[str, list[list[list[float]]]]] = {}
    with one_thread():
        for sigma in SIGMAS:
            key = str(sigma)
            curves[key], shown[key] = {}, {}
            for name, skip in (("skip", True), ("none", False)):
                curve, out, y = denoise(seed, sigma, skip, train, test, device)
                curves[key][name] = curve
                shown[key][name] = out[:SHOWN, 0].tolist()
            noisy[key] = F.mse_loss(y, test).item()
            shown[key]["noisy"] = y[:SHOWN, 0].tolist()
    shown["clean"] = {"clean": test[:SHOWN, 0].tolist()}
    return Denoising(seed, curves, noisy, shown)


if __name__ == "__main__":
    r = measure()
    for sigma, c in r.curves.items():
        end = {net: round(curve[-1], 4) for net, curve in c.items()}
        print(f"sigma {sigma}: noisy input {r.noisy[sigma]:.4f}, test error {end}")
