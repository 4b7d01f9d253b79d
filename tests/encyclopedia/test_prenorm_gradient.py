"""Claims of the encyclopedia entry about the mechanism behind the pre-norm gradient profile."""

import inspect
import math
import statistics

import pytest
import torch

from sitekit import runs
from sitekit.margins import above, below
from snippets.encyclopedia import prenorm_gradient as snippet

PAGE = "encyclopedia/residual-stream.md"


@pytest.fixture(scope="module")
def r(device, seeds):
    """Five seeds of both 24-block stacks, shared by every claim below."""
    ids = seeds(5)
    return snippet.measure(device, seed=ids[0], seeds=len(ids))


def affine_fit(squares: list[float]) -> tuple[float, float, float]:
    """Least-squares a + b·l through ‖x_l‖², l = 0..L, and its R²."""
    y = torch.tensor(squares, dtype=torch.float64)
    ell = torch.arange(len(squares), dtype=torch.float64)
    A = torch.stack([torch.ones_like(ell), ell], dim=1)
    (a, b) = torch.linalg.lstsq(A, y.unsqueeze(1)).solution.squeeze(1).tolist()
    residual = y - (a + b * ell)
    r2 = 1 - (residual.square().sum() / (y - y.mean()).square().sum()).item()
    return a, b, r2


def log_log_slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x: the exponent k of y ∝ x^k."""
    u, v = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mu, mv = statistics.fmean(u), statistics.fmean(v)
    return sum((a - mu) * (b - mv) for a, b in zip(u, v, strict=True)) / sum((a - mu) ** 2 for a in u)


def seed_mean(runs: list[list[float]]) -> list[float]:
    """Mean over seeds, position by position."""
    return [statistics.fmean(column) for column in zip(*runs, strict=True)]


MARGIN = 0.1  # how close √(a + b·l) comes to √(b·l) from the recorded block on
# An exponent is asserted within 1/2 of the one the mechanism predicts: nearer it than the neighbouring integer
# exponents (no dependence at all, or twice the power), whatever the corrections of higher order.
EXPONENT_BAND = 0.5


@pytest.mark.claim(
    "In the 24-block pre-norm stack the stream gradient ‖∂loss/∂x_l‖ falls toward the output (the 4 blocks "
    "nearest it get under 0.6× the 4 nearest the input, every one of 5 seeds) and varies over 2× across depth "
    "(median profile), and each block's last-MLP weight gradient tracks it: a log-log least-squares fit over the "
    "blocks gives the weight gradient as ‖∂loss/∂x_l‖^k with k within 1/2 of 1, in each seed.",
    page=PAGE,
)
def test_prenorm_weight_gradient_tracks_the_stream_gradient(claim, r):
    end_under, spread_over, predicted = 0.6, 2, 1  # predicted: the exponent the mechanism below gives

    def tracks(end_ratios: list[float], median_g: list[float], runs: list[dict]) -> None:
        below("‖g‖ of the 4 blocks nearest the output / the 4 nearest the input", end_ratios, end_under)
        above("max / min of the median ‖g_l‖ across depth", max(median_g) / min(median_g), spread_over)
        # The last MLP weight's gradient is Σ_t g_(l,t) h_(l,t)ᵀ and LayerNorm sets the hidden h's scale in every
        # block alike, so it goes as ‖g_l‖ (k = 1).
        k = [log_log_slope(run["g"], run["weight"]) for run in runs]
        below("|k − 1|, k the exponent of ‖∂W_l‖ against ‖g_l‖", [abs(e - predicted) for e in k], EXPONENT_BAND)

    # The end ratios and the median profile are the snippet's Result methods, run on each stack's gradients.
    claim.check(tracks, runs.run(r.end_ratio, "pre", "g"), runs.run(r.median, "pre", "g"), r.runs["pre"])
    claim.rejects(
        tracks,
        runs.run(r.end_ratio, "post", "g"),
        runs.run(r.median, "post", "g"),
        r.runs["post"],
        because="post-norm",
    )
    g, w = r.median("pre", "g"), r.median("pre", "weight")
    per = [a / b for a, b in zip(w, g, strict=True)]
    k = [log_log_slope(run["g"], run["weight"]) for run in r.runs["pre"]]
    claim.record(
        blocks_at_each_end=inspect.signature(type(r).end_ratio).parameters["k"].default,
        predicted_exponent=predicted,
        seeds=r.seeds,
        L=r.L,
        g_end_ratio=statistics.median(r.end_ratio("pre", "g")),
        weight_end_ratio=statistics.median(r.end_ratio("pre", "weight")),
        g_spread=max(g) / min(g),
        per_spread=max(per) / min(per),
        exponent=statistics.median(k),
        exponent_min=min(k),
        exponent_max=max(k),
        post_exponent=statistics.median(log_log_slope(run["g"], run["weight"]) for run in r.runs["post"]),
        post_g_end_ratio=statistics.median(r.end_ratio("post", "g")),
    )


def mean_growth(runs: list[list[tuple[float, float]]]) -> tuple[list[float], list[float]]:
    """Per block l = 2..L, over the seeds: the mean growth ‖g_(l−1)‖²/‖g_l‖² − 1 and the mean ‖x_(l−1)‖²."""
    return seed_mean([[n for _, n in p] for p in runs]), seed_mean([[q for q, _ in p] for p in runs])


@pytest.mark.claim(
    "Block by block, the pre-norm stream gradient's growth toward the input, ‖g_(l−1)‖²/‖g_l‖² − 1, is positive "
    "in each of 5 seeds, and its mean over the seeds goes as a power of ‖x_(l−1)‖² within 1/2 of −1 (log-log "
    "least squares over the blocks): the growth goes as 1/‖x‖², the scale LayerNorm puts into each block's "
    "Jacobian.",
    page=PAGE,
)
def test_prenorm_gradient_growth_per_block_goes_as_inverse_stream_square(claim, r):
    predicted = -1  # the exponent of LayerNorm's 1/σ² in each block's Jacobian

    def inverse_square(runs: list[list[tuple[float, float]]]) -> None:
        for pairs in runs:
            assert min(q for q, _ in pairs) > 0, pairs  # every block enlarges the gradient on its way down
        # J_l reads LN(x_(l−1)), which carries 1/σ = √d/‖x_(l−1)‖, so E‖J_l g‖² ∝ 1/‖x_(l−1)‖² (k = −1); the write's
        # own share of the stream adds corrections of higher order, largest in the first blocks. The law is about
        # the expected growth, and one seed's blocks scatter around it, so the fit is to the mean over the seeds.
        k = log_log_slope(*mean_growth(runs))
        below("|k + 1|, k the exponent of the mean growth against ‖x_(l−1)‖²", abs(k - predicted), EXPONENT_BAND)

    # The per-block growths are the snippet's Result.gains, run on each stack's gradients and streams.
    pre = runs.run(r.gains, "pre")
    claim.check(inverse_square, pre)
    claim.rejects(inverse_square, runs.run(r.gains, "post"), because="the post-norm stack, whose stream stays at √d")
    growth = [max(q for q, _ in p) / min(q for q, _ in p) for p in pre]
    scaled = [max(q * n for q, n in p) / min(q * n for q, n in p) for p in pre]
    per_seed = [log_log_slope([n for _, n in p], [q for q, _ in p]) for p in pre]
    claim.record(
        predicted_exponent=predicted,
        seeds=r.seeds,
        exponent=log_log_slope(*mean_growth(pre)),
        exponent_per_seed=per_seed,
        growth_spread_min=min(growth),
        scaled_spread_max=max(scaled),
        first_growth=statistics.median(p[0][0] for p in pre),
        last_growth=statistics.median(p[-1][0] for p in pre),
    )


@pytest.mark.claim(
    "The pre-norm stream's squared norm, averaged over 5 seeds, is affine in depth, ‖x_l‖² ≈ a + b·l with 1 − R² "
    "below 0.01, so ‖x_l‖ ≈ √(b·l) once l ≫ a/b; the post-norm stream has no such slope.",
    page=PAGE,
)
def test_prenorm_squared_stream_norm_is_affine_in_depth(claim, r):
    # 1 − R² below 0.01 (R² above 0.99, asserted as what the fit leaves unexplained: a margin of 20 % on R² itself
    # would ask for more than 1); b above 1, which the post-norm stream (b ≈ 0) lacks
    unexplained, slope_over = 0.01, 1.0

    def affine(runs: list[list[float]]) -> None:
        # The law is about the expected squared norm: each block adds a write of about the same expected size. One
        # seed's blocks scatter around it, so the fit is to the mean over the seeds.
        _, b, r2 = affine_fit(seed_mean(runs))
        below("1 − R² of the affine fit to the seed-mean ‖x_l‖²", 1 - r2, unexplained)
        above("slope b of the seed-mean ‖x_l‖² per block", b, slope_over)

    # ‖x_l‖² per seed is the snippet's Result.squares, run on each stack's streams.
    squares = runs.run(r.squares, "pre")
    claim.check(affine, squares)
    claim.rejects(affine, runs.run(r.squares, "post"), because="the post-norm stack")
    fits = [affine_fit(s) for s in squares]
    a = statistics.median(f[0] for f in fits)
    b = statistics.median(f[1] for f in fits)
    a_over_b = statistics.median(f[0] / f[1] for f in fits)
    claim.record(
        seeds=r.seeds,
        a=a,
        b=b,
        a_over_b=a_over_b,
        r2_mean=affine_fit(seed_mean(squares))[2],
        r2_min=min(f[2] for f in fits),
        within_10pct_from=a_over_b / ((1 + MARGIN) ** 2 - 1),  # √(a + b·l) ≤ (1 + MARGIN)·√(b·l) from here on
        margin=MARGIN,
    )
