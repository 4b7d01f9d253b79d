"""Worked answer to Lab 3's task (snippets/lab_transformer/reading_tasks.py, served as
lab_reading_tasks.py). Letters as there: gamma the final LayerNorm's weight, u the unembedding
row of the right character.
"""

from __future__ import annotations

from torch import Tensor

from snippets.lab_transformer import reading_tasks as tasks


# --8<-- [start:answers]
def direct_share(
    part: Tensor, stream: Tensor, gamma: Tensor, u: Tensor, eps: float
) -> Tensor:
    """Centre the part (centring is linear), divide by the whole stream's sigma (LayerNorm's
    biased variance), weight each coordinate by gamma and read it with u."""
    var = stream.var(-1, unbiased=False, keepdim=True)  # (N, 1): the stream's
    centred = part - part.mean(-1, keepdim=True)  # (N, d)
    return (centred / (var + eps).sqrt() * gamma * u).sum(-1)  # (N,)


# --8<-- [end:answers]


def alone(part: Tensor, stream: Tensor, gamma: Tensor, u: Tensor, eps: float) -> Tensor:
    """The tempting shortcut: the part through the final LayerNorm on its own (its own sigma);
    the constant is added once per part below, as unembedding each part's logits would."""
    var = part.var(-1, unbiased=False, keepdim=True)  # (N, 1): the part's own
    centred = part - part.mean(-1, keepdim=True)
    return (centred / (var + eps).sqrt() * gamma * u).sum(-1)  # (N,)


def measure(device: str = "cpu", seed: int = 0, seeds: int = 3) -> dict:
    """On one random stack per seed (the task file's), the largest |sum of the shares + the
    constant - the stack's own logit|, for the worked answer and for the shortcut (float64 on
    the CPU; the device is not used)."""
    out: dict = {
        "seeds": list(range(seed, seed + seeds)),
        "errors": [],
        "alone_errors": [],
        "logits": [],
    }
    for s in out["seeds"]:
        c = tasks.case(s)
        for name, f, once in (
            ("errors", direct_share, 1),
            ("alone_errors", alone, len(c["parts"])),
        ):
            shares = [
                f(p, c["stream"], c["gamma"], c["u"], c["eps"]) for p in c["parts"]
            ]
            total = sum(shares) + once * c["constant"]
            out[name].append(float((total - c["logit"]).abs().max()))
        out["logits"].append(float(c["logit"].abs().max()))
    out["parts"] = tasks.DEPTH + 1
    return out
