"""Claims of the encyclopedia entry's derivation: each equation checked numerically in float64."""

import pytest
import torch

from snippets.encyclopedia import derivation as snippet

PAGE = "encyclopedia/residual-stream.md"
SEEDS = range(5)
ATOL = 1e-12  # float64 rounding of a few products of 8×8 matrices


@pytest.fixture(scope="module")
def runs(device):
    """Five random stacks of L = 4 branches, d = 8, shared by every claim below."""
    return [snippet.measure(device, seed=s) for s in SEEDS]


@pytest.mark.claim(
    "Writing a block as x + f(x) with f = H − id reproduces H(x) to float64 rounding (1e-15), over 5 seeds.",
    page=PAGE,
)
def test_reparameterised_block_equals_plain_block(claim, runs):
    rounding = 1e-15

    def within_rounding(error: float) -> None:
        assert error <= rounding, error

    for r in runs:
        claim.check(within_rounding, r.reparam_error)
    claim.rejects(within_rounding, runs[0].reparam_without_subtraction_error, because="x + H(x), without subtracting x")
    claim.record(max_error=max(r.reparam_error for r in runs), seeds=len(runs), tolerance=rounding)


@pytest.mark.claim(
    "Autograd's Jacobian of a stack of L residual blocks equals (I + J_{L−1})···(I + J_0) to 1e-12 (float64), "
    "over 5 seeds.",
    page=PAGE,
)
def test_stack_jacobian_is_product_of_identity_plus_branch_jacobians(claim, runs):
    def matches(autograd: torch.Tensor, product: torch.Tensor) -> None:
        torch.testing.assert_close(autograd, product, rtol=0, atol=ATOL)

    for r in runs:
        claim.check(matches, r.autograd, r.product)
    r = runs[0]
    claim.rejects(matches, r.autograd, r.plain_product, because="the plain product J_{L−1}···J_0, no identity terms")
    claim.rejects(matches, r.autograd, r.reversed_product, because="the same factors multiplied in the wrong order")
    claim.record(
        d=r.d,
        L=r.L,
        seeds=len(runs),
        max_error=max((x.autograd - x.product).abs().max().item() for x in runs),
        plain_error=(r.autograd - r.plain_product).abs().max().item(),
        atol=ATOL,
    )


@pytest.mark.claim(
    "Expanded over all 2^L subsets of blocks (16 for L = 4), the sum of ordered products equals the product "
    "to 1e-12 (float64), over 5 seeds; the empty subset contributes I. A plain stack of the same branches has "
    "only the term with every block in it.",
    page=PAGE,
)
def test_product_expands_into_sum_over_subsets(claim, runs):
    def matches(product: torch.Tensor, path_sum: torch.Tensor) -> None:
        torch.testing.assert_close(path_sum, product, rtol=0, atol=ATOL)

    for r in runs:
        assert len(r.paths) == 2**r.L
        assert torch.equal(r.paths[()], torch.eye(r.d, dtype=torch.float64, device=r.product.device))
        claim.check(matches, r.product, r.path_sum)
        # The plain stack, run through autograd, is its own path through every block, and nothing else.
        every_block = tuple(range(r.L))
        torch.testing.assert_close(r.plain_autograd, r.plain_paths[every_block], rtol=0, atol=ATOL)
    r = runs[0]
    claim.rejects(
        matches,
        r.plain_autograd,
        r.plain_path_sum,
        because="a plain stack of the same branches (autograd) against the sum over subsets of its own J_k",
    )
    claim.record(
        L=r.L,
        subsets=len(r.paths),
        max_error=max((x.product - x.path_sum).abs().max().item() for x in runs),
        plain_full_path_error=max(
            (x.plain_autograd - x.plain_paths[tuple(range(x.L))]).abs().max().item() for x in runs
        ),
        plain_path_sum_error=(r.plain_autograd - r.plain_path_sum).abs().max().item(),
        orders=r.order_table(),
        atol=ATOL,
        seeds=len(runs),
    )


@pytest.mark.claim(
    "With every branch's last layer zeroed, the stack's Jacobian is exactly I (torch.equal), over 5 seeds.",
    page=PAGE,
)
def test_zero_branches_make_stack_jacobian_exactly_identity(claim, runs):
    def is_identity(J: torch.Tensor) -> None:
        assert torch.equal(J, torch.eye(J.shape[0], dtype=J.dtype, device=J.device))

    for r in runs:
        claim.check(is_identity, r.zero_branch_jacobian)
    claim.rejects(is_identity, runs[0].zero_branch_plain_jacobian, because="a plain stack of the same zeroed branches")
    claim.record(
        seeds=len(runs),
        plain_jacobian_max=runs[0].zero_branch_plain_jacobian.abs().max().item(),
    )
