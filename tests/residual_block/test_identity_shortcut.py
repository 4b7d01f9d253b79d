"""Claims of "The residual block" about the identity-shortcut block."""

from dataclasses import dataclass

import pytest
import torch

from sitekit import runs
from sitekit.margins import below
from snippets.residual_block import identity_shortcut as snippet
from snippets.residual_block import projection_shortcut as projection

PAGE = "module/residual-block.md"


@pytest.fixture(scope="module")
def r(device, seeds):
    """One run of the experiment, shared by every claim below."""
    return snippet.measure(device, seed=seeds.first())


def same_shape(input_shape: list[int], output_shape: list[int]) -> None:
    assert input_shape == output_shape, f"{input_shape} != {output_shape}"


# An identity, with no counterfactual: the shape holds with the shortcut removed too (commit b155cf7),
# because the branch alone fixes it. The check guards the listing (a last layer of another width would fail
# it); no alternative block run here would say more about the shortcut.
@pytest.mark.claim(
    "An identity-shortcut block returns a tensor of its input's shape, for expansion 1 and 4.",
    page=PAGE,
    identity="the branch ends in nn.Linear(e·d, d), so F(x) has x's shape (N, d) and so has x + F(x): the "
    "module's definition fixes the shape, with the shortcut or without it",
)
def test_identity_block_output_shape_equals_input_shape(claim, r):
    for e in sorted(r.output_shapes):
        claim.check(same_shape, r.input_shape, r.output_shapes[e])
    claim.record(
        expansions=sorted(r.output_shapes),  # the expansions measure() built
        d=r.d,
        input_shape=r.input_shape,
        output_shape_e1=r.output_shapes[1],
        output_shape_e4=r.output_shapes[4],
        expansion=max(r.output_shapes),
    )


@pytest.fixture(scope="module")
def projected(r, device, seeds) -> dict[int, projection.Result]:
    """The alternative, run: a block of the same width whose shortcut is a learned d×d projection."""
    return {
        e: projection.measure(device, seed=seeds.first(), d_in=r.d, d_out=r.d, expansion=e, batch=r.input_shape[0])
        for e in sorted(r.parameters)
    }


def counts_match(counted: dict[int, int], formula: dict[int, int]) -> None:
    assert counted == formula, f"{counted} != {formula}"


@pytest.mark.claim(
    "The identity shortcut adds no parameters: the block has exactly the branch's 2·e·d² + e·d + d.",
    page=PAGE,
    identity="nn.Identity holds no parameters and nn.Linear(a, b) holds a·b + b, so torch's count of the "
    "block is branch_parameters(d, e) by construction; a projection shortcut, run, adds its d² weights",
)
def test_identity_block_parameters_are_the_branch_alone(claim, r, projected):
    claim.check(counts_match, r.parameters, r.formula)
    assert r.shortcut_parameters == 0
    claim.rejects(
        counts_match,
        {e: p.total_parameters for e, p in projected.items()},
        r.formula,
        because="a block of the same width with a d×d projection shortcut",
    )
    claim.record(
        d=r.d,
        params_e1=r.parameters[1],
        params_e4=r.parameters[4],
        shortcut=r.shortcut_parameters,
        expansion=max(r.parameters),
    )


@dataclass(frozen=True)
class Sums:
    """(x, y, F(x)) for each expansion: the identity-shortcut block, and a block with the same branch (same
    seed, same layers built in the same order) whose shortcut is a d×d projection, y = W_s x + F(x)."""

    identity: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]
    projection: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]


@pytest.fixture(scope="module")
def sums(r, device, seeds) -> Sums:
    seed, batch = seeds.first(), r.input_shape[0]
    identity, projected = [], []
    for e in sorted(r.output_shapes):
        torch.manual_seed(seed)
        block = runs.run(snippet.ResidualBlock, r.d, expansion=e).to(device)
        identity.append(runs.run(projection.block_terms, block, batch=batch, seed=seed))
        torch.manual_seed(seed)
        other = runs.run(projection.ProjectionBlock, r.d, r.d, expansion=e).to(device)
        projected.append(runs.run(projection.block_terms, other, batch=batch, seed=seed))
    return Sums(identity, projected)


@pytest.mark.claim(
    "The block's output minus its input is its branch's output, F(x), to float32 rounding, for e = 1 and 4; "
    "a block with the same branch and a d×d projection shortcut, y = W_s x + F(x), is not.",
    page=PAGE,
    identity="forward returns shortcut(x) + branch(x) and nn.Identity returns x itself, so (y − x) − F(x) is "
    "the rounding of one addition and one subtraction: within 2·eps·(max|y| + max|x|) on any processor",
)
def test_identity_block_adds_its_input_to_the_branch(claim, r, sums):
    eps = torch.finfo(torch.float32).eps

    def adds_its_input(runs_: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]) -> None:
        """max |(y − x) − F(x)| over the rounding bound of x + F(x), then of (x + F(x)) − x."""
        units = [
            (y - x - fx).abs().max().item() / (2 * eps * (y.abs().max().item() + x.abs().max().item()))
            for x, y, fx in runs_
        ]
        below("max |(y − x) − F(x)| / (2·eps·(max|y| + max|x|))", units, 1.0)

    claim.check(adds_its_input, sums.identity)
    # "The same branch": the projection block builds its branch first, from the same seed.
    for (x, _, fx), (x_p, _, fx_p) in zip(sums.identity, sums.projection, strict=True):
        assert torch.equal(x, x_p) and torch.equal(fx, fx_p)
    claim.rejects(adds_its_input, sums.projection, because="a d×d projection shortcut around the same branch")
    claim.record(
        expansions=sorted(r.output_shapes),
        max_error=max((y - x - fx).abs().max().item() for x, y, fx in sums.identity),
        projection_error=max((y - x - fx).abs().max().item() for x, y, fx in sums.projection),
        input_max=max(x.abs().max().item() for x, _, _ in sums.identity),
    )
