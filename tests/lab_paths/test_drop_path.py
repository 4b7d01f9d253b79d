"""Claims of Lab 1 about what its drop-path listing does: a draw per point in training, a kept write scaled by
1/(1 - p), nothing dropped in evaluation, and the linear rule over the blocks."""

import pytest

from sitekit.margins import below
from snippets.lab_paths import drop_path as snippet

PAGE = "module/lab-why-it-trains.md"
SEEDS = 3
SHARE = 0.02  # the kept share lies within this of 1 - p: about 6 binomial standard deviations at 20,000 points
SCALE = 1e-4  # a kept write is the branch's times 1/(1 - p) to this relative error (float32 on inputs near 50)
MEAN = 0.05  # mean |write| over mean |branch output| lies within this of 1: the expected write is unchanged


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(SEEDS)]


def training(runs, kind: str) -> list[snippet.Training]:
    return [r["training"][kind] for r in runs]


def share_off(passes: list[snippet.Training]) -> None:
    below("|share of points that keep their write − (1 − p)|", [abs(t.kept_share - (1 - t.p)) for t in passes], SHARE)


def scale_off(passes: list[snippet.Training]) -> None:
    below("largest |kept write ÷ branch output × (1 − p) − 1|", [t.scale_error for t in passes], SCALE)


def mean_off(passes: list[snippet.Training]) -> None:
    below("|mean |write| ÷ mean |branch output| − 1|", [abs(t.mean_ratio - 1) for t in passes], MEAN)


@pytest.mark.claim(
    "In training, the drop-path block draws for each point on its own: of 20,000 points through one block at "
    "p = 0.5, the share that keep their write lies within 0.02 of 1 − p, each kept write is the branch's output "
    "times 1/(1 − p) to a relative error below 1e-4, and the mean size of the write stays within 5 % of the "
    "branch's, in every one of 3 seeds.",
    page=PAGE,
)
def test_drop_path_draws_per_point_and_rescales_kept_writes(claim, runs):
    listing = training(runs, "drop-path")
    claim.check(share_off, listing)
    claim.check(scale_off, listing)
    claim.check(mean_off, listing)
    one_draw, unscaled = training(runs, "one draw per minibatch"), training(runs, "unscaled")
    claim.rejects(share_off, one_draw, because="one draw for the whole minibatch (Huang et al.'s form)")
    claim.rejects(scale_off, unscaled, because="a kept write added unscaled")
    claim.rejects(mean_off, unscaled, because="a kept write added unscaled")
    claim.record(
        points=snippet.POINTS,
        p=listing[0].p,
        seeds=SEEDS,
        share_within=SHARE,
        scale_within=SCALE,
        mean_within=MEAN,
        kept_share=[t.kept_share for t in listing],
        kept_share_farthest=max((t.kept_share for t in listing), key=lambda v: abs(v - (1 - listing[0].p))),
        scale_error=[t.scale_error for t in listing],
        mean_ratio=[t.mean_ratio for t in listing],
        one_draw_kept_share=[t.kept_share for t in one_draw],
        unscaled_mean_ratio=[t.mean_ratio for t in unscaled],
    )


@pytest.mark.claim(
    "In evaluation the drop-path block drops and rescales nothing: its output equals the residual block's bit "
    "for bit. And the listing's rule gives block l of the lab's 30 the probability 0.5 · l/30, from 0.5/30 for "
    "the first block to 0.5 for the last.",
    page=PAGE,
    exact="torch.equal on the two blocks' outputs, and the 30 probabilities compared with == to 0.5 · l/30",
)
def test_drop_path_keeps_every_write_in_evaluation_and_follows_the_linear_rule(claim, runs):
    def equal_in_evaluation(equal: list[bool]) -> None:
        assert all(equal), equal

    def follows_rule(probabilities: list[float]) -> None:
        assert probabilities == snippet.stated_rule(), probabilities

    claim.check(equal_in_evaluation, [r["evaluation_equal"]["drop-path"] for r in runs])
    claim.rejects(
        equal_in_evaluation,
        [r["evaluation_equal"]["drops in evaluation too"] for r in runs],
        because="a block that drops in evaluation too",
    )
    rule = runs[0]["rule"]
    claim.check(follows_rule, rule["listing"])
    claim.rejects(follows_rule, rule["from zero"], because="the rule counted from block 0")
    claim.record(
        blocks=snippet.BLOCKS,
        top_drop=snippet.TOP_DROP,
        first=rule["listing"][0],
        last=rule["listing"][-1],
    )
