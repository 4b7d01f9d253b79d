"""Claims of Lab 2 about the gradient each block receives at initialisation, with attention branches and the
next-character loss on the lab's corpus, at 6, 24 and 48 blocks."""

import math
import statistics

import pytest

from sitekit import runs
from sitekit.margins import above, below, between
from snippets.lab_transformer import gradient_profile as snippet

PAGE = "module/lab-transformer-stream.md"
# One stack's output/input-end ratio scatters widely from seed to seed (a factor of several at 48 blocks), so
# the claims are about its typical value over SEED_COUNT stacks, the geometric mean (a ratio's natural centre).
SEED_COUNT = 8
INITS = ("default", "xavier")
EXPERIMENT = "one gradient of every stack: 2 placements x 2 initialisations x 6, 24 and 48 blocks x 8 seeds"
# No training: the only drift between processors is float32 rounding in one forward and backward pass, far below
# the seed-to-seed scatter; the floor for experiments.
TOLERANCE = 0.05


@pytest.fixture(scope="module")
def r(device, seeds):
    ids = seeds(SEED_COUNT)
    return snippet.measure(device, seed=ids[0], seeds=len(ids))


def geometric_mean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def table(r) -> dict:
    rows = [
        [f"{placement}, {init} init", *(geometric_mean(r.ratios(placement, init, L)) for L in r.depths)]
        for placement in ("post-norm", "pre-norm")
        for init in INITS
    ]
    return {"columns": ["stack", *(f"L = {L}" for L in r.depths)], "rows": rows}


@pytest.mark.claim(
    "At initialisation, with attention branches and the next-character loss on real text, post-norm's gradients "
    "grow toward the output with depth: at 48 blocks the 4 blocks nearest the output get more than 1.5× the "
    "gradient of the 4 nearest the input (geometric mean over 8 seeds, under PyTorch's default initialisation "
    "and under Xavier's), while at 6 blocks the ratio lies within 2/3 to 3/2.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_postnorm_gradients_grow_toward_the_output_with_depth(claim, r):
    deep, shallow = max(r.depths), min(r.depths)

    def grows(deep_ratios: dict, shallow_ratios: dict) -> None:
        for init in INITS:
            above(f"{init} init, L = {deep}: output-end / input-end gradient", geometric_mean(deep_ratios[init]), 1.5)
            between(
                f"{init} init, L = {shallow}: output-end / input-end gradient",
                geometric_mean(shallow_ratios[init]),
                2 / 3,
                3 / 2,
            )

    def ratios(placement: str, L: int) -> dict:
        return {init: runs.run(r.ratios, placement, init, L) for init in INITS}

    claim.check(grows, ratios("post-norm", deep), ratios("post-norm", shallow))
    claim.rejects(grows, ratios("pre-norm", deep), ratios("pre-norm", shallow), because="the pre-norm stacks")
    claim.rejects(grows, ratios("post-norm", shallow), ratios("post-norm", shallow), because=f"post-norm at {shallow}")
    claim.record(
        table=table(r),
        **{f"post_{init}_{L}": geometric_mean(r.ratios("post-norm", init, L)) for init in INITS for L in r.depths},
        post_default_range={
            str(L): [min(r.ratios("post-norm", "default", L)), max(r.ratios("post-norm", "default", L))]
            for L in r.depths
        },
        profile_default=r.median_profile("post-norm", "default", deep),
        profile_xavier=r.median_profile("post-norm", "xavier", deep),
        depths=list(r.depths),
        windows=r.windows,
        blocks_at_each_end=snippet.END,
        seeds=r.seeds,
    )


@pytest.mark.claim(
    "Under Xavier's initialisation, the setting of Xiong et al.'s analysis, pre-norm's gradients fall toward the "
    "output instead: at 48 blocks the 4 blocks nearest the output get under 2/3 of the gradient of "
    "the 4 nearest the input (geometric mean over 8 seeds).",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_prenorm_gradients_fall_toward_the_output_with_attention(claim, r):
    def falls(by_depth: dict) -> None:
        for L, ratios in by_depth.items():
            below(f"L = {L}: output-end / input-end gradient", geometric_mean(ratios), 2 / 3)

    deep = [max(r.depths)]
    claim.check(falls, {L: runs.run(r.ratios, "pre-norm", "xavier", L) for L in deep})
    claim.rejects(falls, {L: runs.run(r.ratios, "post-norm", "xavier", L) for L in deep}, because="post-norm")
    claim.rejects(falls, {min(r.depths): runs.run(r.ratios, "pre-norm", "xavier", min(r.depths))}, because="6 blocks")
    claim.record(
        **{f"pre_{init}_{L}": geometric_mean(r.ratios("pre-norm", init, L)) for init in INITS for L in r.depths},
        profile_xavier=r.median_profile("pre-norm", "xavier", max(r.depths)),
        deep=max(r.depths),
        blocks_at_each_end=snippet.END,
        seeds=r.seeds,
    )
