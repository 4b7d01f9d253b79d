"""Common-mistakes claims about a LayerNorm on the shortcut, y = LN(x) + F(x) (5 seeds)."""

import statistics

import pytest
import torch

from snippets.mistakes import norm_on_shortcut as snippet

PAGE = "module/common-mistakes.md"
SEEDS = range(5)
BAD = "norm on shortcut"


@pytest.fixture(scope="module")
def results(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


@pytest.mark.claim(
    "With its branch zeroed, a pre-norm block returns x bit for bit, while LN(x) + F(x) returns LN(x): on a "
    "stream of standard deviation 3 the largest entry moves by more than half, for 5 seeds.",
    page=PAGE,
)
def test_norm_on_shortcut_is_not_identity_with_zero_branch(claim, results):
    def identity(equal: bool, deviation: float) -> None:
        assert equal and deviation == 0.0, deviation

    def far_from_identity(equal: bool, deviation: float) -> None:
        assert not equal and deviation > 0.5, deviation

    for r in results:
        claim.check(identity, r.zero_equal["pre-norm"], r.zero_deviation["pre-norm"])
        claim.check(far_from_identity, r.zero_equal[BAD], r.zero_deviation[BAD])
        assert r.zero_deviation["post-norm"] == r.zero_deviation[BAD]  # both compute LN(x)
    r = results[0]
    claim.rejects(identity, r.zero_equal[BAD], r.zero_deviation[BAD], because="LN on the shortcut")
    claim.rejects(
        far_from_identity, r.zero_equal["pre-norm"], r.zero_deviation["pre-norm"], because="the pre-norm block"
    )
    claim.record(
        scale=results[0].scale,
        deviation=spread([r.zero_deviation[BAD] for r in results]),
        seeds=len(results),
    )


@pytest.mark.claim(
    "The Jacobian of LayerNorm, the shortcut's Jacobian in LN(x) + F(x), is not I: two of its d eigenvalues "
    "are (near) zero and the other d − 2 all equal 1/σ of the vector it normalises, for 5 seeds.",
    page=PAGE,
)
def test_layernorm_shortcut_jacobian_is_scaled_projection(claim, results):
    def scaled_projection(eigenvalues: list[float], inv_sigma: float) -> None:
        eig = torch.tensor(eigenvalues, dtype=torch.float64)
        assert eig[:2].abs().max().item() < 1e-4 * inv_sigma, eig[:3]
        torch.testing.assert_close(eig[2:], torch.full_like(eig[2:], inv_sigma), rtol=1e-5, atol=0.0)

    for r in results:
        claim.check(scaled_projection, r.eigenvalues, 1 / r.sigma)
    r = results[0]
    claim.rejects(
        scaled_projection, r.identity_eigenvalues, 1 / r.sigma, because="the pre-norm block's identity shortcut"
    )
    claim.record(
        seeds=len(results),
        identity_eigenvalues=[min(r.identity_eigenvalues), max(r.identity_eigenvalues)],
        d=r.d,
        inv_sigma=1 / r.sigma,
        smallest=r.eigenvalues[:2],
        largest=r.eigenvalues[-1],
        sigma=r.sigma,
    )


@pytest.mark.claim(
    "Through a 20-block stack with zeroed branches, a pre-norm stack hands the input exactly the upstream "
    "gradient, while with LN on the shortcut (or post-norm) it arrives scaled by about 1/σ of the input "
    "stream (within 25%), for 5 seeds.",
    page=PAGE,
)
def test_norm_on_stream_scales_input_gradient_by_inverse_sigma(claim, results):
    within = 0.25

    def scaled_by_inverse_sigma(ratio: float, scale: float) -> None:
        assert abs(ratio * scale - 1) < within, ratio * scale

    def unscaled(ratio: float) -> None:
        assert ratio == 1.0, ratio

    for r in results:
        claim.check(unscaled, r.zero_grad_ratio["pre-norm"])
        claim.check(scaled_by_inverse_sigma, r.zero_grad_ratio[BAD], r.scale)
        claim.check(scaled_by_inverse_sigma, r.zero_grad_ratio["post-norm"], r.scale)
    claim.rejects(unscaled, results[0].zero_grad_ratio[BAD], because="LN on the shortcut")
    claim.rejects(scaled_by_inverse_sigma, results[0].zero_grad_ratio["pre-norm"], results[0].scale, because="pre-norm")
    rows = []
    for name in snippet.KINDS:
        g = spread([r.zero_grad_ratio[name] for r in results])
        d = spread([r.grad_ratio[name] for r in results])
        s = spread([r.stream_ratio[name] for r in results])
        rows.append([name, g["median"], d["median"], s["median"]])
    claim.record(
        depth=results[0].depth,
        scale=results[0].scale,
        table={
            "columns": ["stack", "gradient ratio, zeroed branches", "gradient ratio, default init", "‖h_L‖ / ‖x‖"],
            "rows": rows,
        },
        shortcut_zero=spread([r.zero_grad_ratio[BAD] for r in results]),
        seeds=len(results),
        tolerance=within,
    )
