"""Claims of "Other skip patterns" about how the gradient splits inside a highway block."""

import pytest
import torch

from sitekit.margins import below
from snippets.skip_patterns import highway_gradient as snippet

PAGE = "module/skip-patterns.md"
ATOL = 1e-12  # float64 rounding of sums of d = 32 products of order 1


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def max_error(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a - b).abs().max().item()


@pytest.mark.claim(
    "At T = 0.5 (W_T = 0, b_T = 0) the carry path hands x exactly g/2, bit for bit (autograd through the block "
    "with H zeroed), and the gate term vanishes; a residual block with its branch zeroed hands x all of g.",
    page=PAGE,
    exact="autograd's gradient is torch.equal to g/2 (highway, H zeroed) and to g (residual, branch zeroed); "
    "the gate path is exactly zero",
)
def test_half_open_gate_carries_half_the_gradient(claim, results):
    # Every seed of the shared fixture is checked, but the outcome cannot depend on the seed: 1 − σ(0) is exactly
    # 0.5 and halving a float is exact, so the sentence claims no seeds.
    def carries_half(grads: list[torch.Tensor], gs: list[torch.Tensor]) -> None:
        for grad, g in zip(grads, gs, strict=True):
            assert torch.equal(grad, g / 2), (grad - g / 2).abs().max()

    def carries_all(grads: list[torch.Tensor], gs: list[torch.Tensor]) -> None:
        for grad, g in zip(grads, gs, strict=True):
            assert torch.equal(grad, g), (grad - g).abs().max()

    gs = [r.g for r in results]
    half_carry = [r.half_carry_autograd for r in results]
    residual_zero = [r.residual_zero_branch_autograd for r in results]
    claim.check(carries_half, half_carry, gs)
    claim.check(carries_all, residual_zero, gs)
    for r in results:
        assert torch.equal(r.half_gate_path, torch.zeros_like(r.g)), r.half_gate_path.abs().max()
        assert torch.equal(r.residual_shortcut, r.g)
        # With H left in, autograd's gradient is the carry and transform paths of the hand split.
        torch.testing.assert_close(r.half_autograd, r.half["carry"] + r.half["transform"], rtol=0, atol=ATOL)
    claim.rejects(carries_half, residual_zero, gs, because="the zeroed residual block")
    claim.rejects(carries_all, half_carry, gs, because="the half-open highway block")
    r = results[0]
    claim.record(
        g_norm=r.g.norm().item(),
        carry_norm=r.half["carry"].norm().item(),
        transform_norm=r.half["transform"].norm().item(),
        carry_autograd_norm=r.half_carry_autograd.norm().item(),
        carry_share=sorted(set((r.half_carry_autograd / r.g).tolist())),
        gate_path_max=max(x.half_gate_path.abs().max().item() for x in results),
        seeds=len(results),
    )


@pytest.mark.claim(
    "With a learned gate, ∂L/∂x = g⊙(1 − T) + (g⊙T)·J_H + (g⊙(H − x)⊙T⊙(1 − T))·W_T: the three paths add up "
    "to autograd's gradient to 1e-12 (float64), over 5 seeds. The same block with its gate reading x detached "
    "gets only the carry and transform paths.",
    page=PAGE,
    exact="the float64 sum of the three paths equals autograd's gradient to rounding (every entry within 1e-12)",
)
def test_highway_gradient_is_carry_plus_transform_plus_gate(claim, results):
    def adds_up(autograd: list[torch.Tensor], terms: list[dict]) -> None:
        errors = [max_error(a, sum(t.values())) for a, t in zip(autograd, terms, strict=True)]
        below("max |autograd − (carry + transform + gate)|", errors, ATOL)

    claim.check(adds_up, [r.random_autograd for r in results], [r.random for r in results])
    # A block whose gate reads x detached gets the carry and transform paths, and no gate path.
    for r in results:
        torch.testing.assert_close(r.blind_autograd, r.blind["carry"] + r.blind["transform"], rtol=0, atol=ATOL)
    claim.rejects(
        adds_up,
        [r.blind_autograd for r in results],
        [r.blind for r in results],
        because="the same weights with the gate reading x detached (autograd), against the three terms",
    )
    errors = [max_error(x.random_autograd, sum(x.random.values())) for x in results]
    r = results[0]
    claim.record(
        max_error=max(errors),
        blind_gate_error=max_error(r.blind_autograd, sum(r.blind.values())),
        norms={k: v.norm().item() for k, v in r.random.items()},
        g_norm=r.g.norm().item(),
        t_min=r.random_t.min().item(),
        t_max=r.random_t.max().item(),
        atol=ATOL,
        seeds=len(results),
    )
