"""Claims of the depth-versus-width page about the committed latency benchmark of the four ResNets."""

import statistics

import pytest

from benchmarks import store
from snippets.costs import resnet_latency as snippet
from tests.costs import display

PAGE = "module/depth-vs-width.md"
DEEP = ("resnet50", "resnet101", "resnet152")
NAMES = {
    "resnet50": "ResNet-50",
    "resnet101": "ResNet-101",
    "resnet152": "ResNet-152",
    "wide_resnet50_2": "Wide ResNet-50-2",
}

# Wide ResNet-50-2 against ResNet-152, whose multiply-adds it matches within 2%. On the benchmark CPU
# (one thread, batch 1) four trial runs on 2026-11-30 put the wide net's median at 1.07-1.16x
# ResNet-152's and every model at 39-52 billion multiply-adds per second (one run beside another
# CPU-heavy job: 1.42x and 31-44); the page says "within 25%" and "within a factor of 1.5". On a GPU
# one image is bound by kernel launches, which the wide net, with a third of ResNet-152's layers,
# needs far fewer of: there the page predicts below 0.8x.
SAME_LATENCY, SPREAD, CUDA_BELOW = 0.25, 1.5, 0.8


def wide_over_152(seconds: dict[str, list[float]]) -> list[float]:
    """Per round, Wide ResNet-50-2's latency over ResNet-152's in the same round."""
    return [w / d for w, d in zip(seconds["wide_resnet50_2"], seconds["resnet152"], strict=True)]


def per_second(seconds: dict[str, list[float]], macs: dict[str, float]) -> dict[str, float]:
    """Billions of multiply-adds per second of each model, at its median latency."""
    return {n: macs[n] / statistics.median(t) for n, t in seconds.items()}


def latency_as_page_says(device: str, seconds: dict[str, list[float]], macs: dict[str, float]) -> None:
    medians = [statistics.median(seconds[n]) for n in DEEP]
    assert medians == sorted(medians), medians  # deeper is slower: 50 < 101 < 152
    ratio = statistics.median(wide_over_152(seconds))
    if device == "cuda":
        assert ratio < CUDA_BELOW, ratio
        return
    assert abs(ratio - 1) < SAME_LATENCY, ratio
    rates = per_second(seconds, macs)
    assert max(rates.values()) < SPREAD * min(rates.values()), rates


@pytest.mark.claim(
    "In the committed benchmark (batch 1, one CPU thread), latency rises from ResNet-50 to ResNet-101 to "
    "ResNet-152, every model runs within a factor of 1.5 of the others in multiply-adds per second, and Wide "
    "ResNet-50-2's median latency is within 25% of ResNet-152's, as its multiply-adds are; timed on a 32×32 "
    "image, where each layer's fixed cost weighs more, the wide net is not within 25%. On CUDA, where one "
    "image is bound by kernel launches, the wide net is predicted below 0.8× of ResNet-152.",
    page=PAGE,
)
def test_cpu_latency_follows_multiply_adds_roughly(claim, device):
    record = store.load(device, "resnet_latency")
    values = record["values"]
    seconds = values["seconds"]
    assert set(seconds) == set(snippet.RESNETS) == set(NAMES), sorted(seconds)
    macs = {row[0]: row[1] for row in values["table"]["rows"]}
    claim.check(latency_as_page_says, device, seconds, macs)
    # The alternative each device is judged against. On CPU: the same models, timed in the same run on a
    # small image, where each layer's fixed cost weighs more against its arithmetic. On CUDA (not timed
    # yet): time proportional to the multiply-adds (ResNet-50's time per multiply-add, each round).
    small = values["small"]
    if device != "cuda":
        small_ratio = statistics.median(wide_over_152(small["seconds"]))
        assert abs(small_ratio - 1) >= SAME_LATENCY, small_ratio  # the sentence's "not within"
        claim.rejects(
            latency_as_page_says,
            device,
            small["seconds"],
            small["macs_billions"],
            because=f"the same models timed on a {small['side']}×{small['side']} image",
        )
    else:
        predicted = {n: [t * macs[n] / macs["resnet50"] for t in seconds["resnet50"]] for n in seconds}
        claim.rejects(latency_as_page_says, device, predicted, macs, because="latency proportional to multiply-adds")
    rows = values["table"]["rows"]
    table = {"columns": values["table"]["columns"], "rows": [[NAMES[r[0]], *r[1:]] for r in rows]}
    ratios = wide_over_152(seconds)
    rates = per_second(seconds, macs)
    claim.record(
        table=display.rounded(table),
        provenance=display.provenance(record),
        rounds=values["rounds"],
        batch=values["batch"],
        threads=values["threads"],
        wide_over_152_min=min(ratios),
        wide_over_152_max=max(ratios),
        wide_over_152_median=statistics.median(ratios),
        macs_wide_over_152=macs["wide_resnet50_2"] / macs["resnet152"],
        same_latency=SAME_LATENCY,
        spread=SPREAD,
        rate_spread=max(rates.values()) / min(rates.values()),
        rate_min=min(rates.values()),
        rate_max=max(rates.values()),
        cuda_below=CUDA_BELOW,
        median_ms={NAMES[r[0]]: r[2] for r in rows},
        latency_ratio={NAMES[r[0]]: r[4] for r in rows},
        small_side=small["side"],
        small_wide_over_152=statistics.median(wide_over_152(small["seconds"])),
        small_macs_wide_over_152=small["macs_billions"]["wide_resnet50_2"] / small["macs_billions"]["resnet152"],
        small_median_ms={NAMES[n]: statistics.median(t) * 1e3 for n, t in small["seconds"].items()},
        macs_ratio={NAMES[r[0]]: r[3] for r in rows},
    )
