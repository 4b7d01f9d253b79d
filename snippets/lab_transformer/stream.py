"""Lab 2: a tiny character-level transformer, its norm placements, and training on its own source.

Letters: L blocks, d stream width, T context in characters, V vocabulary (the corpus's characters),
α the weight on the shortcut, β the scale of DeepNorm's initial branch weights.
The corpus is this file and the lab's other listing, read at run time: nothing is downloaded.
Run `python -m snippets.lab_transformer.stream` to print what the page states.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from snippets.degradation.training_curves import one_thread

HERE = Path(__file__).parent
D, HEADS, CONTEXT, BATCH = 32, 4, 32, 16


# --8<-- [start:residual]
class Residual(nn.Module):
    """One residual update of the stream around `branch`, its norm placed as named."""

    def __init__(self, branch: nn.Module, d: int, placement: str, depth: int) -> None:
        super().__init__()
        self.branch, self.placement = branch, placement
        self.norm = nn.Identity() if placement == "rezero" else nn.LayerNorm(d)
        self.alpha = (2 * depth) ** 0.25 if placement == "deepnorm" else 1.0
        self.scale = depth**-0.5 if placement == "scaled" else 1.0
        self.gate = nn.Parameter(torch.zeros(())) if placement == "rezero" else None

    def write(self, x: Tensor) -> Tensor:
        """What this update adds to the stream (to alpha * x)."""
        if self.placement in ("pre-norm", "scaled"):  # it reads a normalised copy
            return self.scale * self.branch(self.norm(x))  # (B, T, d)
        if self.placement == "rezero":  # a learned gate that starts at zero
            return self.gate * self.branch(x)  # (B, T, d)
        return self.branch(x)  # post-norm and DeepNorm: the branch reads the stream

    def forward(self, x: Tensor) -> Tensor:
        out = self.alpha * x + self.write(x)  # (B, T, d)
        return self.norm(out) if self.placement in ("post-norm", "deepnorm") else out


# --8<-- [end:residual]


# --8<-- [start:model]
class Attention(nn.Module):
    """Causal multi-head self-attention; `out` is how it writes."""

    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads, self.qkv, self.out = heads, nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x: Tensor) -> Tensor:
        B, T, d = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, h, T, d/h)
        return self.out(y.transpose(1, 2).reshape(B, T, d))  # (B, T, d)


def mlp(d: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d))


class Block(nn.Sequential):
    """Two residual updates: attention, then the MLP."""

    def __init__(self, d: int, heads: int, placement: str, depth: int) -> None:
        super().__init__(
            Residual(Attention(d, heads), d, placement, depth),
            Residual(mlp(d), d, placement, depth),
        )


class TinyLM(nn.Module):
    """Embed characters, run L blocks on the stream, final LayerNorm, unembed."""

    def __init__(self, vocab: int, depth: int, placement: str, d: int = D) -> None:
        super().__init__()
        self.embed, self.pos = nn.Embedding(vocab, d), nn.Embedding(CONTEXT, d)
        blocks = [Block(d, HEADS, placement, depth) for _ in range(depth)]
        self.blocks = nn.ModuleList(blocks)
        self.norm, self.unembed = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, tokens: Tensor) -> Tensor:
        x = self.embed(tokens) + self.pos.weight[: tokens.shape[1]]  # (B, T, d)
        for block in self.blocks:
            x = block(x)  # (B, T, d): the residual stream
        return self.unembed(self.norm(x))  # (B, T, V): logits for the next character


# --8<-- [end:model]


# --8<-- [start:deepnorm]
def deepnorm_init(model: TinyLM, depth: int) -> None:
    """Wang et al.'s init for an L-block decoder: value and output maps times beta."""
    beta = (8 * depth) ** -0.25
    for block in model.blocks:
        attn, ffn = block[0].branch, block[1].branch
        q, k, v = attn.qkv.weight.split(attn.out.in_features)  # views, (d, d) each
        for w in (q, k, v, attn.out.weight, ffn[0].weight, ffn[2].weight):
            nn.init.xavier_normal_(w)
        with torch.no_grad():
            for w in (v, attn.out.weight, ffn[0].weight, ffn[2].weight):
                w.mul_(beta)  # queries and keys keep gain 1


# --8<-- [end:deepnorm]


def corpus() -> str:
    """The characters the model learns from: this lab's listings."""
    return "".join((HERE / name).read_text() for name in ("stream.py", "reading.py"))


@dataclass(frozen=True)
class Data:
    train: Tensor  # (n,) character ids
    valid: Tensor  # (n_valid,)
    chars: str  # the vocabulary, in id order

    def batch(
        self, generator: torch.Generator, size: int = BATCH, valid: bool = False
    ) -> tuple[Tensor, Tensor]:
        text = self.valid if valid else self.train
        start = torch.randint(
            len(text) - CONTEXT - 1, (size,), generator=generator
        )  # (B,)
        idx = start[:, None] + torch.arange(CONTEXT + 1)  # (B, T + 1)
        window = text[idx.to(text.device)]
        return window[:, :-1], window[:, 1:]  # inputs and next characters, (B, T) each


def load(device: str = "cpu") -> Data:
    text = corpus()
    chars = "".join(sorted(set(text)))
    ids = torch.tensor([chars.index(c) for c in text], device=device)
    cut = int(0.9 * len(ids))
    return Data(ids[:cut], ids[cut:], chars)


def build(data: Data, depth: int, placement: str, seed: int) -> TinyLM:
    torch.manual_seed(seed)
    model = TinyLM(len(data.chars), depth, placement)
    if placement == "deepnorm":
        deepnorm_init(model, depth)
    return model.to(data.train.device)


def loss_of(model: TinyLM, x: Tensor, y: Tensor) -> Tensor:
    logits = model(x)  # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1), y.flatten())


# --8<-- [start:ratios]
def write_ratios(model: TinyLM, x: Tensor) -> list[float]:
    """Per block: |write| / |alpha * stream| (token mean), averaged over its updates."""
    h = model.embed(x) + model.pos.weight[: x.shape[1]]  # (B, T, d)
    ratios = []
    for block in model.blocks:
        per_update = []
        for update in block:
            write = update.write(h)  # (B, T, d)
            ratio = write.norm(dim=-1) / (update.alpha * h).norm(dim=-1)  # (B, T)
            per_update.append(ratio.mean().item())
            h = update(h)
        ratios.append(sum(per_update) / len(per_update))
    return ratios


# --8<-- [end:ratios]


@dataclass
class Run:
    """One training run: its losses, and write ratios at checkpoints on a fixed probe batch."""

    placement: str
    depth: int
    warmup: int
    probe: Tensor = field(
        repr=False
    )  # (B, T): held-out windows the ratios are measured on
    every: int = 20
    losses: list[float] = field(default_factory=list)  # training loss per step
    valid_loss: float = float("nan")
    ratio_steps: list[int] = field(default_factory=list)
    ratios: list[list[float]] = field(default_factory=list)  # per checkpoint, per block

    def checkpoint(self, model: TinyLM, step: int, last: bool = False) -> None:
        if step % self.every == 0 or last:
            with torch.no_grad():
                self.ratio_steps.append(step)
                self.ratios.append(write_ratios(model, self.probe))


# --8<-- [start:train]
def train(model: TinyLM, data: Data, run: Run, steps: int, lr: float, seed: int) -> Run:
    """Adam; the learning rate climbs linearly to lr over run.warmup steps (0: none)."""
    opt = torch.optim.Adam(model.parameters(), lr=lr, fused=True)
    warm = run.warmup + 1
    ramp = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm))
    batches = torch.Generator().manual_seed(seed)  # the same batches for every variant
    for step in range(steps):
        run.checkpoint(model, step)
        loss = loss_of(model, *data.batch(batches))  # next-character cross-entropy
        opt.zero_grad()
        loss.backward()
        opt.step()
        ramp.step()
        run.losses.append(loss.item())
    run.checkpoint(model, steps, last=True)
    return run


# --8<-- [end:train]


def valid_loss(model: TinyLM, data: Data, seed: int, windows: int = 128) -> float:
    """Next-character loss on held-out windows (the last tenth of the corpus)."""
    g = torch.Generator().manual_seed(20_000 + seed)
    with torch.no_grad():
        return loss_of(model, *data.batch(g, windows, valid=True)).item()


def run(
    data: Data,
    depth: int,
    placement: str,
    seed: int,
    steps: int,
    lr: float,
    warmup: int,
) -> tuple[TinyLM, Run]:
    """Build a model from the seed, train it, and score it on held-out text."""
    model = build(data, depth, placement, seed)
    probe, _ = data.batch(torch.Generator().manual_seed(10_000 + seed), valid=True)
    every = max(1, steps // 4)
    result = train(
        model, data, Run(placement, depth, warmup, probe, every), steps, lr, seed
    )
    result.valid_loss = valid_loss(model, data, seed)
    return model, result


DEPTHS, STEPS, LR, WARMUP = (6, 24), 72, 3e-3, 30
VARIANTS = {  # name: (placement, warm-up steps)
    "pre-norm": ("pre-norm", 0),
    "post-norm": ("post-norm", 0),
    "post-norm + warm-up": ("post-norm", WARMUP),
    "DeepNorm": ("deepnorm", 0),
    "ReZero": ("rezero", 0),
    "1/√L scaled": ("scaled", 0),
}


def unigram_loss(data: Data) -> float:
    """Cross-entropy of predicting each held-out character from the training text's frequencies."""
    counts = (
        torch.bincount(data.train, minlength=len(data.chars)).double() + 1
    )  # add-one
    return -(counts / counts.sum()).log()[data.valid].mean().item()


@dataclass(frozen=True)
class Result:
    seed: int
    steps: int
    lr: float
    warmup: int
    unigram: float
    runs: dict[str, dict[int, Run]]  # variant name -> depth -> run
    cpu_seconds: dict[str, dict[int, float]]


def measure(
    device: str = "cpu",
    seed: int = 0,
    depths: tuple[int, ...] = DEPTHS,
    steps: int = STEPS,
) -> Result:
    """Train every variant at every depth from one seed, same data order and learning rate."""
    data = load(device)
    runs: dict[str, dict[int, Run]] = {name: {} for name in VARIANTS}
    cpu: dict[str, dict[int, float]] = {name: {} for name in VARIANTS}
    with one_thread():
        for name, (placement, warmup) in VARIANTS.items():
            for depth in depths:
                start = time.process_time()
                runs[name][depth] = run(
                    data, depth, placement, seed, steps, LR, warmup
                )[1]
                cpu[name][depth] = time.process_time() - start
    return Result(seed, steps, LR, WARMUP, unigram_loss(data), runs, cpu)


if __name__ == "__main__":
    r = measure()
    print(f"unigram loss {r.unigram:.3f}")
    for name, by_depth in r.runs.items():
        for depth, one in by_depth.items():
            cpu = r.cpu_seconds[name][depth]
            print(
                f"{name:20} L={depth:2}  valid loss {one.valid_loss:.3f}  ({cpu:.1f} s CPU)"
            )
