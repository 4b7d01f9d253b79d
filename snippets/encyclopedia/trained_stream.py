"""Encyclopedia, "The Trained Stream": the stream's basis, and three ways of reading and writing it.

Letters: L blocks, d stream width, h_k the stream after block k (h_0 the embedding),
q a d x d orthogonal matrix, 1 the all-ones vector, n(h) LayerNorm without its gain and
bias, W a map that reads the stream (a branch's first layer, the unembedding), W_out a map
that writes to it (a branch's last layer).
Run `python -m snippets.encyclopedia.trained_stream` to print what the page states.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from snippets.lab_transformer.reading import streams
from snippets.lab_transformer.stream import CONTEXT, TinyLM

DEPTH, VOCAB, WIDTH = (
    6,
    64,
    32,
)  # the identity check's model: Lab 2's shape, random weights


def reads_and_writes(update: nn.Module) -> tuple[nn.Linear, nn.Linear]:
    """The branch's first layer (it reads the normalised stream) and its last (it writes)."""
    branch = update.branch
    if isinstance(branch, nn.Sequential):  # the MLP
        return branch[0], branch[2]
    return branch.qkv, branch.out  # attention


# --8<-- [start:rotate]
def fold_norms(model: TinyLM) -> TinyLM:
    """A copy whose LayerNorms have gain 1 and bias 0: both moved into the reading map."""
    model = copy.deepcopy(model)
    pairs = [(u.norm, reads_and_writes(u)[0]) for block in model.blocks for u in block]
    pairs.append((model.norm, model.unembed))
    with torch.no_grad():
        for norm, read in pairs:
            # W(g * n + b) + c = (W diag g) n + (Wb + c)
            read.bias += read.weight @ norm.bias
            read.weight *= norm.weight  # (out, d): each column j times g_j
            norm.weight.fill_(1.0)
            norm.bias.zero_()
    return model


def rotate(model: TinyLM, q: Tensor) -> TinyLM:
    """The same network run on the stream h @ q: reads take q out, writes put it in."""
    model = fold_norms(model)
    with torch.no_grad():
        for table in (model.embed.weight, model.pos.weight):
            table.copy_(table @ q)  # every stream starts rotated
        for block in model.blocks:
            for update in block:
                read, write = reads_and_writes(update)
                read.weight.copy_(read.weight @ q)  # (n(h) q)(W q)^T = n(h) W^T
                write.weight.copy_(q.T @ write.weight)  # writes (x W_out^T + c) q
                write.bias.copy_(write.bias @ q)
        model.unembed.weight.copy_(model.unembed.weight @ q)
    return model


# --8<-- [end:rotate]


def rotation(d: int, generator: torch.Generator, keep_ones: bool) -> Tensor:
    """A random d x d orthogonal matrix; with keep_ones, one that maps 1 to itself."""
    if not keep_ones:
        return torch.linalg.qr(
            torch.randn(d, d, generator=generator, dtype=torch.float64)
        )[0]
    ones = torch.full((d, 1), d**-0.5, dtype=torch.float64)
    rest = torch.randn(d, d - 1, generator=generator, dtype=torch.float64)
    basis = torch.linalg.qr(torch.cat([ones, rest], 1))[0][
        :, 1:
    ]  # (d, d-1): orthogonal to 1
    turn = torch.linalg.qr(
        torch.randn(d - 1, d - 1, generator=generator, dtype=torch.float64)
    )[0]
    return (
        ones @ ones.T + basis @ turn @ basis.T
    )  # turns only the directions orthogonal to 1


# --8<-- [start:steer]
def steering_direction(
    model: TinyLM, tokens: Tensor, nxt: Tensor, k: int, char: int
) -> Tensor:
    """Mean stream after block k where `char` comes next, minus the mean elsewhere."""
    h = streams(model, tokens)[k]  # (B, T, d)
    before = nxt == char  # (B, T)
    return h[before].mean(0) - h[~before].mean(0)  # (d,)


def steered_logits(model: TinyLM, h: Tensor, k: int, add: Tensor) -> Tensor:
    """Finish the forward pass from h, the stream after block k, with `add` added to it."""
    h = h + add  # (B, T, d): the stream is a sum, so add to it
    for block in model.blocks[k:]:
        h = block(h)
    return model.unembed(model.norm(h))  # (B, T, V)


# --8<-- [end:steer]


# --8<-- [start:tuned]
class Translator(nn.Module):
    """The tuned lens at block k: h -> h + h A + b, then the final norm and unembedding."""

    def __init__(self, d: int, k: int, shift_only: bool = False) -> None:
        super().__init__()
        self.k = k
        zeros = torch.zeros(d, d, dtype=torch.float64)  # A = 0, b = 0: the logit lens
        self.a = None if shift_only else nn.Parameter(zeros)
        self.b = nn.Parameter(torch.zeros(d, dtype=torch.float64))

    def forward(self, h: Tensor) -> Tensor:
        return h + self.b if self.a is None else h + h @ self.a + self.b  # (B, T, d)


def fit(
    model: TinyLM, lens: Translator, tokens: Tensor, steps: int, lr: float
) -> Translator:
    """Fit the translator so the lens's prediction matches the model's own output (KL)."""
    with torch.no_grad():
        hs = streams(model, tokens)
        target = model.unembed(model.norm(hs[-1])).log_softmax(-1)  # (B, T, V)
    opt = torch.optim.Adam(lens.parameters(), lr=lr)
    kl = dict(log_target=True, reduction="batchmean")  # both are log-probabilities
    for _ in range(steps):
        guess = model.unembed(model.norm(lens(hs[lens.k]))).log_softmax(-1)  # (B, T, V)
        loss = F.kl_div(guess.flatten(0, 1), target.flatten(0, 1), **kl)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return lens


# --8<-- [end:tuned]


@dataclass(frozen=True)
class Result:
    """A random model with trained-looking norms, run as it is, folded, and rotated two ways."""

    seed: int
    depth: int
    width: int
    logit_max: float  # max |logit| of the model as built
    folded_error: (
        float  # max |logit difference| after folding the norms' gains and biases
    )
    kept_error: float  # ... after a rotation that keeps the all-ones direction
    moved_error: float  # ... after a rotation that moves it
    kept_ones: float  # |q 1 - 1| of the first rotation
    moved_ones: float  # |q 1 - 1| of the second


def measure(device: str = "cpu", seed: int = 0, batch: int = 8) -> Result:
    """Build Lab 2's model with random norm gains and biases, then fold and rotate it."""
    torch.manual_seed(seed)
    model = TinyLM(VOCAB, DEPTH, "pre-norm", d=WIDTH).double()
    with (
        torch.no_grad()
    ):  # trained norms are not 1 and 0: give the fold something to move
        for norm in [u.norm for block in model.blocks for u in block] + [model.norm]:
            norm.weight.copy_(1 + 0.5 * torch.randn(WIDTH, dtype=torch.float64))
            norm.bias.copy_(0.5 * torch.randn(WIDTH, dtype=torch.float64))
    model = model.to(device).eval()
    g = torch.Generator().manual_seed(seed)
    kept, moved = rotation(WIDTH, g, True), rotation(WIDTH, g, False)
    tokens = torch.randint(VOCAB, (batch, CONTEXT), generator=g).to(device)
    ones = torch.ones(WIDTH, dtype=torch.float64)
    with torch.no_grad():
        base = model(tokens)  # (B, T, V)

        def error(other: TinyLM) -> float:
            return (other(tokens) - base).abs().max().item()

        return Result(
            seed=seed,
            depth=DEPTH,
            width=WIDTH,
            logit_max=base.abs().max().item(),
            folded_error=error(fold_norms(model)),
            kept_error=error(rotate(model, kept.to(device))),
            moved_error=error(rotate(model, moved.to(device))),
            kept_ones=(kept @ ones - ones).norm().item(),
            moved_ones=(moved @ ones - ones).norm().item(),
        )


if __name__ == "__main__":
    r = measure()
    print(r)
    print(
        f"relative: kept {r.kept_error / r.logit_max:.1e}, moved {r.moved_error / r.logit_max:.2f}"
    )
