"""Claims of "The degradation problem" about plain convolutional nets and ResNets on real images (scikit-learn's
handwritten digits), paired per seed (3 seeds)."""

import statistics

import pytest

from sitekit.margins import above, below
from snippets.degradation import digits as snippet

PAGE = "module/degradation.md"
GAP = 0.1  # nats: the deep plain net's excess, twice the allowance a net that has stopped improving is given
STILL = 0.05  # nats: what the last epochs may still take off a net that "has stopped improving"
SHALLOW, DEEP = (snippet.weight_layers(n) for n in snippet.BLOCKS)


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(3)]


def curves(results, kind: str, layers: int) -> list[list[float]]:
    """Per seed: the net's mean training loss per epoch."""
    return [r.curves[kind][layers] for r in results]


def final(curves_: list[list[float]]) -> list[float]:
    return [c[-1] for c in curves_]


def window(curves_: list[list[float]]) -> int:
    """The last stretch the convergence check looks at: the final quarter of the epochs, rounded down."""
    return len(curves_[0]) // 4


def last_stretch(curves_: list[list[float]]) -> list[float]:
    """Per seed: the epoch loss `window` epochs before the end minus the last epoch's."""
    w = window(curves_)
    return [c[-1 - w] - c[-1] for c in curves_]


def minus(a: list[float], b: list[float]) -> list[float]:
    return [x - y for x, y in zip(a, b, strict=True)]


@pytest.mark.claim(
    "On 1280 of scikit-learn's handwritten digits, with the same batches, 300 steps and learning rate, the "
    "8-layer plain and residual conv nets have stopped improving (their last 7 epochs take less than 0.05 nats "
    "off the loss), and the 44-layer plain net ends with a training loss more than 0.1 nats above the "
    "8-layer plain net's, in every one of 3 seeds (paired per seed).",
    page=PAGE,
    experiment="trains plain and residual conv nets of 8 and 44 layers on the digits for 300 steps, 3 seeds",
    tolerance=0.3,
)
def test_plain_conv_net_degrades_on_digits(claim, results):
    def degrades(deep: list, shallow: list, shallow_resnet: list) -> None:
        below("8-layer nets: loss drop over the last epochs", last_stretch(shallow + shallow_resnet), STILL)
        above("44-layer − 8-layer plain final loss", minus(final(deep), final(shallow)), GAP)

    plain8, res8 = curves(results, "plain", SHALLOW), curves(results, "resnet", SHALLOW)
    claim.check(degrades, curves(results, "plain", DEEP), plain8, res8)
    claim.rejects(
        degrades, curves(results, "resnet", DEEP), plain8, res8, because="the 44-layer ResNet in place of the plain net"
    )
    diffs = minus(final(curves(results, "plain", DEEP)), final(plain8))
    rows = [
        [
            f"{kind}, {layers} layers",
            statistics.median(r.curves[kind][layers][-1] for r in results),
            statistics.median(r.error[kind][layers] for r in results),
            min(r.error[kind][layers] for r in results),
            max(r.error[kind][layers] for r in results),
        ]
        for kind in ("plain", "resnet")
        for layers in (SHALLOW, DEEP)
    ]
    claim.record(
        table={"columns": ["net", "median final loss", "median training error", "min", "max"], "rows": rows},
        curves={
            kind: {str(layers): [r.curves[kind][layers] for r in results] for layers in (SHALLOW, DEEP)}
            for kind in ("plain", "resnet")
        },
        error={
            kind: {str(layers): [r.error[kind][layers] for r in results] for layers in (SHALLOW, DEEP)}
            for kind in ("plain", "resnet")
        },
        diff=diffs,
        diff_median=statistics.median(diffs),
        diff_min=min(diffs),
        diff_max=max(diffs),
        error_diff=minus([r.error["plain"][DEEP] for r in results], [r.error["plain"][SHALLOW] for r in results]),
        window=window(plain8),
        last_quarter_max=max(last_stretch(plain8 + res8)),
        deep_plain_last_quarter_median=statistics.median(last_stretch(curves(results, "plain", DEEP))),
        layers={"shallow": SHALLOW, "deep": DEEP},
        n=snippet.N,
        channels=snippet.CHANNELS,
        batch=snippet.BATCH,
        steps=results[0].steps,
        epochs=len(results[0].curves["plain"][SHALLOW]),
        lr=snippet.LR,
        seeds=len(results),
        gap=GAP,
        still=STILL,
    )


@pytest.mark.claim(
    "With shortcuts the deep net trains: the 44-layer ResNet ends with a training loss more than 0.1 nats below "
    "the 44-layer plain net's, in every one of 3 seeds (paired per seed).",
    page=PAGE,
    experiment="trains plain and residual conv nets of 8 and 44 layers on the digits for 300 steps, 3 seeds",
    tolerance=0.3,
)
def test_resnet_does_not_degrade_on_digits(claim, results):
    def below_plain(worse: list, better: list) -> None:
        above("44-layer plain − 44-layer ResNet final loss", minus(final(worse), final(better)), GAP)

    res44, res8, plain44 = (curves(results, k, n) for k, n in (("resnet", DEEP), ("resnet", SHALLOW), ("plain", DEEP)))
    claim.check(below_plain, plain44, res44)
    claim.rejects(below_plain, res8, res44, because="the 8-layer ResNet in place of the 44-layer plain net")
    diffs = minus(final(res44), final(res8))
    plain_diffs = minus(final(plain44), final(res44))
    claim.record(
        diff=diffs,
        diff_median=statistics.median(diffs),
        diff_min=min(diffs),
        diff_max=max(diffs),
        worse_seeds=sum(d > 0 for d in diffs),
        plain_diff_min=min(plain_diffs),
        plain_diff_max=max(plain_diffs),
        plain_diff_median=statistics.median(plain_diffs),
        layers={"shallow": SHALLOW, "deep": DEEP},
        seeds=len(results),
        gap=GAP,
    )
