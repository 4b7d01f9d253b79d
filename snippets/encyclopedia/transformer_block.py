"""Encyclopedia, The Residual Stream: a pre-norm transformer block and its post-norm variant.

Letters used on the page: B batch size, T sequence length, d stream width, h attention heads.
Run `python -m snippets.encyclopedia.transformer_block` to print what the page states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn


# --8<-- [start:sublayers]
class CausalSelfAttention(nn.Module):
    """Multi-head self-attention in which position t reads positions 0..t only."""

    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)  # the only way attention writes into the stream

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, d = x.shape
        split = (B, T, 3, self.heads, d // self.heads)
        q, k, v = self.qkv(x).view(split).permute(2, 0, 3, 1, 4)  # each (B, h, T, d/h)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)  # (B, h, T, T)
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(-1)  # (B, h, T, T)
        mixed = (weights @ v).transpose(1, 2).reshape(B, T, d)  # (B, T, d)
        return self.out(mixed)  # (B, T, d)


class MLP(nn.Module):
    """Position-wise feed-forward sublayer, widened 4× in the middle."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.up = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)  # the only way the MLP writes into the stream

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(nn.functional.gelu(self.up(x)))  # (B, T, d)


# --8<-- [end:sublayers]


# --8<-- [start:prenorm]
class PreNormBlock(nn.Module):
    """Two residual updates; sublayers read normalised copies; no rescaled stream."""

    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.norm1, self.attn = nn.LayerNorm(d), CausalSelfAttention(d, heads)
        self.norm2, self.mlp = nn.LayerNorm(d), MLP(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))  # (B, T, d)
        x = x + self.mlp(self.norm2(x))  # (B, T, d)
        return x


# --8<-- [end:prenorm]


# --8<-- [start:postnorm]
class PostNormBlock(PreNormBlock):
    """The 2017 placement: normalise after each addition, rescaling the stream twice."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm1(x + self.attn(x))  # (B, T, d)
        x = self.norm2(x + self.mlp(x))  # (B, T, d)
        return x


# --8<-- [end:postnorm]


def zero_output_projections(block: PreNormBlock) -> PreNormBlock:
    """Zero the weight and bias of both sublayers' last Linear, so each branch outputs exactly 0."""
    for layer in (block.attn.out, block.mlp.out):
        nn.init.zeros_(layer.weight)
        nn.init.zeros_(layer.bias)
    return block


def parameters(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def by_hand(block: PreNormBlock, x: torch.Tensor, causal: bool = True) -> torch.Tensor:
    """x' = x + Attn(LN1(x)), x'' = x' + MLP(LN2(x')), written out in float64 from the weights.

    Independent of the modules' forward: explicit layer norm, per-head attention with its own mask
    and softmax, and GELU from erf.
    """
    w = {name: p.detach().double() for name, p in block.named_parameters()}
    x = x.double()

    def layer_norm(h: torch.Tensor, n: str) -> torch.Tensor:
        mean = h.mean(-1, keepdim=True)
        var = ((h - mean) ** 2).mean(-1, keepdim=True)
        return (h - mean) / torch.sqrt(var + 1e-5) * w[f"{n}.weight"] + w[f"{n}.bias"]

    def attention(h: torch.Tensor) -> torch.Tensor:
        T, d = h.shape[1:]
        dh = d // block.attn.heads
        q, k, v = (h @ w["attn.qkv.weight"].T + w["attn.qkv.bias"]).split(d, dim=-1)
        heads = []
        for i in range(block.attn.heads):
            cols = slice(i * dh, (i + 1) * dh)
            s = torch.einsum("btc,bsc->bts", q[..., cols], k[..., cols]) / dh**0.5
            if causal:
                s = s + torch.full((T, T), float("-inf"), dtype=s.dtype).triu(1)
            e = torch.exp(s - s.max(-1, keepdim=True).values)
            heads.append(
                torch.einsum("bts,bsc->btc", e / e.sum(-1, keepdim=True), v[..., cols])
            )
        return torch.cat(heads, -1) @ w["attn.out.weight"].T + w["attn.out.bias"]

    def mlp(h: torch.Tensor) -> torch.Tensor:
        u = h @ w["mlp.up.weight"].T + w["mlp.up.bias"]
        u = 0.5 * u * (1 + torch.erf(u / 2**0.5))
        return u @ w["mlp.out.weight"].T + w["mlp.out.bias"]

    h = x + attention(layer_norm(x, "norm1"))
    return h + mlp(layer_norm(h, "norm2"))


@dataclass(frozen=True)
class Result:
    """What the page says about one pre-norm and one post-norm block of width d."""

    d: int
    heads: int
    input_shape: list[int]
    output_shape: list[int]
    prenorm_zeroed_is_identity: bool
    postnorm_zeroed_is_identity: bool
    postnorm_zeroed_max_change: float
    block_parameters: int
    sublayer_and_norm_parameters: int
    formula_parameters: int  # 12 d² + 13 d
    two_updates_equal: bool  # block(x) == the two equations computed by hand
    postnorm_matches_equations: (
        bool  # the post-norm block against the same pre-norm equations
    )
    causal_prefix_unchanged: (
        bool  # editing the last token leaves outputs at earlier positions equal
    )
    causal_last_changed: bool
    projected_parameters: int  # the block plus two learned d×d shortcut projections
    by_hand_error: float  # float64 block against by_hand, max |difference|
    postnorm_by_hand_error: (
        float  # float64 post-norm block against the same pre-norm by_hand
    )
    noncausal_prefix_unchanged: bool  # the hand-written block without its mask
    noncausal_last_changed: bool


def measure(
    device: str = "cpu",
    seed: int = 0,
    d: int = 32,
    heads: int = 4,
    batch: int = 2,
    T: int = 8,
) -> Result:
    """Push one batch through both blocks, zero their output projections, count parameters."""
    torch.manual_seed(seed)
    x = torch.randn(batch, T, d, device=device)  # (B, T, d)
    pre, post = PreNormBlock(d, heads).to(device), PostNormBlock(d, heads).to(device)
    with torch.no_grad():
        y = pre(x)
        h = x + pre.attn(pre.norm1(x))
        unrolled = h + pre.mlp(pre.norm2(h))
        h_post = x + post.attn(post.norm1(x))
        post_matches = torch.equal(post(x), h_post + post.mlp(post.norm2(h_post)))
        edited = x.clone()
        edited[:, -1] += 1.0
        y_edited = pre(edited)
        pre64, post64, x64 = pre.double(), post.double(), x.double()
        hand_error = (pre64(x64) - by_hand(pre64, x64)).abs().max().item()
        post_hand_error = (post64(x64) - by_hand(post64, x64)).abs().max().item()
        free, free_edited = (
            by_hand(pre64, x64, causal=False),
            by_hand(pre64, edited, causal=False),
        )
        pre, post = pre64.float(), post64.float()
        projected = (
            parameters(pre) + parameters(nn.Linear(d, d)) + parameters(nn.Linear(d, d))
        )
        zero_output_projections(pre)
        zero_output_projections(post)
        pre_zero, post_zero = pre(x), post(x)
    sub = (
        parameters(pre.attn)
        + parameters(pre.mlp)
        + parameters(pre.norm1)
        + parameters(pre.norm2)
    )
    return Result(
        d=d,
        heads=heads,
        input_shape=list(x.shape),
        output_shape=list(y.shape),
        prenorm_zeroed_is_identity=torch.equal(pre_zero, x),
        postnorm_zeroed_is_identity=torch.equal(post_zero, x),
        postnorm_zeroed_max_change=(post_zero - x).abs().max().item(),
        block_parameters=parameters(pre),
        sublayer_and_norm_parameters=sub,
        formula_parameters=12 * d * d + 13 * d,
        two_updates_equal=torch.equal(y, unrolled),
        postnorm_matches_equations=post_matches,
        causal_prefix_unchanged=torch.equal(y[:, :-1], y_edited[:, :-1]),
        causal_last_changed=not torch.equal(y[:, -1], y_edited[:, -1]),
        projected_parameters=projected,
        by_hand_error=hand_error,
        postnorm_by_hand_error=post_hand_error,
        noncausal_prefix_unchanged=torch.equal(free[:, :-1], free_edited[:, :-1]),
        noncausal_last_changed=not torch.equal(free[:, -1], free_edited[:, -1]),
    )


if __name__ == "__main__":
    print(measure())
