"""Encyclopedia, "The Trained Stream": Lab 2's reading model, trained and untrained, read four ways.

The model and its training are Lab 2's reading model (snippets/lab_transformer/reading.py:
6 pre-norm blocks, Adam, its step count and learning rate), trained from the same seeds.
Everything is read in float64 on held-out windows; the steering directions and the tuned
lens are fitted on training windows.
Letters: L blocks, h_k the stream after block k (h_0 the embedding), T the context.
Run `python -m snippets.encyclopedia.trained_stream_models` to print what the page states
(about half a minute).
"""

# site: not-a-listing (the experiment behind the measurements; listings: trained_stream.py)
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor
from torch.nn import functional as F

from snippets.degradation.training_curves import one_thread
from snippets.encyclopedia.trained_stream import (
    Translator,
    fit,
    steered_logits,
    steering_direction,
)
from snippets.lab_transformer.reading import DEPTH, LR, STEPS, streams
from snippets.lab_transformer.stream import Data, TinyLM, load, run

WINDOWS, FIT_WINDOWS = (
    256,
    128,
)  # windows of the context's length: read on, and fitted on
STEER_AT = DEPTH // 2  # the steering claim's block: the middle of the stack
LENS_AT = 1  # the tuned-lens claim's block: the first
LENS_STEPS, LENS_LR = 100, 3e-2  # Adam on each translator
TARGET = " "  # the character the steering direction is for: the corpus's most common
RANDOM_DRAWS = 20  # random directions of the steering direction's length, per block


def rms(h: Tensor) -> float:
    """Root mean square of the stream's coordinates, over every position."""
    return h.pow(2).mean().sqrt().item()


def first_position_weight(model: TinyLM, hs: list[Tensor]) -> tuple[list, list]:
    """Per block: attention on the window's first position from queries in its second half,
    over what uniform causal attention would give it (1 = uniform): the mean over heads, and
    the largest head's."""
    means, largest = [], []
    for block, h in zip(model.blocks, hs, strict=False):
        attention = block[0].branch
        x = block[0].norm(h)  # pre-norm: the branch reads a normalised copy
        B, T, _ = x.shape
        qkv = attention.qkv(x).view(B, T, 3, attention.heads, -1)
        q, k, _ = qkv.permute(2, 0, 3, 1, 4)  # (B, heads, T, d/h) each
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (B, heads, T, T)
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        late = torch.arange(T // 2, T, device=x.device)  # queries in the second half
        uniform = (1.0 / (late + 1)).double().mean()
        per_head = weights[:, :, late, 0].mean((0, 2)) / uniform  # (heads,)
        means.append(per_head.mean().item())
        largest.append(per_head.max().item())
    return means, largest


def lens_losses(
    model: TinyLM, fit_x: Tensor, x: Tensor, y: Tensor, blocks: list[int], shift: bool
) -> dict:
    """Held-out loss read after each of `blocks` by the logit lens, the tuned lens and,
    with `shift`, a translator that may only shift the stream."""
    hs = streams(model, x)

    def loss(h: Tensor) -> float:
        return F.cross_entropy(
            model.unembed(model.norm(h)).flatten(0, 1), y.flatten()
        ).item()

    out: dict[str, list] = {"blocks": blocks, "logit": [], "tuned": [], "shift": []}
    for k in blocks:
        out["logit"].append(loss(hs[k]))
        tuned = fit(
            model,
            Translator(hs[k].shape[-1], k).to(x.device),
            fit_x,
            LENS_STEPS,
            LENS_LR,
        )
        with torch.no_grad():
            out["tuned"].append(loss(tuned(hs[k])))
        if shift:
            only = fit(
                model,
                Translator(hs[k].shape[-1], k, True).to(x.device),
                fit_x,
                LENS_STEPS,
                LENS_LR,
            )
            with torch.no_grad():
                out["shift"].append(loss(only(hs[k])))
    out["output"] = [loss(hs[-1])]
    return out


def steering(
    model: TinyLM,
    fit_x: Tensor,
    fit_y: Tensor,
    x: Tensor,
    y: Tensor,
    char: int,
    seed: int,
) -> dict:
    """Per block k = 1..L: mean change in log p(char) where char does not come next, with the
    steering direction added after block k; after block STEER_AT also with random directions
    of the same length, and what else the direction moves there."""
    g = torch.Generator().manual_seed(50_000 + seed)
    others = y != char  # (B, T)
    out: dict[str, Any] = {"direction": [], "norm": [], "spread": []}
    hs = streams(model, x)
    base = model.unembed(model.norm(hs[-1])).log_softmax(-1)  # (B, T, V)
    for k in range(1, len(model.blocks) + 1):
        v = steering_direction(model, fit_x, fit_y, k, char)  # (d,)
        steered = steered_logits(model, hs[k], k, v).log_softmax(-1)
        out["direction"].append((steered - base)[..., char][others].mean().item())
        out["norm"].append(v.norm().item())
        centred = hs[k] - hs[k].mean(
            (0, 1)
        )  # each position's distance from the mean stream
        out["spread"].append(centred.norm(dim=-1).mean().item())
        if k != STEER_AT:
            continue
        draws = []
        for _ in range(RANDOM_DRAWS):
            r = torch.randn(v.shape, generator=g, dtype=v.dtype).to(v.device)
            r = (
                (r - r.mean()) * v.norm() / (r - r.mean()).norm()
            )  # centred, as LN sees it
            moved = steered_logits(model, hs[k], k, r).log_softmax(-1)[..., char]
            draws.append((moved - base[..., char])[others].mean().item())
        every = (steered - base)[others].mean(0)  # (V,): each character's mean gain
        out |= dict(
            random=sum(draws) / len(draws),
            random_max=max(draws),
            rank=1 + int((every > every[char]).sum()),
            loss=F.cross_entropy(base.flatten(0, 1), y.flatten()).item(),
            steered_loss=F.cross_entropy(steered.flatten(0, 1), y.flatten()).item(),
            top1=(base.argmax(-1) == char)[others].double().mean().item(),
            steered_top1=(steered.argmax(-1) == char)[others].double().mean().item(),
        )
    return out


def read(
    model: TinyLM,
    fitting: tuple,
    held: tuple,
    char: int,
    seed: int,
    blocks: list[int],
    shift: bool,
) -> dict:
    """Everything the page reads off one model; the lens at `blocks` only (a fit costs a second)."""
    model = model.double().eval()
    for p in model.parameters():
        p.requires_grad_(False)  # the lens fits its translators, never the model
    x, y = held
    with torch.no_grad():
        hs = streams(model, x)
        sizes = [rms(h) for h in hs]
        peak = [(h.abs().max() / h.abs().median()).item() for h in hs]
        first, first_head = first_position_weight(model, hs)
        steer = steering(model, *fitting, x, y, char, seed)
    lens = lens_losses(model, fitting[0], x, y, blocks, shift)
    return dict(
        rms=sizes, peak=peak, first=first, first_head=first_head, steer=steer, lens=lens
    )


def baselines(data: Data, y: Tensor, x: Tensor) -> dict[str, float]:
    """Held-out loss of guessing uniformly, from character counts, and from the character
    before (bigram counts on the training text, add-0.1 smoothing): a lens's yardsticks."""
    V = len(data.chars)
    uni = torch.bincount(data.train, minlength=V).double() + 0.1
    pairs = torch.zeros(V, V, dtype=torch.float64, device=data.train.device)
    pairs.index_put_(
        (data.train[:-1], data.train[1:]), torch.ones(()).double(), accumulate=True
    )
    bigram = (pairs + 0.1) / (pairs + 0.1).sum(
        1, keepdim=True
    )  # row: the current character
    return dict(
        uniform=math.log(V),
        unigram=-(uni / uni.sum()).log()[y].mean().item(),
        bigram=-bigram[x, y].log().mean().item(),
        held_out_chars=len(data.valid),
    )


@dataclass(frozen=True)
class Result:
    seed: int
    depth: int
    steps: int
    windows: int
    valid_loss: float
    trained: dict  # what read() returns, for the trained model
    untrained: dict  # the same model before training
    baselines: dict  # what the held-out text costs without a model


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Train Lab 2's reading model from `seed`; read it and its untrained self."""
    data = load(device)
    char = data.chars.index(TARGET)
    with one_thread():
        untrained, _ = run(data, DEPTH, "pre-norm", seed, 0, LR, 0)
        model, trained = run(data, DEPTH, "pre-norm", seed, STEPS, LR, 0)
        g = torch.Generator().manual_seed(40_000 + seed)
        fit_windows = data.batch(
            g, FIT_WINDOWS
        )  # training text: directions and translators
        held = data.batch(g, WINDOWS, valid=True)  # held-out text: every reading
        after = read(
            model, fit_windows, held, char, seed, list(range(DEPTH)), shift=True
        )
        before = read(untrained, fit_windows, held, char, seed, [LENS_AT], shift=False)
    floor = baselines(data, held[1], held[0])
    return Result(seed, DEPTH, STEPS, WINDOWS, trained.valid_loss, after, before, floor)


if __name__ == "__main__":
    import time

    t = time.process_time()
    r = measure()
    for name, reading in (("trained", r.trained), ("untrained", r.untrained)):
        print(name, {k: v for k, v in reading.items() if k != "lens"})
        print("  lens", reading["lens"])
    print(f"{time.process_time() - t:.1f} s")
