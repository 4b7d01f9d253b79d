"""Lab 2: read a trained pre-norm model's stream: logit lens, direct logit attribution, patching.

Letters: L blocks, h_k the stream after block k (h_0 the embedding), w_k = h_k - h_{k-1} block k's
write, y the character that comes next, LN the final LayerNorm, U the unembedding.
Run `python -m snippets.lab_transformer.reading` to print what the page states.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F

from snippets.degradation.training_curves import one_thread
from snippets.lab_transformer.stream import TinyLM, load, run

DEPTH, STEPS, LR = 6, 1500, 3e-3


# --8<-- [start:lens]
def streams(model: TinyLM, tokens: Tensor) -> list[Tensor]:
    """h_0 (the embedding) and the stream after every block: L + 1 tensors (B, T, d)."""
    h = model.embed(tokens) + model.pos.weight[: tokens.shape[1]]
    out = [h]
    for block in model.blocks:
        h = block(h)
        out.append(h)
    return out


def logit_lens(model: TinyLM, tokens: Tensor) -> list[Tensor]:
    """Unembed every stream through the final norm, as if the model stopped there."""
    return [model.unembed(model.norm(h)) for h in streams(model, tokens)]  # (B, T, V)


# --8<-- [end:lens]


# --8<-- [start:attribution]
def direct_logit_attribution(model: TinyLM, tokens: Tensor, y: Tensor) -> tuple:
    """Split the logit of y at the last position into h_0's and each write's share.

    With sigma fixed at the full stream's, LN(h) = gamma * (h - mean(h)) / sigma + b
    is affine, and h_L = h_0 + w_1 + ... + w_L, so the logit splits exactly.
    """
    hs = [h[:, -1] for h in streams(model, tokens)]  # L + 1 tensors (B, d)
    parts = [hs[0]] + [b - a for a, b in itertools.pairwise(hs)]  # h_0, w_1, ..., w_L
    var = hs[-1].var(-1, unbiased=False, keepdim=True)  # (B, 1)
    sigma = (var + model.norm.eps).sqrt()  # (B, 1): LayerNorm's divisor
    u = model.unembed.weight[y] * model.norm.weight  # (B, d): gamma folded into U's row
    centred = [p - p.mean(-1, keepdim=True) for p in parts]  # centring is linear
    shares = torch.stack([(u * c).sum(-1) for c in centred], 1)  # (B, L + 1)
    constant = model.unembed.weight[y] @ model.norm.bias + model.unembed.bias[y]  # (B,)
    return shares / sigma, constant  # (B, L + 1) and (B,): they sum to the logit


# --8<-- [end:attribution]


# --8<-- [start:patch]
def run_with_write(
    model: TinyLM, tokens: Tensor, k: int, write: Tensor | None
) -> tuple:
    """Logits at the last position, and block k's write there (replaced by `write`)."""
    h = model.embed(tokens) + model.pos.weight[: tokens.shape[1]]  # (B, T, d)
    own = h[:, -1]  # k = 0 patches nothing and returns the embedding
    for i, block in enumerate(model.blocks, start=1):
        out = block(h)
        if i == k:
            own = out[:, -1] - h[:, -1]  # (B, d): block k's write at the last position
            if write is not None:
                out = torch.cat([out[:, :-1], (h[:, -1] + write)[:, None]], 1)
        h = out
    return model.unembed(model.norm(h[:, -1])), own  # (B, V), (B, d)


def restored(model: TinyLM, clean: Tensor, corrupt: Tensor, y: Tensor) -> tuple:
    """Per block k, over every window (none picked out), two shares of the log-prob gap.

    Denoising: block k's clean write, put into the corrupted run, wins back this share.
    Noising: its corrupted write, put into the clean run, costs this share.
    Each share is a ratio of means over the windows: those the corruption leaves alone
    weigh little.
    """

    def logp(tokens: Tensor, k: int = 0, write: Tensor | None = None) -> Tensor:  # (B,)
        logits, _ = run_with_write(model, tokens, k, write)
        return logits.log_softmax(-1).gather(1, y[:, None])[:, 0]

    good, bad = logp(clean), logp(corrupt)
    gap = (good - bad).mean()  # mean log-probability the corruption takes away
    denoise, noise = [], []
    for k in range(1, len(model.blocks) + 1):
        _, clean_write = run_with_write(model, clean, k, None)  # (B, d)
        _, bad_write = run_with_write(model, corrupt, k, None)
        denoise.append(((logp(corrupt, k, clean_write) - bad).mean() / gap).item())
        noise.append(((good - logp(clean, k, bad_write)).mean() / gap).item())
    return denoise, noise, gap.item()


# --8<-- [end:patch]


@dataclass(frozen=True)
class Result:
    depth: int
    steps: int
    windows: int
    candidates: int  # windows the patching reads, every one of them
    lens_loss: list[float]  # cross-entropy of the lens after block k = 0..L, trained
    lens_agree: list[float]  # positions where the lens's top-1 is the output's
    untrained_lens_loss: list[float]
    untrained_lens_agree: list[float]
    dla_error: float  # max |sum of shares + constant - logit|, float64
    dla_naive_error: (
        float  # the same sum with each part put through the final LayerNorm alone
    )
    dla_shares: list[float]  # mean share of h_0, w_1..w_L in the correct logit
    dla_logit: float  # mean logit of the correct character
    patch_restored: list[float]  # block k = 1..L: share of the log-prob gap restored
    patch_noised: list[
        float
    ]  # block k = 1..L: share of the gap its corrupted write costs
    patch_gap: float  # clean minus corrupted log-probability of y, mean
    untrained_patch_restored: list[float]
    untrained_patch_noised: list[float]
    untrained_patch_gap: float
    valid_loss: float


def corrupt_second_to_last(
    tokens: Tensor, vocab: int, generator: torch.Generator
) -> Tensor:
    """The same windows with the character before the last replaced by a different one."""
    bad = tokens.clone()
    shift = torch.randint(1, vocab, (len(tokens),), generator=generator)
    bad[:, -2] = (tokens[:, -2] + shift) % vocab
    return bad


def read(model: TinyLM, tokens: Tensor, targets: Tensor, pairs: tuple) -> dict:
    """Everything the page reads off one model, in float64."""
    model = model.double().eval()
    with torch.no_grad():
        lens = logit_lens(model, tokens)
        final = lens[-1].argmax(-1)
        loss = [
            F.cross_entropy(z.flatten(0, 1), targets.flatten()).item() for z in lens
        ]
        agree = [(z.argmax(-1) == final).double().mean().item() for z in lens]
        y = targets[:, -1]
        shares, constant = direct_logit_attribution(model, tokens, y)
        logit = lens[-1][:, -1].gather(1, y[:, None])[:, 0]
        error = (shares.sum(1) + constant - logit).abs().max().item()
        hs = [h[:, -1] for h in streams(model, tokens)]
        parts = [hs[0]] + [b - a for a, b in itertools.pairwise(hs)]
        naive = sum(model.unembed(model.norm(p))[range(len(y)), y] for p in parts)
        naive_error = (naive - logit).abs().max().item()
        patch, noised, gap = restored(model, *pairs)
    return dict(
        loss=loss,
        agree=agree,
        error=error,
        naive_error=naive_error,
        shares=shares.mean(0).tolist(),
        logit=logit.mean().item(),
        restored=patch,
        noised=noised,
        gap=gap,
    )


def measure(
    device: str = "cpu", seed: int = 0, windows: int = 128, candidates: int = 512
) -> Result:
    """Train the pre-norm model; read its stream, and the untrained one's, on held-out text."""
    data = load(device)
    with one_thread():
        untrained, _ = run(data, DEPTH, "pre-norm", seed, 0, LR, 0)
        model, trained = run(data, DEPTH, "pre-norm", seed, STEPS, LR, 0)
        g = torch.Generator().manual_seed(30_000 + seed)
        tokens, targets = data.batch(g, windows, valid=True)
        clean, next_chars = data.batch(g, candidates, valid=True)  # for the patching
        corrupt = corrupt_second_to_last(clean, len(data.chars), g)  # (B, T)
        pairs = (clean, corrupt, next_chars[:, -1])
        before = read(untrained, tokens, targets, pairs)
        after = read(model, tokens, targets, pairs)
    return Result(
        depth=DEPTH,
        steps=STEPS,
        windows=windows,
        candidates=candidates,
        lens_loss=after["loss"],
        lens_agree=after["agree"],
        untrained_lens_loss=before["loss"],
        untrained_lens_agree=before["agree"],
        dla_error=after["error"],
        dla_naive_error=after["naive_error"],
        dla_shares=after["shares"],
        dla_logit=after["logit"],
        patch_restored=after["restored"],
        patch_noised=after["noised"],
        patch_gap=after["gap"],
        untrained_patch_restored=before["restored"],
        untrained_patch_noised=before["noised"],
        untrained_patch_gap=before["gap"],
        valid_loss=trained.valid_loss,
    )


if __name__ == "__main__":
    import time

    t = time.process_time()
    r = measure()
    print(r)
    print(f"{time.process_time() - t:.1f} s")
