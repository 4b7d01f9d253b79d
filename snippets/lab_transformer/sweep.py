"""Lab 2, the training experiment: every placement at every learning rate and seed, on real text.

Letters: M the models trained side by side (seeds x rates), L blocks, d stream width, T context,
B windows per batch, V vocabulary (the corpus's characters).
The corpus is part of the pinned torch wheel's own source (torch/nn/modules), read from disk:
nothing is downloaded, and its sha256 is asserted, so another torch fails loudly.
The M models are stacked, not merged: each has its own weights, batches, loss and Adam state, and
`stacked_forward` computes exactly what `TinyLM.forward` computes for each (a claim checks it).
Run `python -m snippets.lab_transformer.sweep` to print a small version of what the page states.
"""

from __future__ import annotations

import hashlib
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor
from torch.nn import functional as F

from snippets.degradation.training_curves import one_thread
from snippets.lab_transformer.stream import CONTEXT, HEADS, TinyLM, write_ratios

MODULES = Path(torch.__file__).parent / "nn" / "modules"
FILES = (
    "activation.py",
    "container.py",
    "linear.py",
    "normalization.py",
    "transformer.py",
)
BATCH, STEPS, WARMUP_SHARE, EVAL_WINDOWS = 2, 1500, 0.1, 256
WARMUP = int(WARMUP_SHARE * STEPS)  # steps
LRS = (
    3e-4,
    1e-3,
    3e-3,
    1e-2,
)  # each variant's grid unless a depth sets its own (train_deep.py)
VARIANTS = {  # name: (placement, warm-up over the first WARMUP_SHARE of the steps)
    "pre-norm": ("pre-norm", False),
    "post-norm": ("post-norm", False),
    "post-norm + warm-up": ("post-norm", True),
}


# --8<-- [start:corpus]
def corpus() -> str:
    """Five modules of the installed torch's source: code, comments, docstrings."""
    return "".join((MODULES / name).read_text() for name in FILES)


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --8<-- [end:corpus]


@dataclass(frozen=True)
class Text:
    train: Tensor  # (n,) character ids: the first nine tenths
    valid: Tensor  # (n_valid,): the last tenth, never trained on
    chars: str
    sha256: str

    def windows(self, g: torch.Generator, n: int, valid: bool = False) -> tuple:
        text = self.valid if valid else self.train
        start = torch.randint(len(text) - CONTEXT - 1, (n,), generator=g)
        window = text[start[:, None] + torch.arange(CONTEXT + 1)]  # (n, T + 1)
        return window[:, :-1], window[:, 1:]


def load() -> Text:
    text = corpus()
    chars = "".join(sorted(set(text)))
    index = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([index[c] for c in text])
    cut = int(0.9 * len(ids))
    return Text(ids[:cut], ids[cut:], chars, fingerprint(text))


def unigram_loss(text: Text) -> float:
    counts = torch.bincount(text.train, minlength=len(text.chars)).double() + 1
    return -(counts / counts.sum()).log()[text.valid].mean().item()


def held_out(text: Text) -> tuple[Tensor, Tensor]:
    """The fixed held-out windows every model is scored on (the same for every seed)."""
    return text.windows(torch.Generator().manual_seed(99), EVAL_WINDOWS, valid=True)


# --8<-- [start:stacked]
def stack(models: list[TinyLM]) -> dict[str, Tensor]:
    """The M models' parameters, each stacked along a new first axis."""
    states = [m.state_dict() for m in models]
    stacked = {k: torch.stack([s[k] for s in states]) for k in states[0]}
    return {k: v.requires_grad_() for k, v in stacked.items()}


def linear(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    """M linear maps at once: x (M, ..., in), w (M, out, in), b (M, out)."""
    M, *shape, n = x.shape
    y = torch.baddbmm(b[:, None], x.reshape(M, -1, n), w.transpose(1, 2))
    return y.reshape(M, *shape, -1)


def norm(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    return F.layer_norm(x, x.shape[-1:]) * w[:, None, None] + b[:, None, None]


def placed(pre: Tensor, x: Tensor, ln: tuple, before: bool) -> Tensor:
    """x normed where the placement norms at this point.

    before: pre-norm's norm of a branch's input; after: post-norm's norm of the sum.
    """
    normed = pre if before else ~pre
    if bool(normed.all()):  # a stack of one placement normalises all or nothing
        return norm(x, *ln)
    if not bool(normed.any()):
        return x
    return torch.where(normed.view(-1, 1, 1, 1), norm(x, *ln), x)


def stacked_forward(P: dict[str, Tensor], tokens: Tensor, pre: Tensor) -> Tensor:
    """TinyLM.forward for M models at once: tokens (M, B, T) -> logits (M, B, T, V).

    pre (M,) is True where model m is pre-norm, False where it is post-norm.
    """
    M, B, T = tokens.shape
    h = P["embed.weight"][torch.arange(M)[:, None, None], tokens]  # (M, B, T, d)
    h = h + P["pos.weight"][:, None, :T]
    depth = 1 + max(int(k.split(".")[1]) for k in P if k.startswith("blocks."))
    for i in range(depth):
        for j in (0, 1):  # attention, then the MLP
            p = f"blocks.{i}.{j}."
            ln = (P[p + "norm.weight"], P[p + "norm.bias"])
            x = placed(pre, h, ln, before=True)  # pre-norm: the branch reads a norm
            if j == 0:
                qkv = linear(x, P[p + "branch.qkv.weight"], P[p + "branch.qkv.bias"])
                q, k, v = qkv.view(M * B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                y = y.transpose(1, 2).reshape(M, B, T, -1)
                w = linear(y, P[p + "branch.out.weight"], P[p + "branch.out.bias"])
            else:
                u = linear(x, P[p + "branch.0.weight"], P[p + "branch.0.bias"])
                w = linear(u.relu(), P[p + "branch.2.weight"], P[p + "branch.2.bias"])
            h = placed(pre, h + w, ln, before=False)  # post-norm norms the sum
    h = norm(h, P["norm.weight"], P["norm.bias"])
    return linear(h, P["unembed.weight"], P["unembed.bias"])


# --8<-- [end:stacked]


def unstack(
    P: dict[str, Tensor], m: int, vocab: int, depth: int, placement: str
) -> TinyLM:
    """Model m of the stack as a TinyLM of its own."""
    model = TinyLM(vocab, depth, placement)
    model.load_state_dict({k: v[m].detach() for k, v in P.items()})
    return model


def flatten_(P: dict[str, Tensor]) -> Tensor:
    """Move P's tensors into one flat buffer and return it; P's entries become views into it.

    Adam then updates every number of every model in a few large operations instead of a few
    per tensor; the values, and each model's arithmetic, are unchanged.
    """
    flat = torch.cat([p.detach().reshape(-1) for p in P.values()])
    at = 0
    for k, p in P.items():
        P[k] = flat[at : at + p.numel()].view_as(p).requires_grad_()
        at += p.numel()
    return flat


# --8<-- [start:train]
def train(
    P: dict, text: Text, pre: Tensor, lrs: Tensor, warm: Tensor, seeds: list[int]
) -> list:
    """Adam, written out so that each of the M models has its own rate.

    Model m's rate climbs linearly to lrs[m] over the first WARMUP steps if warm[m],
    else it is lrs[m] from the start. Returns each model's training loss per step; P's
    entries are then the trained parameters.
    """
    flat = flatten_(P)  # every parameter of every model, in one buffer
    params = list(P.values())  # views into it
    # Adam's moments and scratch, laid out as `flat` is
    m1, m2, grad, denom, step = (torch.zeros_like(flat) for _ in range(5))
    parts = grad.split([p.numel() for p in params])
    grad_views = [part.view_as(p) for part, p in zip(parts, params, strict=True)]
    share = [p[0].numel() for p in params]  # one model's share of each tensor
    # each number's rate and warm-up flag: those of the model it belongs to
    lr_flat = torch.cat([lrs.repeat_interleave(n) for n in share])
    warm_flat = torch.cat([warm.repeat_interleave(n) for n in share])
    rate = lr_flat.clone()
    gens = {s: torch.Generator().manual_seed(s) for s in sorted(set(seeds))}
    b1, b2, eps, curve = 0.9, 0.999, 1e-8, []
    for t in range(1, STEPS + 1):
        drawn = {s: text.windows(g, BATCH) for s, g in gens.items()}
        x = torch.stack([drawn[s][0] for s in seeds])  # (M, B, T): seed s's batch
        y = torch.stack([drawn[s][1] for s in seeds])
        logits = stacked_forward(P, x, pre)  # (M, B, T, V)
        nll = F.cross_entropy(
            logits.flatten(1, 2).transpose(1, 2), y.flatten(1), reduction="none"
        )
        per_model = nll.mean(1)  # (M,): each model's own mean loss
        grads = torch.autograd.grad(per_model.sum(), params)  # model m's own gradient
        with torch.no_grad():  # Adam is elementwise, so the M models never mix
            torch._foreach_copy_(grad_views, grads)  # into `grad`, laid out as `flat`
            m1.lerp_(grad, 1 - b1)
            m2.mul_(b2).addcmul_(grad, grad, value=1 - b2)
            torch.div(m2, 1 - b2**t, out=denom).sqrt_().add_(eps)
            torch.div(m1, 1 - b1**t, out=step).div_(denom)
            if t <= WARMUP and bool(warm.any()):  # warm models' rates climb to lrs
                torch.where(
                    warm_flat, lr_flat * min(1.0, t / WARMUP), lr_flat, out=rate
                )
            flat.sub_(step.mul_(rate))  # every parameter of every model at once
        curve.append(per_model.detach())
    return torch.stack(curve).T.tolist()  # (M, STEPS)


# --8<-- [end:train]


def held_out_loss(P: dict, pre: Tensor, x: Tensor, y: Tensor) -> list[float]:
    """Each model's mean next-character loss on the fixed held-out windows."""
    M = len(pre)
    with torch.no_grad():
        logits = stacked_forward(P, x.expand(M, -1, -1), pre)
        nll = F.cross_entropy(
            logits.flatten(1, 2).transpose(1, 2),
            y.expand(M, -1, -1).flatten(1),
            reduction="none",
        )
    return nll.mean(1).tolist()


@dataclass(frozen=True)
class Sweep:
    """One variant at one depth: every (seed, rate) pair trained."""

    variant: str
    depth: int
    seeds: list[int]
    lrs: list[float]
    loss: dict[float, list[float]]  # rate -> held-out loss per seed
    init_loss: list[float]  # held-out loss per seed at initialisation
    curves: dict[
        float, list[list[float]]
    ]  # rate -> seed -> training loss, mean of each 50 steps
    best: dict[int, float]  # seed -> the rate with its lowest held-out loss
    ratios_init: dict[
        int, list[float]
    ]  # seed -> per-block write/stream at initialisation
    ratios_trained: dict[
        int, list[float]
    ]  # seed -> the same after training at its best rate
    models: dict[int, TinyLM]  # seed -> the model trained at that seed's best rate

    def median_loss(self, rate: float) -> float:
        return statistics.median(self.loss[rate])

    def best_rate(self) -> float:
        """The grid's rate with the lowest median held-out loss over seeds."""
        return min(self.lrs, key=self.median_loss)

    def at_best(self) -> list[float]:
        """Per seed: the held-out loss at the variant's best rate (median over seeds)."""
        return self.loss[self.best_rate()]


def measure(
    device: str = "cpu",
    seed: int = 0,
    seeds: int = 3,
    depth: int = 24,
    grids: dict[str, tuple[float, ...]] | None = None,
    variants: tuple[str, ...] = tuple(VARIANTS),
) -> dict:
    """Train each variant x rate x seed at one depth side by side; score on held-out text.

    grids: each variant's learning rates (default: LRS for every variant); variants: which of
    VARIANTS to train (the models never mix: leaving one out leaves the others' training alone).
    """
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        raise ValueError(
            f"sweep.measure: unknown variants {unknown}; choose from {list(VARIANTS)}"
        )
    text = load()
    grid = {v: tuple((grids or {}).get(v, LRS)) for v in variants}
    seed_list = list(range(seed, seed + seeds))
    runs = [(v, s, r) for v in variants for s in seed_list for r in grid[v]]
    start = time.process_time()
    with one_thread():
        built = []
        for v, s, _ in runs:
            torch.manual_seed(s)  # the same initial weights for every rate of a seed
            built.append(TinyLM(len(text.chars), depth, VARIANTS[v][0]))
        P = stack(built)
        pre = torch.tensor([VARIANTS[v][0] == "pre-norm" for v, _, _ in runs])
        warm = torch.tensor([VARIANTS[v][1] for v, _, _ in runs])
        x, y = held_out(text)
        init = held_out_loss(P, pre, x, y)
        lrs = torch.tensor([r for _, _, r in runs])
        curve = train(P, text, pre, lrs, warm, [s for _, s, _ in runs])
        final = held_out_loss(P, pre, x, y)
        probe = x[:16]  # held-out windows the write ratios are read on
        out = {}
        for v in variants:
            rates = grid[v]
            idx = {(s, r): runs.index((v, s, r)) for s in seed_list for r in rates}
            best = {
                s: min(rates, key=lambda r, s=s: final[idx[s, r]]) for s in seed_list
            }
            models, r0, r1 = {}, {}, {}
            with torch.no_grad():
                for s in seed_list:
                    models[s] = unstack(
                        P, idx[s, best[s]], len(text.chars), depth, VARIANTS[v][0]
                    )
                    r0[s] = write_ratios(
                        built[idx[s, best[s]]], probe
                    )  # untouched: stack copied
                    r1[s] = write_ratios(models[s], probe)
            out[v] = Sweep(
                variant=v,
                depth=depth,
                seeds=seed_list,
                lrs=list(rates),
                loss={r: [final[idx[s, r]] for s in seed_list] for r in rates},
                init_loss=[init[idx[s, rates[0]]] for s in seed_list],
                curves={
                    r: [mean_every(curve[idx[s, r]], 50) for s in seed_list]
                    for r in rates
                },
                best=best,
                ratios_init=r0,
                ratios_trained=r1,
                models=models,
            )
    cpu = time.process_time() - start
    return dict(
        sweeps=out,
        unigram=unigram_loss(text),
        sha256=text.sha256,
        chars=len(text.train) + len(text.valid),
        vocab=len(text.chars),
        cpu_seconds=cpu,
        depth=depth,
    )


def summary_table(sweeps: dict[str, Sweep]) -> dict:
    """Each variant and rate: the median held-out loss over seeds, the lowest and highest seed."""
    rows = []
    for name, sw in sweeps.items():
        for rate in sw.lrs:
            losses = sw.loss[rate]
            rows.append(
                [name, rate, statistics.median(losses), min(losses), max(losses)]
            )
    columns = [
        "variant",
        "learning rate",
        "median held-out loss",
        "lowest seed",
        "highest seed",
    ]
    return {"columns": columns, "rows": rows}


def mean_every(values: list[float], k: int) -> list[float]:
    return [
        sum(values[i : i + k]) / len(values[i : i + k])
        for i in range(0, len(values), k)
    ]


def stack_error(depth: int = 3, models: int = 4, swap: bool = False) -> float:
    """Largest |stacked_forward - TinyLM.forward| over alternating pre- and post-norm models."""
    text = load()
    placements = ["pre-norm" if m % 2 == 0 else "post-norm" for m in range(models)]
    built = []
    for m, placement in enumerate(placements):
        torch.manual_seed(m)
        built.append(TinyLM(len(text.chars), depth, placement))
    pre = torch.tensor([p == "pre-norm" for p in placements])
    pre = ~pre if swap else pre  # swap: run each model with the other placement
    x, _ = held_out(text)
    with torch.no_grad():
        stacked = stacked_forward(stack(built), x[:8].expand(models, -1, -1), pre)
        return max(
            (stacked[m] - built[m](x[:8])).abs().max().item() for m in range(models)
        )


def corpus_and_torch(reverse: bool = False) -> tuple[str, str]:
    """The corpus and the torch version that shipped it; reverse: the same files last first."""
    names = reversed(FILES) if reverse else FILES
    return "".join((MODULES / name).read_text() for name in names), torch.__version__


if __name__ == "__main__":
    import sys

    # python -m snippets.lab_transformer.sweep [depth] [steps]: the full sweep by default
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    if len(sys.argv) > 2:
        STEPS = int(sys.argv[2])
        WARMUP = int(WARMUP_SHARE * STEPS)
    from snippets.lab_transformer import train_deep

    r = measure(
        depth=depth, grids=train_deep.GRIDS if depth == train_deep.DEPTH else None
    )
    print(f"unigram loss {r['unigram']:.3f}; {r['cpu_seconds']:.0f} s CPU")
    for v, sw in r["sweeps"].items():
        for lr in sw.lrs:
            losses = ", ".join(f"{x:.3f}" for x in sw.loss[lr])
            print(f"{v:20} L={depth:2}  lr {lr:.0e}  held-out loss per seed: {losses}")
        print(f"{v:20} best rate (median over seeds): {sw.best_rate():.0e}")
