"""Claims of "The gradient highway" about the backward rule of the + node."""

import pytest

from snippets.gradient_highway import add_node as snippet

PAGE = "module/gradient-highway.md"


# An identity, run once: the hand-written Add returns (g, g), and torch's + hands on grad unchanged by its
# derivative's definition, so no seed could make either differ from g. The * node is a real run of another
# backward rule, kept to show that the bit-for-bit test does tell gradients apart.
@pytest.mark.claim(
    "The + node hands the upstream gradient to both operands unchanged: bit-for-bit equal, for torch's + "
    "and for a hand-written Add.",
    page=PAGE,
    identity="Add.backward returns (g, g), and torch's derivative of add.Tensor is grad for self and "
    "maybe_multiply(grad, alpha) for other, which returns grad itself at alpha = 1 (tools/autograd/"
    "derivatives.yaml): both hand each operand g by definition",
)
def test_add_node_passes_upstream_gradient_unchanged(claim, device, seeds):
    r = snippet.measure(device, seed=seeds.first())

    def all_exact(exact: list[bool]) -> None:
        assert all(exact), exact

    claim.check(all_exact, [r.torch_add_exact, r.custom_add_exact])
    claim.rejects(all_exact, [r.mul_exact], because="a * node, which scales g by the other operand")
    claim.record(mul_max_deviation=r.mul_max_deviation)
