"""Claims of "Depth versus width" comparing depth and width on ImageNet (counts computed here, accuracies from
torchvision).

Every counterfactual is another model of the zoo, or another count of the same models, that measure() built
and counted: the checks take the raw counts and accuracies and do their arithmetic themselves, so the measured
case and the alternative get the same arithmetic. The numbers the sentences state are held to their printed
precision by the binder; the checks assert the comparisons.
"""

import pytest

from sitekit import facts
from sitekit.margins import above, below, between
from snippets.depth_width import model_zoo as snippet

PAGE = "module/depth-vs-width.md"
EXPERIMENT = "builds 5 ImageNet models on the meta device and counts their multiply-adds with torch's counter"
TOLERANCE = 0.01  # exact: integer counts from shapes and published numbers, the same on every processor
INDEPENDENT = "parameter counts of models built on the meta device, and published accuracies"
BASE = "resnet50"
PER = 10**7  # accuracy gained per this many added parameters (per 10M), in the table and the per-parameter claim


@pytest.fixture(scope="module")
def zoo(device, seeds):
    return snippet.measure(device, seed=seeds.first())  # no randomness: counts on the meta device


def ratio(r: snippet.Result, name: str) -> float:
    return r.counted[name] / r.counted[BASE]


def gain(r: snippet.Result, name: str) -> float:
    return r.acc1[name] - r.acc1[BASE]


def per_added(acc: float, base_acc: float, cost: float, base_cost: float, per: float = 1) -> float:
    """Top-1 points gained over the base model per `per` units of cost added to it."""
    return (acc - base_acc) / ((cost - base_cost) / per)


def table(r: snippet.Result) -> dict:
    """Display table: whole counts, ratios and differences rounded to three decimals; names and layers as built."""
    rows = []
    for n in r.counted:
        extra = r.counted[n] - r.counted[BASE]
        per_10m = round(per_added(r.acc1[n], r.acc1[BASE], r.counted[n], r.counted[BASE], PER), 2) if extra > 0 else "–"
        rows.append(
            [r.names[n], r.layers[n], r.counted[n], round(ratio(r, n), 3), r.acc1[n], round(gain(r, n), 3), per_10m]
        )
    cols = ["model", "layers", "parameters", "× ResNet-50", "acc@1 %", "Δ acc@1", f"Δ acc@1 per +{PER / 1e6:g}M params"]
    return {"columns": cols, "rows": rows}


@pytest.mark.claim(
    "Wide ResNet-50-2 has 2.70× ResNet-50's parameters (68.9M), not 4× (102.2M), for +2.34 points of top-1: "
    "doubling the bottleneck width quadruples only the 3×3 convolutions.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
    device_independent=INDEPENDENT,
    exact="a ratio of two parameter counts of models built on the meta device (integers, no randomness), and "
    "their per-kernel counts",
)
def test_wide_resnet50_2_has_2_7x_resnet50_parameters_not_4x(claim, zoo):
    def about_2_7x(params: int, base_params: int, kernels: dict[str, int], base_kernels: dict[str, int]) -> None:
        between("Wide ResNet-50-2 / ResNet-50 parameters", params / base_params, 2.69, 2.70)
        assert kernels["3x3"] == 4 * base_kernels["3x3"], (kernels, base_kernels)  # quadrupled...
        assert 1 < kernels["1x1"] / base_kernels["1x1"] < 2, (kernels, base_kernels)  # ...the 1×1 ones not

    wide, k50, kw = "wide_resnet50_2", zoo.kernels[BASE], zoo.kernels["wide_resnet50_2"]
    claim.check(about_2_7x, zoo.counted[wide], zoo.counted[BASE], kw, k50)
    claim.rejects(
        about_2_7x,
        kw["3x3"],
        k50["3x3"],
        kw,
        k50,
        because="the 3×3 convolutions' parameters alone, the only part that quadruples",
    )
    claim.rejects(
        about_2_7x,
        zoo.counted["resnet101"],
        zoo.counted[BASE],
        zoo.kernels["resnet101"],
        k50,
        because="ResNet-101, which grows by depth, not by bottleneck width",
    )
    claim.record(
        table=table(zoo),
        ratio=ratio(zoo, wide),
        params_m=zoo.counted[wide] / 1e6,
        quadrupled_m=4 * zoo.counted[BASE] / 1e6,
        gain=gain(zoo, wide),
        per_params=PER,  # the table's last column: points per this many added parameters
        kernels={
            "columns": ["parameters in", "ResNet-50", "Wide ResNet-50-2", "ratio"],
            "rows": [[k, k50[k], kw[k], round(kw[k] / k50[k], 3)] for k in k50],
        },
    )


@pytest.mark.claim(
    "ResNet-101 has 1.74× ResNet-50's parameters (44.5M) and ResNet-152 2.36× (60.2M), for +1.24 and "
    "+2.18 points of top-1.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
    device_independent=INDEPENDENT,
    exact="ratios of parameter counts built on the meta device and differences of published accuracies",
)
def test_resnet101_and_152_parameter_ratios(claim, zoo):
    # The check asserts the direction (more parameters, more accuracy); the sentence's six numbers are held to
    # the recorded values at the precision printed by the binder.
    def more_parameters_more_accuracy(params: list[int], base_params: int, acc: list[float], base_acc: float) -> None:
        above("parameters / ResNet-50's", [p / base_params for p in params], 1)
        above("top-1 points over ResNet-50", [a - base_acc for a in acc], 0)

    deeper = ("resnet101", "resnet152")
    claim.check(
        more_parameters_more_accuracy,
        [zoo.counted[n] for n in deeper],
        zoo.counted[BASE],
        [zoo.acc1[n] for n in deeper],
        zoo.acc1[BASE],
    )
    claim.rejects(
        more_parameters_more_accuracy,
        [zoo.counted["densenet121"]],
        zoo.counted[BASE],
        [zoo.acc1["densenet121"]],
        zoo.acc1[BASE],
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


DEEP, WIDE = ("resnet101", "resnet152"), "wide_resnet50_2"


@pytest.mark.claim(
    "Per added parameter, depth buys more top-1 than width here: +0.66 (ResNet-101) and +0.63 (ResNet-152) "
    "points per 10M extra parameters against +0.54 for Wide ResNet-50-2, which is nonetheless the most "
    "accurate of the models compared.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
    device_independent=INDEPENDENT,
    exact="published accuracy differences divided by parameter counts built on the meta device (no randomness)",
)
def test_depth_buys_more_accuracy_per_parameter_than_width(claim, zoo):
    def deeper_is_more_efficient(cost: dict[str, int], acc: dict[str, float]) -> dict[str, float]:
        """Points per PER units of added cost, per model; each deeper net's must exceed the wide net's."""
        per = {n: per_added(acc[n], acc[BASE], cost[n], cost[BASE], PER) for n in (*DEEP, WIDE)}
        above("deepening's points per added cost − widening's", [per[n] - per[WIDE] for n in DEEP], 0)
        # "nonetheless the most accurate": above every other model compared, ResNet-152 the closest
        above("Wide ResNet-50-2's top-1 − each other model's", [acc[WIDE] - acc[n] for n in acc if n != WIDE], 0)
        return per

    per_10m = claim.check(deeper_is_more_efficient, zoo.counted, zoo.acc1)
    # The alternative cost: torch's count of multiply-adds for the same models. Per added multiply-add the
    # wide net lies between the two deeper ones (the next claims), so "every deeper net above it" must fail.
    claim.rejects(deeper_is_more_efficient, zoo.macs, zoo.acc1, because="the same comparison per added multiply-add")
    claim.record(
        per_10m_101=per_10m["resnet101"],
        per_10m_152=per_10m["resnet152"],
        per_10m_wide=per_10m[WIDE],
        wide_minus_152=zoo.acc1[WIDE] - zoo.acc1["resnet152"],
        per_params=PER,
    )


@pytest.mark.claim(
    "DenseNet-121 has 3.2× fewer parameters than ResNet-50 (7.98M against 25.6M) and is 1.70 points below it "
    "in top-1 (74.43% against 76.13%): under a third of the size, but not the same accuracy.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
    device_independent=INDEPENDENT,
    exact="a ratio of parameter counts built on the meta device and a difference of published accuracies",
)
def test_densenet121_has_3_2x_fewer_parameters_and_lower_accuracy(claim, zoo):
    def fewer_and_worse(params: int, base_params: int, acc: float, base_acc: float) -> None:
        between("ResNet-50 / DenseNet-121 parameters", base_params / params, 3.1, 3.3)
        below("DenseNet-121 / ResNet-50 parameters", params / base_params, 1 / 3)
        below("DenseNet-121's top-1 points over ResNet-50", acc - base_acc, -1.0)  # over a point below: not a match

    dense = "densenet121"
    claim.check(fewer_and_worse, zoo.counted[dense], zoo.counted[BASE], zoo.acc1[dense], zoo.acc1[BASE])
    claim.rejects(
        fewer_and_worse,
        zoo.counted["resnet101"],
        zoo.counted[BASE],
        zoo.acc1["resnet101"],
        zoo.acc1[BASE],
        because="ResNet-101, larger and more accurate",
    )
    claim.record(
        fewer=1 / ratio(zoo, dense),
        delta=gain(zoo, dense),
        gap_points=-gain(zoo, dense),
        params_m=zoo.counted[dense] / 1e6,
        resnet50_params_m=zoo.counted[BASE] / 1e6,
        acc1={zoo.names[n]: zoo.acc1[n] for n in (dense, BASE)},
    )


RESNETS = ("resnet50", "resnet101", "resnet152", "wide_resnet50_2")


def billions(counts: dict[str, int]) -> dict[str, float]:
    return {n: c / 1e9 for n, c in counts.items()}


def decimals(x: float) -> int:
    """The decimals a published number is given to (4.089: 3)."""
    text = repr(x)
    return len(text.split(".")[1]) if "." in text else 0


@pytest.mark.claim(
    "Counted by torch, the ResNet-50, ResNet-101, ResNet-152 and Wide ResNet-50-2 built here take 4.089, 7.801, "
    "11.514 and 11.398 billion multiply-adds per 224×224 image: torchvision's published _ops, to the 3 decimals "
    "it gives.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
    device_independent="counted on the meta device: shapes only, no arithmetic runs",
    exact="torch's multiply-add counts (integers from shapes) agree with the published _ops to their 3 decimals",
)
def test_built_resnets_take_the_multiply_adds_torchvision_publishes(claim, zoo):
    crop = facts.registry().value("imagenet_eval_crop")  # the side torchvision evaluates (and counts _ops) at

    def agree_to_published_decimals(counted: dict[str, int], published: dict[str, float], side: int) -> None:
        assert side == crop, (side, crop)
        # half a unit in the last published decimal: the count rounds to the published value
        places = max(decimals(published[n]) for n in RESNETS)
        errors = [abs(counted[n] / 1e9 - published[n]) for n in RESNETS]
        below("|counted − published| (billions)", errors, 0.5 * 10.0**-places)

    claim.check(agree_to_published_decimals, zoo.macs, zoo.published_ops, zoo.side)
    claim.rejects(
        agree_to_published_decimals,
        zoo.flops,
        zoo.published_ops,
        zoo.side,
        because="torch's FLOP count (a multiply-add counted as 2), read as the published GFLOPS",
    )
    claim.record(
        counted=billions(zoo.macs),
        published=zoo.published_ops,
        decimals=max(decimals(zoo.published_ops[n]) for n in RESNETS),
        side=zoo.side,
        flops=billions(zoo.flops),
    )


SAME_COST = 0.02


@pytest.mark.claim(
    "Wide ResNet-50-2 takes within 2% of ResNet-152's multiply-adds per image (2.8× ResNet-50's, as does "
    "ResNet-152), and per added multiply-add widening buys as much top-1 as deepening: its gain per billion "
    "added multiply-adds lies between ResNet-101's and ResNet-152's, where per added parameter it lies below both.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
    device_independent=INDEPENDENT,
    exact="multiply-add counts from shapes on the meta device and published accuracies (no randomness)",
)
def test_wide_resnet50_2_and_resnet152_cost_the_same_multiply_adds(claim, zoo):
    def as_costly_and_as_efficient(cost: dict[str, int], acc: dict[str, float]) -> dict[str, float]:
        same = abs(cost[WIDE] / cost["resnet152"] - 1)
        below("|Wide ResNet-50-2 / ResNet-152 cost − 1|", same, SAME_COST)
        per = {n: per_added(acc[n], acc[BASE], cost[n], cost[BASE]) for n in (*DEEP, WIDE)}
        assert min(per[n] for n in DEEP) <= per[WIDE] <= max(per[n] for n in DEEP), per
        return per

    per_mac = claim.check(as_costly_and_as_efficient, zoo.macs, zoo.acc1)
    claim.rejects(as_costly_and_as_efficient, zoo.counted, zoo.acc1, because="the same comparison per added parameter")
    # Why the two rankings differ: the wide net's added parameters each do fewer multiply-adds.
    per_param = {n: (zoo.macs[n] - zoo.macs[BASE]) / (zoo.counted[n] - zoo.counted[BASE]) for n in RESNETS[1:]}
    assert per_param[WIDE] < min(per_param[n] for n in DEEP), per_param
    macs = billions(zoo.macs)
    rows = [
        [
            zoo.names[n],
            zoo.counted[n] / 1e6,
            macs[n],
            macs[n] / macs[BASE],
            per_mac[n] * 1e9 if n != BASE else "–",  # points per added billion
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
        wide_over_152=zoo.macs[WIDE] / zoo.macs["resnet152"],
        ratio_152=zoo.macs["resnet152"] / zoo.macs[BASE],
        ratio_wide=zoo.macs[WIDE] / zoo.macs[BASE],
        ratio_101=zoo.macs["resnet101"] / zoo.macs[BASE],
        per_gmac={n: per_mac[n] * 1e9 for n in per_mac},
        params_wide_over_152=zoo.counted[WIDE] / zoo.counted["resnet152"],
        tolerance=SAME_COST,
        macs=macs,
        macs_per_added_param=per_param,
    )
