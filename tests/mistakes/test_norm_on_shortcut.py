"""Common-mistakes claims about a LayerNorm on the shortcut, y = LN(x) + F(x) (5 seeds)."""

import statistics

import pytest
import torch

from sitekit.margins import above, below
from snippets.mistakes import norm_on_shortcut as snippet

PAGE = "module/common-mistakes.md"
BAD = "norm on shortcut"


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


@pytest.mark.claim(
    "With its branch zeroed, a pre-norm block returns x bit for bit, while LN(x) + F(x) returns LN(x): on a "
    "stream of standard deviation 3 the largest entry moves by more than half, for 5 seeds.",
    page=PAGE,
)
def test_norm_on_shortcut_is_not_identity_with_zero_branch(claim, results):
    half = 0.5

    def identity(equal: list[bool], deviation: list[float]) -> None:
        assert all(equal) and all(v == 0.0 for v in deviation), deviation

    def far_from_identity(equal: list[bool], deviation: list[float]) -> None:
        assert not any(equal), equal
        above("max |y − x| / max |x|, branch zeroed", deviation, half)

    def kind(name: str) -> tuple[list[bool], list[float]]:
        return [r.zero_equal[name] for r in results], [r.zero_deviation[name] for r in results]

    claim.check(identity, *kind("pre-norm"))
    claim.check(far_from_identity, *kind(BAD))
    assert all(r.zero_deviation["post-norm"] == r.zero_deviation[BAD] for r in results)  # both compute LN(x)
    claim.rejects(identity, *kind(BAD), because="LN on the shortcut")
    claim.rejects(far_from_identity, *kind("pre-norm"), because="the pre-norm block")
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
    # "(near) zero": below 1e-4 of 1/σ; "all equal 1/σ": to a relative 1e-5. LayerNorm's ε = 1e-5 moves both
    # by about ε/σ² (σ ≈ 3 here), rounding in float64 by far less.
    near_zero, equal = 1e-4, 1e-5

    def zeros(values: list[float], sigma: float) -> int:
        """How many eigenvalues are (near) zero: below `near_zero` in units of 1/σ."""
        return sum(abs(v) * sigma < near_zero for v in values)

    def scaled_projection(eigenvalues: list[list[float]], sigmas: list[float]) -> None:
        smallest, others = [], []
        for values, sigma in zip(eigenvalues, sigmas, strict=True):
            eig = torch.tensor(values, dtype=torch.float64) * sigma  # in units of 1/σ
            assert zeros(values, sigma) == 2, eig[:4]  # two of them; the margin below shows they are the smallest
            smallest.append(eig[:2].abs().max().item())
            others.append((eig[2:] - 1).abs().max().item())
        below("two smallest |eigenvalues| · σ", smallest, near_zero)
        below("max |eigenvalue · σ − 1| over the other d − 2", others, equal)

    sigmas = [r.sigma for r in results]
    claim.check(scaled_projection, [r.eigenvalues for r in results], sigmas)
    claim.rejects(
        scaled_projection,
        [r.identity_eigenvalues for r in results],
        sigmas,
        because="the pre-norm block's identity shortcut",
    )
    r = results[0]
    claim.record(
        seeds=len(results),
        identity_eigenvalues=[min(r.identity_eigenvalues), max(r.identity_eigenvalues)],
        d=r.d,
        inv_sigma=1 / r.sigma,
        smallest=r.eigenvalues[:2],
        zero_eigenvalues=zeros(r.eigenvalues, r.sigma),
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

    def scaled_by_inverse_sigma(ratios: list[float], scales: list[float]) -> None:
        off = [abs(q * s - 1) for q, s in zip(ratios, scales, strict=True)]
        below("|‖∂ℒ/∂x‖/‖r‖ · σ − 1|", off, within)

    def unscaled(ratios: list[float]) -> None:
        assert all(q == 1.0 for q in ratios), ratios

    def ratios(name: str) -> list[float]:
        return [r.zero_grad_ratio[name] for r in results]

    scales = [r.scale for r in results]
    claim.check(unscaled, ratios("pre-norm"))
    claim.check(scaled_by_inverse_sigma, ratios(BAD), scales)
    claim.check(scaled_by_inverse_sigma, ratios("post-norm"), scales)
    claim.rejects(unscaled, ratios(BAD), because="LN on the shortcut")
    claim.rejects(scaled_by_inverse_sigma, ratios("pre-norm"), scales, because="pre-norm")
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
    )
