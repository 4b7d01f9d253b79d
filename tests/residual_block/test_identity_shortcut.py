"""Claims of "The residual block" about the identity-shortcut block."""

from dataclasses import dataclass

import pytest
import torch

from snippets.residual_block import identity_shortcut as snippet

PAGE = "module/residual-block.md"


@pytest.fixture(scope="module")
def r(device):
    """One run of the experiment, shared by every claim below."""
    return snippet.measure(device, seed=0)


@dataclass(frozen=True)
class Alternatives:
    """The counterfactuals, run here rather than in the snippet: the committed benchmark sweeps hash
    snippets/residual_block/identity_shortcut.py, which they import, so changing it would make them stale."""

    hidden_shapes: dict[int, list[int]]  # expansion -> shape of the branch's widened hidden layer
    projected_parameters: dict[int, int]  # expansion -> the same block with a d×d projection shortcut


@pytest.fixture(scope="module")
def alt(r, device) -> Alternatives:
    torch.manual_seed(0)
    x = torch.randn(r.input_shape, device=device)
    hidden, projected = {}, {}
    for e in (1, 4):
        block = snippet.ResidualBlock(r.d, expansion=e).to(device)
        hidden[e] = list(block.branch[:2](x).shape)
        block.shortcut = torch.nn.Linear(r.d, r.d, bias=False)
        projected[e] = sum(p.numel() for p in block.parameters())
    return Alternatives(hidden, projected)


def same_shape(input_shape: list[int], output_shape: list[int]) -> None:
    assert input_shape == output_shape, f"{input_shape} != {output_shape}"


@pytest.mark.claim(
    "An identity-shortcut block returns a tensor of its input's shape, for expansion 1 and 4.", page=PAGE
)
def test_identity_block_output_shape_equals_input_shape(claim, r, alt):
    for e in (1, 4):
        claim.check(same_shape, r.input_shape, r.output_shapes[e])
    claim.rejects(same_shape, r.input_shape, alt.hidden_shapes[4], because="the branch's widened hidden layer (e = 4)")
    claim.record(
        expansions=sorted(r.output_shapes),
        d=r.d,
        input_shape=r.input_shape,
        output_shape_e1=r.output_shapes[1],
        output_shape_e4=r.output_shapes[4],
        expansion=4,
    )


@pytest.mark.claim(
    "The identity shortcut adds no parameters: the block has exactly the branch's 2·e·d² + e·d + d.",
    page=PAGE,
)
def test_identity_block_parameters_are_the_branch_alone(claim, r, alt):

    def counts_match(counted: dict[int, int], formula: dict[int, int]) -> None:
        assert counted == formula, f"{counted} != {formula}"

    claim.check(counts_match, r.parameters, r.formula)
    assert r.shortcut_parameters == 0
    claim.rejects(
        counts_match, alt.projected_parameters, r.formula, because="the same block with a d×d projection shortcut"
    )
    claim.record(
        d=r.d, params_e1=r.parameters[1], params_e4=r.parameters[4], shortcut=r.shortcut_parameters, expansion=4
    )
