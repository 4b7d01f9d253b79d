"""Claims of the entry "Residual networks as ensembles": each equation of its derivation, checked exactly."""

import math
from fractions import Fraction

import pytest
import torch

from sitekit.margins import below
from snippets.encyclopedia import ensembles as snippet

PAGE = "encyclopedia/ensembles.md"
EXACT = 1e-12  # float64: relative differences at rounding level
ARITHMETIC = "counts paths and sums exact fractions in Python numbers; no tensor is involved"
CPU_FLOAT64 = "the snippet builds its linear stacks in float64 on the CPU whatever the device"


@pytest.fixture(scope="module")
def run(seeds):
    """One set of stacks (the checks are exact or float64 identities; the seed only picks the weights)."""
    return snippet.measure(seed=seeds.first())


@pytest.mark.claim(
    "Expanding the product of L = 10 residual factors (I + J) gives 1024 paths, C(10, k) of length k; "
    "make one block plain and the count is no longer binomial.",
    page=PAGE,
    device_independent=ARITHMETIC,
    identity="the expansion enumerates the 2^L ways of picking I or J in each factor, and the number of ways with k "
    "J's is C(L, k) by the definition of the binomial coefficient; the check confirms the enumeration counts them so",
)
def test_paths_of_each_length_are_counted_by_the_binomial(claim, run):
    def binomial(counts: list[int]) -> None:
        L = len(counts) - 1
        assert counts == [math.comb(L, k) for k in range(L + 1)], counts
        assert sum(counts) == 2**L, sum(counts)

    claim.check(binomial, run.counts)
    claim.rejects(binomial, run.counts_one_plain, because="block 0 without its shortcut")
    claim.record(
        L=run.L,
        paths=sum(run.counts),
        table={
            "columns": ["length k", "paths", "C(L, k)"],
            "rows": [[k, n, math.comb(run.L, k)] for k, n in enumerate(run.counts)],
        },
    )


@pytest.mark.claim(
    "With L = 10 branches of equal gain r, the paths of length k add up to C(L, k) r^k, their total to (1 + r)^L "
    "and the gradient-weighted mean length to L r / (1 + r), to 1e-12 (float64); branches of unequal gain "
    "with the same mean do not follow the formula.",
    page=PAGE,
    device_independent="sums products of Python floats; no tensor is involved",
    identity="with equal gains each of the C(L, k) paths of length k has size r^k by definition, and the total and "
    "the weighted mean length follow by the binomial theorem; the check confirms the path-by-path sums reach the "
    "closed forms to float64 rounding (relative error within 1e-12)",
)
def test_gradient_weighted_path_length_is_L_r_over_1_plus_r(claim, run):
    r, L = run.gain, run.L

    def relative(got: float, want: float) -> float:
        return abs(got - want) / abs(want)

    def follows_formula(sizes: list[float]) -> None:
        below(
            "relative error of the paths of length k against C(L, k) r^k",
            [relative(s, math.comb(L, k) * r**k) for k, s in enumerate(sizes)],
            EXACT,
        )
        below("relative error of the total against (1 + r)^L", relative(sum(sizes), (1 + r) ** L), EXACT)
        below(
            "relative error of the mean length against L r / (1 + r)",
            relative(snippet.weighted_mean_length(sizes), L * r / (1 + r)),
            EXACT,
        )

    claim.check(follows_formula, run.sizes)
    claim.rejects(follows_formula, run.sizes_unequal, because="gains spread from 0 to 2r, same mean")
    claim.record(
        L=L,
        r=r,
        mean_length=snippet.weighted_mean_length(run.sizes),
        predicted=L * r / (1 + r),
        unequal_mean_length=snippet.weighted_mean_length(run.sizes_unequal),
        count_mean=L / 2,
    )


@pytest.mark.claim(
    "Deleting block l from a residual stack of 6 linear blocks leaves exactly the sum of the paths that avoid l "
    "(to 1e-12, float64), which are half of all paths; in a plain stack no path avoids l, and the check fails.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    exact="deleting a block removes exactly the terms through it, so the lesioned product equals the sum of the "
    "others to float64 rounding (every entry within 1e-12)",
)
def test_lesion_removes_exactly_the_paths_through_the_block(claim, run):
    def leaves_the_other_paths(lesion: snippet.Lesion) -> None:
        errors = [
            (cut - paths).abs().max().item() for cut, paths in zip(lesion.lesioned, lesion.surviving_paths, strict=True)
        ]
        below("max |lesioned − sum of the paths avoiding the block|", errors, EXACT)
        # Half of the 2^L subsets of blocks leave out any one block: the surviving paths are half of them.
        assert lesion.surviving_shares == [1 / 2] * len(lesion.lesioned), lesion.surviving_shares

    claim.check(leaves_the_other_paths, run.residual)
    claim.rejects(leaves_the_other_paths, run.plain, because="the plain stack of the same branches")
    claim.record(
        blocks=len(run.residual.change),
        max_error=max(
            (c - p).abs().max().item() for c, p in zip(run.residual.lesioned, run.residual.surviving_paths, strict=True)
        ),
        surviving_shares=run.residual.surviving_shares,
        plain_surviving_shares=run.plain.surviving_shares,
        residual_change_max=max(run.residual.change),
        residual_change_min=min(run.residual.change),
        plain_change_min=min(run.plain.change),
    )


@pytest.mark.claim(
    "With stochastic depth's linear rule and p_L = 1/2, the expected number of blocks kept, summed exactly over all "
    "2^L drop patterns, is (3L − 1)/4 at L = 4, 8 and 12; dropping every block with probability 1/2 gives L/2.",
    page=PAGE,
    device_independent=ARITHMETIC,
    exact="the expectation over all 2^L patterns is summed in exact fractions and equals (3L − 1)/4",
)
def test_stochastic_depth_keeps_three_quarters_of_the_blocks(claim, run):
    def three_quarters(lengths: list[int], expected: list[Fraction]) -> None:
        assert expected == [Fraction(3 * L - 1, 4) for L in lengths], expected

    claim.check(three_quarters, run.depth_lengths, run.expected_depths)
    claim.rejects(three_quarters, run.depth_lengths, run.expected_depths_uniform, because="a uniform drop rate of 1/2")
    claim.record(
        lengths=run.depth_lengths,
        expected=[float(e) for e in run.expected_depths],
        uniform=[float(e) for e in run.expected_depths_uniform],
        p_top=float(run.top_drop),
    )


@pytest.mark.claim(
    "Averaged exactly over all 64 drop patterns of a 6-block linear stack, drop-path with kept writes scaled by "
    "1/(1 − p_l) returns the full stack's output to 1e-12 (float64); without the rescaling it does not.",
    page=PAGE,
    device_independent=CPU_FLOAT64,
    exact="the 1/(1 − p_l) rescaling makes each write's expectation its full value, so the exact average over all "
    "64 patterns is the full output to float64 rounding (every entry within 1e-12)",
)
def test_drop_path_rescaling_keeps_the_expected_output(claim, run):
    def unbiased(mean: torch.Tensor) -> None:
        below("max |E[drop-path output] − full output|", (mean - run.full_output).abs().max().item(), EXACT)

    claim.check(unbiased, run.mean_output)
    claim.rejects(unbiased, run.mean_output_unscaled, because="kept writes not rescaled")
    claim.record(
        patterns=2**run.drop_blocks,
        blocks=run.drop_blocks,
        max_error=(run.mean_output - run.full_output).abs().max().item(),
        unscaled_error=(run.mean_output_unscaled - run.full_output).abs().max().item(),
    )
