"""Claims of "The residual block" about the identity-shortcut block."""

from dataclasses import dataclass

import pytest
import torch

from sitekit.margins import below
from snippets.residual_block import identity_shortcut as snippet

PAGE = "module/residual-block.md"


@pytest.fixture(scope="module")
def r(device, seeds):
    """One run of the experiment, shared by every claim below."""
    return snippet.measure(device, seed=seeds.first())


@dataclass(frozen=True)
class Alternatives:
    """The counterfactuals, run here rather than in the snippet: the committed benchmark sweeps hash
    snippets/residual_block/identity_shortcut.py, which they import, so changing it would make them stale."""

    hidden_shapes: dict[int, list[int]]  # expansion -> shape of the branch's widened hidden layer
    projected_parameters: dict[int, int]  # expansion -> the same block with a d×d projection shortcut


@pytest.fixture(scope="module")
def alt(r, device, seeds) -> Alternatives:
    torch.manual_seed(seeds.first())
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
    "An identity-shortcut block returns a tensor of its input's shape, for expansion 1 and 4.",
    page=PAGE,
    exact="tensor shapes, compared with ==",
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
    exact="parameter counts, compared with ==",
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


@dataclass(frozen=True)
class Sums:
    """For each seed and expansion: input x, the block's output y, its branch's F(x), and a plain block's F(x)."""

    runs: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]]


@pytest.fixture(scope="module")
def sums(r, device, seeds) -> Sums:
    runs = []
    for seed in seeds(5):
        torch.manual_seed(seed)
        x = torch.randn(r.input_shape, device=device)
        for e in (1, 4):
            block = snippet.ResidualBlock(r.d, expansion=e).to(device)
            with torch.no_grad():
                runs.append((x, block(x), block.branch(x), block.branch(x)))  # a plain block is the branch alone
    return Sums(runs)


@pytest.mark.claim(
    "The block's output minus its input is its branch's output, F(x), to float32 rounding, over 5 seeds and "
    "e = 1 and 4; a plain block made of the same branch misses by about the size of x itself.",
    page=PAGE,
    exact="a float32 rounding bound: y = x + F(x) and y − x each round once, so |(y − x) − F(x)| stays within "
    "2·eps·(max|y| + max|x|) on any processor that computes the same F(x)",
)
def test_identity_block_adds_its_input_to_the_branch(claim, sums):
    eps = torch.finfo(torch.float32).eps

    def in_rounding_units(x: torch.Tensor, y: torch.Tensor, fx: torch.Tensor) -> float:
        """max |(y − x) − F(x)| over the rounding bound of x + F(x), then of (x + F(x)) − x."""
        scale = y.abs().max().item() + x.abs().max().item()
        return (y - x - fx).abs().max().item() / (2 * eps * scale)

    def adds_its_input(runs: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]) -> None:
        below("max |(y − x) − F(x)| / (2·eps·(max|y| + max|x|))", [in_rounding_units(*run) for run in runs], 1.0)

    claim.check(adds_its_input, [(x, y, fx) for x, y, fx, _ in sums.runs])
    claim.rejects(
        adds_its_input,
        [(x, plain, fx) for x, _, fx, plain in sums.runs],
        because="a plain block, y = F(x), with the same branch",
    )
    # The plain block's miss is x itself, up to the same two roundings (relative 1e-5 is far above them).
    misses = [abs((plain - x - fx).abs().max().item() / x.abs().max().item() - 1) for x, _, fx, plain in sums.runs]
    assert max(misses) <= 1e-5, misses
    x, _, fx, plain = sums.runs[0]
    plain_error, input_max = (plain - x - fx).abs().max().item(), x.abs().max().item()
    claim.record(
        seeds=len(sums.runs) // 2,
        expansions=[1, 4],
        max_error=max((y - x - fx).abs().max().item() for x, y, fx, _ in sums.runs),
        plain_error=plain_error,
        input_max=input_max,
    )
