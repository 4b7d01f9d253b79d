"""Claims of the encyclopedia entry about the mechanism behind the pre-norm gradient profile."""

import statistics

import pytest
import torch

from snippets.encyclopedia import prenorm_gradient as snippet

PAGE = "encyclopedia/residual-stream.md"


@pytest.fixture(scope="module")
def r(device):
    """Five seeds of both 24-block stacks, shared by every claim below."""
    return snippet.measure(device, seed=0, seeds=5)


def affine_fit(squares: list[float]) -> tuple[float, float, float]:
    """Least-squares a + b·l through ‖x_l‖², l = 0..L, and its R²."""
    y = torch.tensor(squares, dtype=torch.float64)
    ell = torch.arange(len(squares), dtype=torch.float64)
    A = torch.stack([torch.ones_like(ell), ell], dim=1)
    (a, b) = torch.linalg.lstsq(A, y.unsqueeze(1)).solution.squeeze(1).tolist()
    residual = y - (a + b * ell)
    r2 = 1 - (residual.square().sum() / (y - y.mean()).square().sum()).item()
    return a, b, r2


MARGIN = 0.1  # how close √(a + b·l) comes to √(b·l) from the recorded block on


@pytest.mark.claim(
    "In the 24-block pre-norm stack the stream gradient ‖∂loss/∂x_l‖ falls toward the output (the 4 blocks "
    "nearest it get under 0.6× the 4 nearest the input, every one of 5 seeds), and each block's last-MLP weight "
    "gradient divided by it varies under 1.5× across depth (median profile) while the gradient itself varies "
    "over 2×.",
    page=PAGE,
)
def test_prenorm_weight_gradient_tracks_the_stream_gradient(claim, r):
    def tracks(end_ratios: list[float], g: list[float], w: list[float]) -> None:
        assert all(q < 0.6 for q in end_ratios), end_ratios
        per = [a / b for a, b in zip(w, g, strict=True)]
        assert max(per) / min(per) < 1.5 and max(g) / min(g) > 2, (per, g)

    claim.check(tracks, r.end_ratio("pre", "g"), r.median("pre", "g"), r.median("pre", "weight"))
    claim.rejects(
        tracks, r.end_ratio("post", "g"), r.median("post", "g"), r.median("post", "weight"), because="post-norm"
    )
    g, w = r.median("pre", "g"), r.median("pre", "weight")
    per = [a / b for a, b in zip(w, g, strict=True)]
    claim.record(
        bounds={"blocks at each end": 4, "end ratio under": 0.6, "ratio varies under": 1.5, "gradient over": 2},
        seeds=r.seeds,
        L=r.L,
        g_end_ratio=statistics.median(r.end_ratio("pre", "g")),
        weight_end_ratio=statistics.median(r.end_ratio("pre", "weight")),
        g_spread=max(g) / min(g),
        per_spread=max(per) / min(per),
        post_g_end_ratio=statistics.median(r.end_ratio("post", "g")),
    )


@pytest.mark.claim(
    "Block by block, the pre-norm stream gradient's growth toward the input, ‖g_(l−1)‖²/‖g_l‖² − 1, spans more "
    "than 10× across the stack but times ‖x_(l−1)‖² stays within 3× (each of 5 seeds): the growth goes as "
    "1/‖x‖², the scale LayerNorm puts into each block's Jacobian.",
    page=PAGE,
)
def test_prenorm_gradient_growth_per_block_goes_as_inverse_stream_square(claim, r):
    def inverse_square(runs: list[list[tuple[float, float]]]) -> None:
        for pairs in runs:
            growth = [q for q, _ in pairs]
            scaled = [q * n for q, n in pairs]
            assert min(growth) > 0 and max(growth) / min(growth) > 10, growth
            assert max(scaled) / min(scaled) < 3, scaled

    claim.check(inverse_square, r.gains("pre"))
    claim.rejects(inverse_square, r.gains("post"), because="the post-norm stack, whose stream stays at √d")
    growth = [max(q for q, _ in p) / min(q for q, _ in p) for p in r.gains("pre")]
    scaled = [max(q * n for q, n in p) / min(q * n for q, n in p) for p in r.gains("pre")]
    claim.record(
        bounds={"growth spans over": 10, "scaled within": 3},
        seeds=r.seeds,
        growth_spread_min=min(growth),
        scaled_spread_max=max(scaled),
        first_growth=statistics.median(p[0][0] for p in r.gains("pre")),
        last_growth=statistics.median(p[-1][0] for p in r.gains("pre")),
    )


@pytest.mark.claim(
    "The pre-norm stream's squared norm is affine in depth, ‖x_l‖² ≈ a + b·l with R² above 0.99 in each of 5 "
    "seeds, so ‖x_l‖ ≈ √(b·l) once l ≫ a/b; the post-norm stream has no such slope.",
    page=PAGE,
)
def test_prenorm_squared_stream_norm_is_affine_in_depth(claim, r):
    def affine(runs: list[list[float]]) -> None:
        for squares in runs:
            a, b, r2 = affine_fit(squares)
            assert r2 > 0.99 and b > 1.0, (a, b, r2)

    claim.check(affine, r.squares("pre"))
    claim.rejects(affine, r.squares("post"), because="the post-norm stack")
    fits = [affine_fit(s) for s in r.squares("pre")]
    a = statistics.median(f[0] for f in fits)
    b = statistics.median(f[1] for f in fits)
    a_over_b = statistics.median(f[0] / f[1] for f in fits)
    claim.record(
        seeds=r.seeds,
        a=a,
        b=b,
        a_over_b=a_over_b,
        r2_min=min(f[2] for f in fits),
        within_10pct_from=a_over_b / ((1 + MARGIN) ** 2 - 1),  # √(a + b·l) ≤ (1 + MARGIN)·√(b·l) from here on
        margin=MARGIN,
    )
