"""Claims of Lab 1 about each block's write in a 500-block BatchNorm ResNet, and SkipInit (5 seeds)."""

import math
import statistics

import pytest

from sitekit.margins import below
from snippets.lab_paths import bn_depth as snippet

PAGE = "module/lab-why-it-trains.md"
FROM = 10  # fit the power laws from block 10 on, past the first blocks' transient
SHOWN = (1, 2, 10, 100, snippet.BLOCKS)
RATIO_TOL, POWER_TOL = 0.15, 0.2  # on the log-log slopes, around -1/2 and 1


@pytest.fixture(scope="module")
def runs(device, seeds):
    # Every variant on the first seed; the BatchNorm net, the claim's subject, on all five seeds.
    first = seeds.first()
    return [snippet.measure(device, s, variants=snippet.VARIANTS if s == first else ("batchnorm",)) for s in seeds(5)]


def slope(values: list[float]) -> float:
    """Least-squares slope of log(value) against log(l) for l = FROM..L."""
    xs = [math.log(i) for i in range(FROM, len(values) + 1)]
    ys = [math.log(v) for v in values[FROM - 1 :]]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def one_over_sqrt_depth(ratios: list[list[float]], powers: list[list[float]]) -> None:
    """Write/stream falls like l^(-1/2) (slope within 0.15); the mean square grows like l (within 0.2): per seed."""
    below("|log-log slope of write / stream + 1/2|", [abs(slope(r) + 0.5) for r in ratios], RATIO_TOL)
    below("|log-log slope of the mean square − 1|", [abs(slope(p) - 1) for p in powers], POWER_TOL)


@pytest.mark.claim(
    "In a 500-block ResNet of the degradation miniature's BatchNorm blocks at initialisation, the stream's mean "
    "square grows "
    "about like l and each block's write relative to the stream falls about like l^(-1/2) (log-log "
    "slopes within 0.2 of 1 and within 0.15 of -1/2 from block 10 on, in every one of 5 "
    "seeds); the same blocks without BatchNorm show no such fall.",
    page=PAGE,
)
def test_batchnorm_block_writes_shrink_like_inverse_sqrt_depth(claim, runs):
    claim.check(one_over_sqrt_depth, [r.ratio["batchnorm"] for r in runs], [r.power["batchnorm"] for r in runs])
    bare = runs[0]
    claim.rejects(one_over_sqrt_depth, [bare.ratio["no norm"]], [bare.power["no norm"]], because="no BatchNorm")
    ratio = [statistics.median(col) for col in zip(*(r.ratio["batchnorm"] for r in runs), strict=True)]
    rows = [[i, ratio[i - 1], 1 / math.sqrt(i), bare.ratio["no norm"][i - 1]] for i in SHOWN]
    claim.record(
        table={"columns": ["block l", "BatchNorm: write / stream", "1/√l", "no norm: write / stream"], "rows": rows},
        ratio=ratio,
        no_norm_ratio=bare.ratio["no norm"],
        ratio_slope=statistics.median(slope(r.ratio["batchnorm"]) for r in runs),
        power_slope=statistics.median(slope(r.power["batchnorm"]) for r in runs),
        no_norm_ratio_slope=slope(bare.ratio["no norm"]),
        no_norm_power_last=bare.power["no norm"][-1],
        first=ratio[0],
        last=ratio[-1],
        blocks=snippet.BLOCKS,
        weight_layers=2 * snippet.BLOCKS + 2,
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
    exact="a branch times an α of exactly 0 writes exactly 0, so the stream passes through unchanged",
)
def test_skipinit_blocks_write_nothing_at_initialisation(claim, runs):
    def identity(ratio: list[float], power: list[float]) -> None:
        assert all(q == 0.0 for q in ratio) and all(p == power[0] for p in power), (max(ratio), max(power))

    r = runs[0]
    claim.check(identity, r.ratio["skipinit"], r.power["skipinit"])
    claim.rejects(identity, r.ratio["batchnorm"], r.power["batchnorm"], because="the BatchNorm net")
    claim.record(max_ratio=max(r.ratio["skipinit"]), blocks=len(r.ratio["skipinit"]))
