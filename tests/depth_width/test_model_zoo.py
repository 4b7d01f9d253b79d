"""Claims of "Depth versus width" comparing depth and width on ImageNet (counts computed here, accuracies from
torchvision)."""

import pytest

from sitekit.margins import above, below, between
from snippets.depth_width import model_zoo as snippet

PAGE = "module/depth-vs-width.md"
NAMES = {
    "resnet50": "ResNet-50",
    "resnet101": "ResNet-101",
    "resnet152": "ResNet-152",
    "wide_resnet50_2": "Wide ResNet-50-2",
    "densenet121": "DenseNet-121",
}
INDEPENDENT = "parameter counts of models built on the meta device, and published accuracies"
DEPTH = {"resnet50": 50, "resnet101": 101, "resnet152": 152, "wide_resnet50_2": 50, "densenet121": 121}


@pytest.fixture(scope="module")
def zoo(device, seeds):
    return snippet.measure(device, seed=seeds.first())  # no randomness: counts on the meta device


def ratio(r: snippet.Result, name: str) -> float:
    return r.counted[name] / r.counted["resnet50"]


def gain(r: snippet.Result, name: str) -> float:
    return r.acc1[name] - r.acc1["resnet50"]


def table(r: snippet.Result) -> dict:
    """Display table: whole counts, ratios and differences rounded to three decimals."""
    rows = []
    for n in r.counted:
        extra = (r.counted[n] - r.counted["resnet50"]) / 1e7
        per_10m = round(gain(r, n) / extra, 2) if extra > 0 else "–"
        rows.append([NAMES[n], DEPTH[n], r.counted[n], round(ratio(r, n), 3), r.acc1[n], round(gain(r, n), 3), per_10m])
    cols = ["model", "layers", "parameters", "× ResNet-50", "acc@1 %", "Δ acc@1", "Δ acc@1 per +10M params"]
    return {"columns": cols, "rows": rows}


@pytest.mark.claim(
    "Wide ResNet-50-2 has 2.70× ResNet-50's parameters (68.9M), not 4× (102.2M), for +2.34 points of top-1: "
    "doubling the bottleneck width quadruples only the 3×3 convolutions.",
    page=PAGE,
    device_independent=INDEPENDENT,
    exact="a ratio of two parameter counts of models built on the meta device (integers, no randomness)",
)
def test_wide_resnet50_2_has_2_7x_resnet50_parameters_not_4x(claim, zoo):
    def about_2_7x(params_ratio: float) -> None:
        between("Wide ResNet-50-2 / ResNet-50 parameters", params_ratio, 2.69, 2.70)

    claim.check(about_2_7x, ratio(zoo, "wide_resnet50_2"))
    k50, kw = zoo.kernels["resnet50"], zoo.kernels["wide_resnet50_2"]
    assert kw["3x3"] == 4 * k50["3x3"]
    assert 1 < kw["1x1"] / k50["1x1"] < 2
    claim.rejects(
        about_2_7x, kw["3x3"] / k50["3x3"], because="the 3×3 convolutions alone, the only part that quadruples"
    )
    claim.record(
        table=table(zoo),
        ratio=ratio(zoo, "wide_resnet50_2"),
        params_m=zoo.counted["wide_resnet50_2"] / 1e6,
        quadrupled_m=4 * zoo.counted["resnet50"] / 1e6,
        gain=gain(zoo, "wide_resnet50_2"),
        kernels={
            "columns": ["parameters in", "ResNet-50", "Wide ResNet-50-2", "ratio"],
            "rows": [[k, k50[k], kw[k], round(kw[k] / k50[k], 3)] for k in k50],
        },
    )


@pytest.mark.claim(
    "ResNet-101 has 1.74× ResNet-50's parameters (44.5M) and ResNet-152 2.36× (60.2M), for +1.24 and "
    "+2.18 points of top-1.",
    page=PAGE,
    device_independent=INDEPENDENT,
    exact="ratios of parameter counts built on the meta device and differences of published accuracies",
)
def test_resnet101_and_152_parameter_ratios(claim, zoo):
    # The values themselves are the sentence's numbers, which must equal the recorded ones as shown.
    def more_parameters_more_accuracy(params_ratios: list[float], points: list[float]) -> None:
        above("parameters / ResNet-50's", params_ratios, 1)
        above("top-1 points over ResNet-50", points, 0)

    deeper = ("resnet101", "resnet152")
    claim.check(more_parameters_more_accuracy, [ratio(zoo, n) for n in deeper], [gain(zoo, n) for n in deeper])
    claim.rejects(
        more_parameters_more_accuracy,
        [ratio(zoo, "densenet121")],
        [gain(zoo, "densenet121")],
        because="DenseNet-121, smaller and less accurate",
    )
    claim.record(
        ratio_101=ratio(zoo, "resnet101"),
        ratio_152=ratio(zoo, "resnet152"),
        params_101=zoo.counted["resnet101"] / 1e6,
        params_152=zoo.counted["resnet152"] / 1e6,
        gain_101=gain(zoo, "resnet101"),
        gain_152=gain(zoo, "resnet152"),
    )


@pytest.mark.claim(
    "Per added parameter, depth buys more top-1 than width here: +0.66 (ResNet-101) and +0.63 (ResNet-152) "
    "points per 10M extra parameters against +0.54 for Wide ResNet-50-2, which is nonetheless the most "
    "accurate of the four.",
    page=PAGE,
    device_independent=INDEPENDENT,
    exact="published accuracy differences divided by parameter counts built on the meta device (no randomness)",
)
def test_depth_buys_more_accuracy_per_parameter_than_width(claim, zoo):
    def per_10m(name: str) -> float:
        return gain(zoo, name) / ((zoo.counted[name] - zoo.counted["resnet50"]) / 1e7)

    def deeper_is_more_efficient(deep: list[float], wide: float) -> None:
        above("deepening's points per 10M parameters − widening's", [d - wide for d in deep], 0)

    deep = [per_10m("resnet101"), per_10m("resnet152")]
    claim.check(deeper_is_more_efficient, deep, per_10m("wide_resnet50_2"))
    assert max(zoo.acc1, key=zoo.acc1.get) == "wide_resnet50_2"
    wide_minus_152 = zoo.acc1["wide_resnet50_2"] - zoo.acc1["resnet152"]
    assert wide_minus_152 > 0
    claim.rejects(
        deeper_is_more_efficient,
        [per_10m("wide_resnet50_2")],
        per_10m("resnet152"),
        because="the widening judged against the deepening",
    )
    claim.record(
        per_10m_101=deep[0],
        per_10m_152=deep[1],
        per_10m_wide=per_10m("wide_resnet50_2"),
        wide_minus_152=wide_minus_152,
        per_params=1e7,
        models_compared=4,
    )


@pytest.mark.claim(
    "DenseNet-121 has 3.2× fewer parameters than ResNet-50 (7.98M against 25.6M) and is 1.70 points below it "
    "in top-1 (74.43% against 76.13%): a third of the size, but not the same accuracy.",
    page=PAGE,
    device_independent=INDEPENDENT,
    exact="a ratio of parameter counts built on the meta device and a difference of published accuracies",
)
def test_densenet121_has_3_2x_fewer_parameters_and_lower_accuracy(claim, zoo):
    def fewer_and_worse(fewer: float, delta: float) -> None:
        between("ResNet-50 / DenseNet-121 parameters", fewer, 3.1, 3.3)
        below("DenseNet-121's top-1 points over ResNet-50", delta, -1.0)  # over a point below: not a match

    fewer = 1 / ratio(zoo, "densenet121")
    claim.check(fewer_and_worse, fewer, gain(zoo, "densenet121"))
    claim.rejects(
        fewer_and_worse,
        1 / ratio(zoo, "resnet101"),
        gain(zoo, "resnet101"),
        because="ResNet-101, larger and more accurate",
    )
    claim.rejects(
        fewer_and_worse,
        1 / ratio(zoo, "resnet50"),
        gain(zoo, "resnet50"),
        because="ResNet-50 itself: equal size, equal accuracy",
    )
    claim.record(
        fewer=fewer,
        delta=gain(zoo, "densenet121"),
        gap_points=-gain(zoo, "densenet121"),
        params_m=zoo.counted["densenet121"] / 1e6,
        resnet50_params_m=zoo.counted["resnet50"] / 1e6,
        acc1={NAMES[n]: zoo.acc1[n] for n in ("densenet121", "resnet50")},
    )


RESNETS = ("resnet50", "resnet101", "resnet152", "wide_resnet50_2")
OPS_DECIMALS = 3  # torchvision gives its _ops to three decimals
SIDE = 224


def billions(counts: dict[str, int]) -> dict[str, float]:
    return {n: c / 1e9 for n, c in counts.items()}


@pytest.mark.claim(
    "Counted by torch, the ResNet-50, ResNet-101, ResNet-152 and Wide ResNet-50-2 built here take 4.089, 7.801, "
    "11.514 and 11.398 billion multiply-adds per 224×224 image: torchvision's published _ops, to the 3 decimals "
    "it gives.",
    page=PAGE,
    device_independent="counted on the meta device: shapes only, no arithmetic runs",
    exact="torch's multiply-add counts (integers from shapes) agree with the published _ops to their 3 decimals",
)
def test_built_resnets_take_the_multiply_adds_torchvision_publishes(claim, zoo):
    def agree_to_published_decimals(counted: dict[str, float], published: dict[str, float]) -> None:
        # half a unit in the last published decimal: the count rounds to the published value
        errors = [abs(counted[n] - published[n]) for n in RESNETS]
        below("|counted − published| (billions)", errors, 0.5 * 10.0**-OPS_DECIMALS)

    counted = billions(zoo.macs)
    claim.check(agree_to_published_decimals, counted, zoo.published_ops)
    flops = {n: 2 * m for n, m in zoo.macs.items()}  # what torch reports: 2 FLOPs per multiply-add
    claim.rejects(
        agree_to_published_decimals,
        billions(flops),
        zoo.published_ops,
        because="torch's FLOP count (a multiply-add counted as 2), read as the published GFLOPS",
    )
    claim.record(
        counted=counted,
        published=zoo.published_ops,
        decimals=OPS_DECIMALS,
        side=SIDE,
        flops=billions(flops),
    )


SAME_COST = 0.02


@pytest.mark.claim(
    "Wide ResNet-50-2 takes within 2% of ResNet-152's multiply-adds per image (2.8× ResNet-50's, as does "
    "ResNet-152), and per added multiply-add widening buys as much top-1 as deepening: its gain per billion "
    "added multiply-adds lies between ResNet-101's and ResNet-152's, where per added parameter it lies below both.",
    page=PAGE,
    device_independent=INDEPENDENT,
    exact="multiply-add counts from shapes on the meta device and published accuracies (no randomness)",
)
def test_wide_resnet50_2_and_resnet152_cost_the_same_multiply_adds(claim, zoo):
    def per_added(cost: dict[str, float], name: str) -> float:
        """Top-1 points gained over ResNet-50 per unit of cost added to it."""
        return gain(zoo, name) / (cost[name] - cost["resnet50"])

    def as_costly_and_as_efficient(cost: dict[str, float]) -> None:
        same = abs(cost["wide_resnet50_2"] / cost["resnet152"] - 1)
        below("|Wide ResNet-50-2 / ResNet-152 cost − 1|", same, SAME_COST)
        deep = [per_added(cost, "resnet101"), per_added(cost, "resnet152")]
        assert min(deep) <= per_added(cost, "wide_resnet50_2") <= max(deep), (deep, cost)

    macs = billions(zoo.macs)
    claim.check(as_costly_and_as_efficient, macs)
    params = {n: zoo.counted[n] / 1e7 for n in RESNETS}  # per 10M parameters, as the table above
    claim.rejects(as_costly_and_as_efficient, params, because="the same comparison per added parameter")
    # Why the two rankings differ: the wide net's added parameters each do fewer multiply-adds.
    per_param = {
        n: (zoo.macs[n] - zoo.macs["resnet50"]) / (zoo.counted[n] - zoo.counted["resnet50"]) for n in RESNETS[1:]
    }
    assert per_param["wide_resnet50_2"] < min(per_param["resnet101"], per_param["resnet152"]), per_param
    rows = [
        [
            NAMES[n],
            zoo.counted[n] / 1e6,
            macs[n],
            macs[n] / macs["resnet50"],
            gain(zoo, n) / (macs[n] - macs["resnet50"]) if n != "resnet50" else "–",
        ]
        for n in RESNETS
    ]
    claim.record(
        table={
            "columns": [
                "model",
                "parameters (M)",
                "multiply-adds (billions)",
                "multiply-adds × ResNet-50",
                "Δ acc@1 per added billion",
            ],
            "rows": rows,
        },
        wide_over_152=macs["wide_resnet50_2"] / macs["resnet152"],
        ratio_152=macs["resnet152"] / macs["resnet50"],
        ratio_wide=macs["wide_resnet50_2"] / macs["resnet50"],
        ratio_101=macs["resnet101"] / macs["resnet50"],
        per_gmac={n: per_added(macs, n) for n in RESNETS[1:]},
        params_wide_over_152=zoo.counted["wide_resnet50_2"] / zoo.counted["resnet152"],
        tolerance=SAME_COST,
        macs=macs,
        macs_per_added_param=per_param,
    )
