"""Claims of the depth-versus-width page about the committed latency benchmark of the four ResNets."""

import inspect
import math
import statistics

import pytest
import torch
from torch import nn

from benchmarks import store
from sitekit.margins import above, below, between
from snippets.costs import resnet_latency as snippet
from snippets.depth_width.resnet import RESNETS, resnet
from tests.costs import display, machines

PAGE = "module/depth-vs-width.md"
DEEP = ("resnet50", "resnet101", "resnet152")
NAMES = {
    "resnet50": "ResNet-50",
    "resnet101": "ResNet-101",
    "resnet152": "ResNet-152",
    "wide_resnet50_2": "Wide ResNet-50-2",
}
SIDE = inspect.signature(snippet.latencies).parameters["side"].default  # the 224×224 image of the main timing


def weighted_layers() -> dict[str, int]:
    """Convolutions and the classifier of each model: each one a separate kernel (or a few) per image."""
    with torch.device("meta"):
        return {
            name: sum(isinstance(m, (nn.Conv2d, nn.Linear)) for m in resnet(**spec).modules())
            for name, spec in RESNETS.items()
        }


# What the thresholds follow from. Wide ResNet-50-2 has 0.99× ResNet-152's multiply-adds and about a
# third of its layers. Were latency proportional to multiply-adds, the wide net's time over
# ResNet-152's would be 0.99; were it set by a fixed cost per layer, about 1/3. On CPU the sentence
# says it follows the multiply-adds: within √2 of 1, the geometric midpoint between equal time and
# twice (or half) the time, so nearer "the same" than "double". On CUDA, one image is bound by kernel
# launches, one or a few per layer: the ratio should fall below the geometric mean of the two
# predictions, nearer the layers' share than the multiply-adds'.
WITHIN = math.sqrt(2)


def wide_over_152(seconds: dict[str, list[float]]) -> list[float]:
    """Per round, Wide ResNet-50-2's latency over ResNet-152's in the same round."""
    return [w / d for w, d in zip(seconds["wide_resnet50_2"], seconds["resnet152"], strict=True)]


def per_round(seconds: dict[str, list[float]], a: str, b: str) -> list[float]:
    return [x / y for x, y in zip(seconds[a], seconds[b], strict=True)]


def per_second(seconds: dict[str, list[float]], macs: dict[str, float]) -> dict[str, float]:
    """Billions of multiply-adds per second of each model, at its median latency."""
    return {n: macs[n] / statistics.median(t) for n, t in seconds.items()}


def follows_multiply_adds(seconds: dict[str, list[float]]) -> None:
    """224×224: deeper is slower, and the wide net's time within √2 of ResNet-152's, in every round."""
    above("ResNet-101 / ResNet-50 latency, per round", per_round(seconds, "resnet101", "resnet50"), 1)
    above("ResNet-152 / ResNet-101 latency, per round", per_round(seconds, "resnet152", "resnet101"), 1)
    between("wide / ResNet-152 latency, per round", wide_over_152(seconds), 1 / WITHIN, WITHIN)


def wide_faster(seconds: dict[str, list[float]]) -> None:
    """The small image: the wide net, with about a third of ResNet-152's layers, faster than it in every round."""
    below("wide / ResNet-152 latency on the small image, per round", wide_over_152(seconds), 1)


@pytest.mark.claim(
    "In the benchmark committed from an Intel Xeon (batch 1, one CPU thread, 224×224 images), latency rises from "
    "ResNet-50 to ResNet-101 to ResNet-152 in every one of 5 rounds, and Wide ResNet-50-2, with 0.99× ResNet-152's "
    "multiply-adds, takes within a factor of 1.41 of its time in every round; timed in the same run on 32×32 "
    "images, where each layer's fixed cost weighs more, the wide net, with 0.35× as many layers, is faster than "
    "ResNet-152 in every round.",
    page=PAGE,
    cpu_only="the sentence is about the committed CPU sweep and the CPU it ran on; "
    "wide_resnet_latency_on_cuda_follows_its_layers states the CUDA expectation",
)
def test_cpu_latency_follows_multiply_adds_roughly(claim, device):
    record = store.load(device, "resnet_latency", machine=machines.INTEL_XEON)
    values = record["values"]
    seconds, small = values["seconds"], values["small"]
    assert set(seconds) == set(snippet.RESNETS) == set(NAMES), sorted(seconds)
    macs = {row[0]: row[1] for row in values["table"]["rows"]}
    layers = weighted_layers()
    # The sweep timed two image sizes, and each half of the sentence is about one of them; each half's check is
    # shown to fail on the other size, timed in the same run. (The counterfactual these replace, latency in
    # proportion to the number of layers, was computed in the test, not measured: honesty audit 1.15.) Candidly:
    # the 32×32 timings miss the first check only narrowly, the wide net's time falling just below 1/√2 of
    # ResNet-152's in some rounds and not in others; the record's counterfactual margin shows by how much.
    claim.check(follows_multiply_adds, seconds)
    claim.rejects(
        follows_multiply_adds,
        small["seconds"],
        because=f"the {small['side']}×{small['side']} timings of the same run, where per-layer costs weigh more",
    )
    claim.check(wide_faster, small["seconds"])
    claim.rejects(
        wide_faster, seconds, because="the 224×224 timings of the same run, where the multiply-adds weigh more"
    )
    rows = values["table"]["rows"]
    table = {"columns": values["table"]["columns"], "rows": [[NAMES[r[0]], *r[1:]] for r in rows]}
    ratios = wide_over_152(seconds)
    small_ratios = wide_over_152(small["seconds"])
    rates = per_second(seconds, macs)
    claim.record(
        table=display.rounded(table),
        provenance=display.provenance(record),
        rounds=values["rounds"],
        batch=values["batch"],
        threads=values["threads"],
        side=SIDE,
        wide_over_152_min=min(ratios),
        wide_over_152_max=max(ratios),
        wide_over_152_median=statistics.median(ratios),
        macs_wide_over_152=macs["wide_resnet50_2"] / macs["resnet152"],
        layers={NAMES[n]: k for n, k in layers.items()},
        layers_wide_over_152=layers["wide_resnet50_2"] / layers["resnet152"],
        within=WITHIN,
        rate_spread=max(rates.values()) / min(rates.values()),
        rate_min=min(rates.values()),
        rate_max=max(rates.values()),
        median_ms={NAMES[r[0]]: r[2] for r in rows},
        latency_ratio={NAMES[r[0]]: r[4] for r in rows},
        small_side=small["side"],
        small_wide_over_152=statistics.median(small_ratios),
        small_wide_over_152_max=max(small_ratios),
        small_macs_wide_over_152=small["macs_billions"]["wide_resnet50_2"] / small["macs_billions"]["resnet152"],
        small_median_ms={NAMES[n]: statistics.median(t) * 1e3 for n, t in small["seconds"].items()},
        macs_ratio={NAMES[r[0]]: r[3] for r in rows},
    )


@pytest.mark.claim(
    "On CUDA (batch 1, 224×224 images), where one image is bound by kernel launches, Wide ResNet-50-2's latency "
    "over ResNet-152's is below 0.59 in every round: the geometric mean of their multiply-add ratio (0.99) and their "
    "layer ratio (0.35), so nearer the layers' share than the multiply-adds'.",
    page=PAGE,
    cuda_only="one image on a GPU is bound by kernel launches, which the wide net needs a third as many of",
)
def test_wide_resnet_latency_on_cuda_follows_its_layers(claim, device):
    record = store.load(device, "resnet_latency")
    values = record["values"]
    seconds = values["seconds"]
    macs = {row[0]: row[1] for row in values["table"]["rows"]}
    layers = weighted_layers()
    mac_ratio = macs["wide_resnet50_2"] / macs["resnet152"]
    layer_ratio = layers["wide_resnet50_2"] / layers["resnet152"]
    threshold = math.sqrt(mac_ratio * layer_ratio)

    def launch_bound(seconds: dict[str, list[float]]) -> None:
        below("wide / ResNet-152 latency, per round", wide_over_152(seconds), threshold)

    claim.check(launch_bound, seconds)
    # The counterfactual, run (honesty audit 1.15: it was ResNet-50's times scaled by multiply-adds, computed in the
    # test): the snippet's own quick round of the same models on the GPU host's CPU, one thread, where the
    # multiply-adds set the time.
    on_host = snippet.measure("cpu", rounds=1)
    claim.rejects(launch_bound, on_host["seconds"], because="the same models timed on the GPU host's CPU, one thread")
    ratios = wide_over_152(seconds)
    claim.record(
        provenance=display.provenance(record),
        rounds=values["rounds"],
        batch=values["batch"],
        side=SIDE,
        threshold=threshold,
        macs_wide_over_152=mac_ratio,
        layers_wide_over_152=layer_ratio,
        wide_over_152_median=statistics.median(ratios),
        wide_over_152_max=max(ratios),
        host_cpu_wide_over_152=statistics.median(wide_over_152(on_host["seconds"])),
    )
