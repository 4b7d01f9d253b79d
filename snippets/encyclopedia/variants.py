"""Encyclopedia, "Variants of the Residual Stream, Compared": four changes to Lab 2's model.

Each variant is Lab 2's TinyLM (snippets/lab_transformer/stream.py) with one change to how its
blocks read from and write to the stream: DenseFormer's depth-weighted averages, ResFormer's value
residual, LAuReL's low-rank shortcut, and GPT-J's parallel attention and MLP.
Letters: L blocks, d stream width, h_k the stream after block k (h_0 the embedding), x_k what block
k + 1 reads, v_k block k's attention values, r LAuReL's rank, lam the weight on v_1.
Run `python -m snippets.encyclopedia.variants` to print what the page states (about a second).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from snippets.degradation.training_curves import one_thread
from snippets.lab_transformer.stream import D, TinyLM

VARIANTS = ("pre-norm", "DenseFormer", "ResFormer", "LAuReL", "parallel")
RANK, LAMBDA = 2, 0.5  # LAuReL's rank r; ResFormer's weight on the first block's values


# --8<-- [start:model]
class Variant(TinyLM):
    """Lab 2's pre-norm TinyLM with one change to the stream, named by `variant`."""

    def __init__(self, vocab: int, depth: int, variant: str, rank: int = RANK) -> None:
        super().__init__(vocab, depth, "pre-norm")  # the same draws as Lab 2's model
        self.variant, self.lam = variant, LAMBDA
        if variant == "DenseFormer":  # weights on h_0..h_k after block k, one-hot
            eye = [F.one_hot(torch.tensor(k), k + 1) for k in range(1, depth + 1)]
            self.dwa = nn.ParameterList(nn.Parameter(w.float()) for w in eye)
        if variant == "LAuReL":  # per update, a rank-r map B A on the shortcut
            n = 2 * depth
            self.down = nn.ModuleList(nn.Linear(D, rank, bias=False) for _ in range(n))
            self.up = nn.ModuleList(nn.Linear(rank, D, bias=False) for _ in range(n))
            for up in self.up:
                nn.init.zeros_(up.weight)  # B = 0: the shortcut starts as the identity
        if variant == "parallel":  # one LayerNorm feeds both branches
            for block in self.blocks:
                block[1].norm = nn.Identity()

    def forward(self, tokens: Tensor) -> Tensor:
        h = self.embed(tokens) + self.pos.weight[: tokens.shape[1]]  # (B, T, d)
        return self.unembed(self.norm(self.stream(h)[-1]))  # (B, T, V)

    def stream(self, h: Tensor) -> list[Tensor]:
        """h_0 and what each block hands on: L + 1 tensors (B, T, d)."""
        hs, x, first = [h], h, None
        for k, (attn, ffn) in enumerate(self.blocks):
            a_in = attn.norm(x)  # (B, T, d): pre-norm, as in Lab 2
            if self.variant == "ResFormer":
                a, first = value_residual(attn.branch, a_in, first, self.lam)
            else:
                a = attn.branch(a_in)
            if self.variant == "parallel":  # both branches read x and write at once
                x = x + a + ffn.branch(a_in)
            elif self.variant == "LAuReL":
                x = x + a + self.up[2 * k](self.down[2 * k](x))
                m = ffn.branch(ffn.norm(x))
                x = x + m + self.up[2 * k + 1](self.down[2 * k + 1](x))
            else:
                x = x + a
                x = x + ffn.branch(ffn.norm(x))
            hs.append(x)
            if self.variant == "DenseFormer":  # block k + 1 reads a weighted average
                x = sum(w * h for w, h in zip(self.dwa[k], hs, strict=True))
        if self.variant == "DenseFormer":
            hs[-1] = x  # the output reads the last average
        return hs


# --8<-- [end:model]


# --8<-- [start:value]
def value_residual(
    attn: nn.Module, x: Tensor, first: Tensor | None, lam: float
) -> tuple:
    """Lab 2's attention with its values mixed with block 1's: (1 - lam) v_k + lam v_1."""
    B, T, d = x.shape
    q, k, v = attn.qkv(x).view(B, T, 3, attn.heads, -1).permute(2, 0, 3, 1, 4)
    first = v if first is None else first  # block 1 keeps its values for the rest
    mixed = (1 - lam) * v + lam * first  # (B, h, T, d/h)
    y = F.scaled_dot_product_attention(q, k, mixed, is_causal=True)
    return attn.out(y.transpose(1, 2).reshape(B, T, d)), first


# --8<-- [end:value]


def count(model: nn.Module) -> int:
    """Parameters the forward pass uses (the parallel block drops a LayerNorm)."""
    return sum(p.numel() for p in model.parameters())


@dataclass(frozen=True)
class Result:
    depth: int
    vocab: int
    rank: int
    lam: float
    params: dict[str, int]  # variant -> parameter count, at Lab 2's vocabulary
    full_rank_params: int  # LAuReL with r = d, the counterfactual of the budget
    dwa_weights: int  # DenseFormer's extra scalars, L (L + 3) / 2
    lab_identity: (
        float  # max |this pre-norm model's logits - Lab 2's TinyLM's|, float64
    )
    lab_post_norm: float  # the same against Lab 2's post-norm TinyLM from the seed
    dense_identity: float  # max |DenseFormer at its init - pre-norm|
    dense_uniform: float  # the same with every average uniform over h_0..h_k
    laurel_identity: float  # LAuReL with B = 0
    laurel_random: float  # LAuReL with B drawn like A
    value_first: float  # ResFormer: max |h_1 - pre-norm's h_1|
    value_later: float  # ResFormer: max |h_2 - pre-norm's h_2|
    value_off: float  # ResFormer with lam = 0: the whole model
    parallel_zeroed: (
        float  # parallel vs sequential, the MLP's last layer zeroed in both
    )
    parallel_live: float  # the same with the MLP as initialised


def deviation(a: Variant, b: Variant, tokens: Tensor, upto: int | None = None) -> float:
    """Largest |difference| between two models' logits, or between their streams after
    block `upto`."""
    with torch.no_grad():
        if upto is None:
            return (a(tokens) - b(tokens)).abs().max().item()
        h = a.embed(tokens) + a.pos.weight[: tokens.shape[1]]
        return (a.stream(h)[upto] - b.stream(h)[upto]).abs().max().item()


def pair(vocab: int, depth: int, variant: str, seed: int) -> tuple[Variant, Variant]:
    """Lab 2's pre-norm model and the variant, from the same seed, in float64."""
    torch.manual_seed(seed)
    plain = Variant(vocab, depth, "pre-norm").double().eval()
    torch.manual_seed(seed)
    return plain, Variant(vocab, depth, variant).double().eval()


def measure(
    device: str = "cpu",
    seed: int = 0,
    depth: int = 6,
    vocab: int = 40,
    lab_vocab: int = 0,
) -> Result:
    """Float64 on the CPU whatever the device: these identities are about the algebra.
    `lab_vocab` is the corpus's vocabulary for the parameter counts (0: read the corpus)."""
    with one_thread():  # tiny tensors: a second thread only adds waiting
        return identities(seed, depth, vocab, lab_vocab)


def identities(seed: int, depth: int, vocab: int, lab_vocab: int) -> Result:
    if not lab_vocab:
        from snippets.lab_transformer.stream import corpus

        lab_vocab = len(set(corpus()))
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(vocab, (4, 16), generator=g)  # (B, T)
    params = {}
    for name in VARIANTS:
        with torch.device("meta"):
            params[name] = count(Variant(lab_vocab, depth, name))
    with torch.device("meta"):
        full = count(Variant(lab_vocab, depth, "LAuReL", rank=D))

    plain, _ = pair(vocab, depth, "pre-norm", seed)
    lab = {}
    for placement in ("pre-norm", "post-norm"):
        torch.manual_seed(seed)
        lab[placement] = TinyLM(vocab, depth, placement).double().eval()
        with torch.no_grad():
            lab[placement] = (plain(tokens) - lab[placement](tokens)).abs().max().item()

    plain, dense = pair(vocab, depth, "DenseFormer", seed)
    dense_identity = deviation(plain, dense, tokens)
    with torch.no_grad():
        for w in dense.dwa:
            w.fill_(1.0 / len(w))
    dense_uniform = deviation(plain, dense, tokens)

    plain, laurel = pair(vocab, depth, "LAuReL", seed)
    laurel_identity = deviation(plain, laurel, tokens)
    with torch.no_grad():
        for up in laurel.up:
            nn.init.normal_(up.weight, std=up.in_features**-0.5, generator=g)
    laurel_random = deviation(plain, laurel, tokens)

    plain, value = pair(vocab, depth, "ResFormer", seed)
    value_first = deviation(plain, value, tokens, upto=1)
    value_later = deviation(plain, value, tokens, upto=2)
    value.lam = 0.0
    value_off = deviation(plain, value, tokens)

    plain, parallel = pair(vocab, depth, "parallel", seed)
    parallel_live = deviation(plain, parallel, tokens)
    with torch.no_grad():
        for model in (plain, parallel):
            for _, ffn in model.blocks:
                ffn.branch[2].weight.zero_()
                ffn.branch[2].bias.zero_()
    parallel_zeroed = deviation(plain, parallel, tokens)

    return Result(
        depth=depth,
        vocab=lab_vocab,
        rank=RANK,
        lam=LAMBDA,
        params=params,
        full_rank_params=full,
        dwa_weights=sum(len(w) for w in dense.dwa),
        lab_identity=lab["pre-norm"],
        lab_post_norm=lab["post-norm"],
        dense_identity=dense_identity,
        dense_uniform=dense_uniform,
        laurel_identity=laurel_identity,
        laurel_random=laurel_random,
        value_first=value_first,
        value_later=value_later,
        value_off=value_off,
        parallel_zeroed=parallel_zeroed,
        parallel_live=parallel_live,
    )


if __name__ == "__main__":
    print(measure())
