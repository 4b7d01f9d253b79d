"""Lab 3's task: read one part of the residual stream's direct effect on the logit of the right
character, with the final LayerNorm's division fixed at the whole stream's size.

    python lab_reading_tasks.py

Needs only Python and PyTorch. Fill in the function marked TASK, then run this file: it builds
small pre-norm residual stacks (random weights, float64), splits each stack's last stream into
its parts (the embedding and every block's write), and checks your function on them, with a
hint for every failure. Once it is right, the file adds up your shares of every part and the
constant that belongs to no part, and compares the total with the stack's own logit. It opens
no network connection and writes no file.

Letters: h_L the last stream, the sum of its parts h_0 (the embedding) and w_1 ... w_L (the
blocks' writes); gamma and beta the final LayerNorm's weight and bias, eps its epsilon; u the
unembedding row of the right character y, b_y its bias.
"""

# site: not-a-listing (a download: docs/module/lab-reading-stream.md, "Your turn")

from __future__ import annotations

import sys

import torch
from torch import Tensor, nn

WIDTH, VOCAB, DEPTH, POSITIONS = 32, 16, 4, 64
SEEDS = (0, 1, 2)  # the measured check: one random stack per seed
TOL = 1e-9  # float64: the shares and the constant must add up to the logit to rounding


# TASK: one part's direct share -------------------------------------------------------------
def direct_share(
    part: Tensor, stream: Tensor, gamma: Tensor, u: Tensor, eps: float
) -> Tensor:
    """The direct effect of `part` on the logit of the right character, at every position.

    part: (N, d), the embedding or one block's write; stream: (N, d), the last stream, the sum
    of all the parts; gamma: (d,), the final LayerNorm's weight; u: (N, d), the unembedding row
    of the right character at each position; eps: the LayerNorm's epsilon. Return (N,)."""
    raise NotImplementedError(
        "LayerNorm centres, then divides by the whole stream's sigma; with that division fixed, "
        "the logit is linear in the parts"
    )


# The stacks (given) -------------------------------------------------------------------------
class Block(nn.Module):
    """x + MLP(LN(x)): a pre-norm residual update (an attention update splits the same way)."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width), nn.ReLU(), nn.Linear(4 * width, width)
        )

    def forward(self, x: Tensor) -> Tensor:
        return x + self.mlp(self.norm(x))


class Stack(nn.Module):
    """Embed, run the blocks, final LayerNorm, unembed; `parts` also returns h_0 and every write."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.blocks = nn.ModuleList(Block(WIDTH) for _ in range(DEPTH))
        self.norm, self.unembed = nn.LayerNorm(WIDTH), nn.Linear(WIDTH, VOCAB)
        with (
            torch.no_grad()
        ):  # a trained model's gamma, beta and bias are not 1, 0 and small
            self.norm.weight.normal_(1.0, 0.5)
            self.norm.bias.normal_(0.0, 0.5)
            self.unembed.bias.normal_(0.0, 0.5)
        self.double()

    def parts(self, tokens: Tensor) -> tuple[list[Tensor], Tensor, Tensor]:
        """[h_0, w_1, ..., w_L] (each (N, d)), the last stream h_L (N, d) and the logits (N, V)."""
        h = self.embed(tokens)
        out = [h]
        for block in self.blocks:
            new = block(h)
            out.append(new - h)  # block k's write
            h = new
        return out, h, self.unembed(self.norm(h))


def case(seed: int) -> dict:
    """One stack, read at POSITIONS random positions: what the task and the check need."""
    stack = Stack(seed)
    tokens = torch.randint(VOCAB, (POSITIONS,))
    y = torch.randint(VOCAB, (POSITIONS,))  # the right character at each position
    with torch.no_grad():
        parts, stream, logits = stack.parts(tokens)
    u = stack.unembed.weight[y].detach()  # (N, d)
    beta, bias = stack.norm.bias.detach(), stack.unembed.bias.detach()
    return {
        "parts": parts,
        "stream": stream,
        "gamma": stack.norm.weight.detach(),
        "u": u,
        "eps": stack.norm.eps,
        "constant": u @ beta
        + bias[y],  # (N,): beta and the bias, read at y, belong to no part
        "logit": logits.gather(1, y[:, None])[:, 0],  # (N,): the stack's own logit of y
    }


# The check ----------------------------------------------------------------------------------
def _sigma(x: Tensor, eps: float, unbiased: bool = False) -> Tensor:
    return (x.var(-1, unbiased=unbiased, keepdim=True) + eps).sqrt()  # (N, 1)


def _read(x: Tensor, sigma: Tensor, gamma: Tensor, u: Tensor) -> Tensor:
    return (x / sigma * gamma * u).sum(-1)  # (N,)


def _close(a: Tensor, b: Tensor) -> bool:
    if a.shape != b.shape or not bool(torch.isfinite(a).all()):
        return False
    return float((a - b).abs().max()) <= TOL * max(1.0, float(b.abs().max()))


def _hint(f) -> str:
    c = case(SEEDS[0])
    stream, gamma, u, eps = c["stream"], c["gamma"], c["u"], c["eps"]
    for k, part in enumerate(c["parts"]):
        centred = part - part.mean(-1, keepdim=True)
        want = _read(centred, _sigma(stream, eps), gamma, u)
        got = f(part, stream, gamma, u, eps)
        if not isinstance(got, Tensor):
            return f"direct_share returned a {type(got).__name__}; return a tensor of shape (N,)"
        got = got.detach().to(want.dtype)
        if _close(got, want):
            continue
        seen = "the embedding's share" if k == 0 else f"block {k}'s share"
        if got.shape != want.shape:
            return (
                f"{seen} has shape {tuple(got.shape)}; return one number per position"
            )
        own = _read(centred, _sigma(part, eps), gamma, u)
        mistakes = (  # (what a common mistake returns, its hint)
            (
                own,
                "divides the part by its own size: divide every part by the whole stream's sigma",
            ),
            (
                _read(part, _sigma(stream, eps), gamma, u),
                "is not centred: LayerNorm subtracts the mean first",
            ),
            (
                _read(centred, _sigma(stream, eps, unbiased=True), gamma, u),
                "uses the unbiased variance: LayerNorm divides by d, not d - 1 (unbiased=False)",
            ),
            (
                _read(centred, _sigma(stream, eps), 1.0, u),
                "leaves out gamma, the LayerNorm's weight",
            ),
        )
        for wrong, hint in mistakes:
            if _close(got, wrong):
                return f"{seen} {hint}"
        return f"{seen} is off by up to {float((got - want).abs().max()):.3g}"
    return ""


def check(module) -> list[tuple[str, bool, str]]:
    """(task, passed, what to do) for the task, then the measurements."""
    try:
        problem = _hint(module.direct_share)
    except NotImplementedError as e:
        problem = f"not done yet: {e}"
    except Exception as e:  # a learner's error is reported, not raised
        problem = f"raised {type(e).__name__}: {e}"
    out = [("direct_share", not problem, problem)]
    if problem:
        return out
    for seed in SEEDS:
        c = case(seed)
        logit, eps = c["logit"], c["eps"]
        shares = [
            module.direct_share(p, c["stream"], c["gamma"], c["u"], eps)
            for p in c["parts"]
        ]
        error = float((sum(shares) + c["constant"] - logit).abs().max())
        alone = sum(  # the tempting shortcut: each part through the whole LayerNorm on its own
            _read(p - p.mean(-1, keepdim=True), _sigma(p, eps), c["gamma"], c["u"])
            + c["constant"]
            for p in c["parts"]
        )
        missed = float((alone - logit).abs().max())
        text = f"stack {seed}: {len(shares)} shares + the constant = the logit, to {error:.1e}"
        text += f" (each part through the LayerNorm alone: off by up to {missed:.2f})"
        out.append(
            ("measured", error <= TOL * max(1.0, float(logit.abs().max())), text)
        )
    return out


def main(module=None) -> int:
    results = check(module or sys.modules[__name__])
    for name, ok, text in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}{': ' + text if text else ''}")
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
