"""Claims of Lab 1 about each block's write in a 500-block BatchNorm ResNet, and SkipInit (5 seeds)."""

import math
import statistics

import pytest
import torch

from sitekit.margins import below
from snippets.degradation.training_curves import make_net
from snippets.lab_paths import bn_depth as snippet

PAGE = "module/lab-why-it-trains.md"
EXPERIMENT = "builds 500-block nets of three kinds at initialisation (5 seeds) and hooks every branch"
TOLERANCE = 0.05  # at initialisation, no training: a fresh run differs by rounding only; see the margins' drift
FROM = 10  # fit the power laws from block 10 on, past the first blocks' transient
SHOWN = (1, 2, 10, 100, snippet.BLOCKS)
# The predicted log-log slopes: with BatchNorm every write has unit size while the stream's mean square grows like
# l, so write / stream falls like l^(-1/2). The check tests the measured slopes against these, and the record
# keeps them, so the sentence's -1/2 and 1 are the numbers the check used.
RATIO_SLOPE, POWER_SLOPE = -0.5, 1.0
RATIO_TOL, POWER_TOL = 0.15, 0.2  # on the log-log slopes, around RATIO_SLOPE and POWER_SLOPE


@pytest.fixture(scope="module")
def runs(device, seeds):
    """Every variant on every seed: the nets without BatchNorm (the counterfactual) and with SkipInit too."""
    return [snippet.measure(device, s) for s in seeds(5)]


def slope(values: list[float]) -> float:
    """Least-squares slope of log(value) against log(l) for l = FROM..L."""
    xs = [math.log(i) for i in range(FROM, len(values) + 1)]
    ys = [math.log(v) for v in values[FROM - 1 :]]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def one_over_sqrt_depth(ratios: list[list[float]], powers: list[list[float]]) -> None:
    """Write/stream falls like l^(-1/2) (slope within 0.15); the mean square grows like l (within 0.2): per seed."""
    below("|log-log slope of write / stream + 1/2|", [abs(slope(r) - RATIO_SLOPE) for r in ratios], RATIO_TOL)
    below("|log-log slope of the mean square − 1|", [abs(slope(p) - POWER_SLOPE) for p in powers], POWER_TOL)


def weight_layers(blocks: int) -> int:
    """The Linear layers of the degradation miniature's residual net of this many blocks, counted."""
    return sum(isinstance(m, torch.nn.Linear) for m in make_net(blocks, True).modules())


@pytest.mark.claim(
    "In a 500-block ResNet of the degradation miniature's BatchNorm blocks at initialisation, the stream's mean "
    "square grows "
    "about like l and each block's write relative to the stream falls about like l^(-1/2) (log-log "
    "slopes within 0.2 of 1 and within 0.15 of -1/2 from block 10 on, in every one of 5 "
    "seeds); the same blocks without BatchNorm show no such fall, in any of those seeds.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_batchnorm_block_writes_shrink_like_inverse_sqrt_depth(claim, runs):
    claim.check(one_over_sqrt_depth, [r.ratio["batchnorm"] for r in runs], [r.power["batchnorm"] for r in runs])
    for r in runs:  # "no such fall, in any of those seeds": each seed's net without BatchNorm, on its own
        claim.rejects(
            one_over_sqrt_depth, [r.ratio["no norm"]], [r.power["no norm"]], because=f"no BatchNorm, seed {r.seed}"
        )

    def median(variant: str) -> list[float]:
        """Block by block, the median over the seeds of write / stream."""
        return [statistics.median(col) for col in zip(*(r.ratio[variant] for r in runs), strict=True)]

    ratio, no_norm = median("batchnorm"), median("no norm")
    rows = [[i, ratio[i - 1], 1 / math.sqrt(i), no_norm[i - 1]] for i in SHOWN]
    claim.record(
        table={"columns": ["block l", "BatchNorm: write / stream", "1/√l", "no norm: write / stream"], "rows": rows},
        ratio=ratio,
        no_norm_ratio=no_norm,
        ratio_slope=statistics.median(slope(r.ratio["batchnorm"]) for r in runs),
        power_slope=statistics.median(slope(r.power["batchnorm"]) for r in runs),
        predicted_ratio_slope=RATIO_SLOPE,
        predicted_power_slope=POWER_SLOPE,
        no_norm_ratio_slope=statistics.median(slope(r.ratio["no norm"]) for r in runs),
        no_norm_power_last=statistics.median(r.power["no norm"][-1] for r in runs),
        first=ratio[0],
        last=ratio[-1],
        blocks=runs[0].blocks,
        weight_layers=weight_layers(runs[0].blocks),
        fit_from=FROM,
        ratio_tol=RATIO_TOL,
        power_tol=POWER_TOL,
        batch=snippet.BATCH,
        seeds=len(runs),
    )


@pytest.mark.claim(
    "With SkipInit (BatchNorm removed, each branch scaled by an α that starts at 0), every one of the "
    "500 blocks writes exactly nothing at initialisation and the stream's mean square stays exactly "
    "where the stem put it.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
    identity="a branch times an α of exactly 0 writes exactly 0, so the stream passes through unchanged: it holds "
    "by construction, on any weights (the BatchNorm net, which writes, is the contrast)",
)
def test_skipinit_blocks_write_nothing_at_initialisation(claim, runs):
    def identity(ratios: list[list[float]], powers: list[list[float]]) -> None:
        for ratio, power in zip(ratios, powers, strict=True):
            assert all(q == 0.0 for q in ratio) and all(p == power[0] for p in power), (max(ratio), max(power))

    claim.check(identity, [r.ratio["skipinit"] for r in runs], [r.power["skipinit"] for r in runs])
    claim.rejects(
        identity,
        [r.ratio["batchnorm"] for r in runs],
        [r.power["batchnorm"] for r in runs],
        because="the BatchNorm net",
    )
    claim.record(max_ratio=max(max(r.ratio["skipinit"]) for r in runs), blocks=len(runs[0].ratio["skipinit"]))
