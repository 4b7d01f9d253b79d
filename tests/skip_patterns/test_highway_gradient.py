"""Claims of "Other skip patterns" about how the gradient splits inside a highway block."""

import pytest
import torch

from snippets.skip_patterns import highway_gradient as snippet

PAGE = "module/skip-patterns.md"


@pytest.fixture(scope="module")
def results(device):
    return [snippet.measure(device, seed=s) for s in range(5)]


@pytest.mark.claim(
    "At T = 0.5 (W_T = 0, b_T = 0) the carry path hands x exactly g/2, bit for bit (autograd through the block "
    "with H zeroed), and the gate term vanishes; a residual block with its branch zeroed hands x all of g. "
    "Over 5 seeds.",
    page=PAGE,
)
def test_half_open_gate_carries_half_the_gradient(claim, results):
    def carries_half(grad: torch.Tensor, g: torch.Tensor) -> None:
        assert torch.equal(grad, g / 2), (grad - g / 2).abs().max()

    def carries_all(grad: torch.Tensor, g: torch.Tensor) -> None:
        assert torch.equal(grad, g), (grad - g).abs().max()

    for r in results:
        claim.check(carries_half, r.half_carry_autograd, r.g)
        claim.check(carries_all, r.residual_zero_branch_autograd, r.g)
        assert torch.equal(r.half_gate_path, torch.zeros_like(r.g)), r.half_gate_path.abs().max()
        assert torch.equal(r.residual_shortcut, r.g)
        # With H left in, autograd's gradient is the carry and transform paths of the hand split.
        torch.testing.assert_close(r.half_autograd, r.half["carry"] + r.half["transform"], rtol=0, atol=1e-12)
    r = results[0]
    claim.rejects(carries_half, r.residual_zero_branch_autograd, r.g, because="the zeroed residual block")
    claim.rejects(carries_all, r.half_carry_autograd, r.g, because="the half-open highway block")
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
    "gets only the first two.",
    page=PAGE,
)
def test_highway_gradient_is_carry_plus_transform_plus_gate(claim, results):
    atol = 1e-12

    def adds_up(autograd: torch.Tensor, terms: dict) -> None:
        torch.testing.assert_close(autograd, sum(terms.values()), rtol=0, atol=atol)

    for r in results:
        claim.check(adds_up, r.random_autograd, r.random)
        # A block whose gate reads x detached gets the carry and transform paths, and no gate path.
        torch.testing.assert_close(r.blind_autograd, r.blind["carry"] + r.blind["transform"], rtol=0, atol=atol)
    r = results[0]
    claim.rejects(
        adds_up,
        r.blind_autograd,
        r.blind,
        because="the same weights with the gate reading x detached (autograd), against the three terms",
    )
    errors = [(x.random_autograd - sum(x.random.values())).abs().max().item() for x in results]
    claim.record(
        max_error=max(errors),
        blind_gate_error=(r.blind_autograd - sum(r.blind.values())).abs().max().item(),
        norms={k: v.norm().item() for k, v in r.random.items()},
        g_norm=r.g.norm().item(),
        t_min=r.random_t.min().item(),
        t_max=r.random_t.max().item(),
        atol=atol,
        seeds=len(results),
    )
