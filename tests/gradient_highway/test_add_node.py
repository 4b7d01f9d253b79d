"""Claims of "The gradient highway" about the backward rule of the + node."""

import pytest

from snippets.gradient_highway import add_node as snippet

PAGE = "module/gradient-highway.md"


@pytest.mark.claim(
    "The + node hands the upstream gradient to both operands unchanged: bit-for-bit equal, for torch's + "
    "and for a hand-written Add, over 5 seeds.",
    page=PAGE,
)
def test_add_node_passes_upstream_gradient_unchanged(claim, device):
    results = [snippet.measure(device, seed=s) for s in range(5)]

    def both_exact(exact: bool) -> None:
        assert exact

    for r in results:
        claim.check(both_exact, r.torch_add_exact)
        claim.check(both_exact, r.custom_add_exact)
    claim.rejects(both_exact, results[0].mul_exact, because="a * node, which scales g by the other operand")
    claim.record(seeds=len(results), mul_max_deviation=results[0].mul_max_deviation)
