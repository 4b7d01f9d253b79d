"""Claims of "The gradient highway" about the backward rule of the + node."""

import pytest

from snippets.gradient_highway import add_node as snippet

PAGE = "module/gradient-highway.md"


@pytest.mark.claim(
    "The + node hands the upstream gradient to both operands unchanged: bit-for-bit equal, for torch's + "
    "and for a hand-written Add, over 5 seeds.",
    page=PAGE,
    exact="torch's + and the hand-written Add hand both operands g itself (torch.equal, bit-for-bit)",
)
def test_add_node_passes_upstream_gradient_unchanged(claim, device, seeds):
    results = [snippet.measure(device, seed=s) for s in seeds(5)]

    def all_exact(exact: list[bool]) -> None:
        assert all(exact), exact

    claim.check(all_exact, [r.torch_add_exact for r in results] + [r.custom_add_exact for r in results])
    claim.rejects(all_exact, [r.mul_exact for r in results], because="a * node, which scales g by the other operand")
    claim.record(seeds=len(results), mul_max_deviation=results[0].mul_max_deviation)
