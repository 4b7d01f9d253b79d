"""Claims of the encyclopedia entry's derivation: each equation checked numerically in float64."""

import pytest
import torch

from sitekit.margins import below
from snippets.encyclopedia import derivation as snippet

PAGE = "encyclopedia/residual-stream.md"
ATOL = 1e-12  # float64 rounding of a few products of 8×8 matrices


@pytest.fixture(scope="module")
def runs(device, seeds):
    """Five random stacks of L = 4 branches, d = 8, shared by every claim below."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def max_errors(xs: list[torch.Tensor], ys: list[torch.Tensor]) -> list[float]:
    """max |x − y| entry by entry, one per seed."""
    return [(x - y).abs().max().item() for x, y in zip(xs, ys, strict=True)]


@pytest.mark.claim(
    "Writing a plain block H as x + f(x) with f = H − id reproduces H(x) to float64 rounding (every entry "
    "within 1e-15).",
    page=PAGE,
    identity="x + (H(x) − x) is H(x) in exact arithmetic, whatever H is; float64 leaves two roundings of "
    "each entry (H here is one random branch with no shortcut, so the block is a plain one)",
)
def test_reparameterised_block_equals_plain_block(claim, runs):
    rounding = 1e-15

    def within_rounding(errors: list[float]) -> None:
        below("max |H(x) − (x + f(x))|", errors, rounding)

    claim.check(within_rounding, [r.reparam_error for r in runs])
    claim.record(max_error=max(r.reparam_error for r in runs), draws=len(runs))


@pytest.mark.claim(
    "Autograd's Jacobian of a stack of L residual blocks equals (I + J_{L−1})···(I + J_0) to 1e-12 (float64), "
    "over 5 seeds.",
    page=PAGE,
    exact="the chain rule: autograd's float64 Jacobian equals the product of the blocks' I + J_k to float64 "
    "rounding (every entry within 1e-12)",
)
def test_stack_jacobian_is_product_of_identity_plus_branch_jacobians(claim, runs):
    def matches(autograd: list[torch.Tensor], product: list[torch.Tensor]) -> None:
        below("max |autograd − ∏ (I + J_k)|", max_errors(autograd, product), ATOL)

    autograd = [r.autograd for r in runs]
    claim.check(matches, autograd, [r.product for r in runs])
    claim.rejects(
        matches, autograd, [r.plain_product for r in runs], because="the plain product J_{L−1}···J_0, no identity terms"
    )
    claim.rejects(
        matches,
        autograd,
        [r.reversed_product for r in runs],
        because="the same factors multiplied in the wrong order",
    )
    r = runs[0]
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
    exact="the distributive law: the 2^L ordered products sum to the product to float64 rounding (every entry "
    "within 1e-12), and the empty subset's term is torch.equal to I",
)
def test_product_expands_into_sum_over_subsets(claim, runs):
    def matches(product: list[torch.Tensor], paths: list[dict[tuple[int, ...], torch.Tensor]]) -> None:
        path_sums = [torch.stack(list(terms.values())).sum(0) for terms in paths]  # Σ over subsets S
        below("max |Σ over subsets − product|", max_errors(path_sums, product), ATOL)

    for r in runs:
        assert len(r.paths) == 2**r.L
        assert torch.equal(r.paths[()], torch.eye(r.d, dtype=torch.float64, device=r.product.device))
    # The plain stack, run through autograd, is its own path through every block, and nothing else.
    plain_full = [r.plain_paths[tuple(range(r.L))] for r in runs]
    below("max |plain autograd − its every-block path|", max_errors([r.plain_autograd for r in runs], plain_full), ATOL)
    claim.check(matches, [r.product for r in runs], [r.paths for r in runs])
    claim.rejects(
        matches,
        [r.plain_autograd for r in runs],
        [r.plain_paths for r in runs],
        because="a plain stack of the same branches (autograd) against the sum over subsets of its own J_k",
    )
    r = runs[0]
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
    exact="with zero branches each block's Jacobian is I + 0, so the stack's is torch.equal to I",
)
def test_zero_branches_make_stack_jacobian_exactly_identity(claim, runs):
    def is_identity(Js: list[torch.Tensor]) -> None:
        for J in Js:
            assert torch.equal(J, torch.eye(J.shape[0], dtype=J.dtype, device=J.device))

    claim.check(is_identity, [r.zero_branch_jacobian for r in runs])
    claim.rejects(
        is_identity, [r.zero_branch_plain_jacobian for r in runs], because="a plain stack of the same zeroed branches"
    )
    claim.record(
        seeds=len(runs),
        plain_jacobian_max=runs[0].zero_branch_plain_jacobian.abs().max().item(),
    )
