"""Claim of "Depth versus width": DenseNets against ResNets on the accuracy–parameter frontier, from torchvision's
published weights metadata (snippets/depth_width/frontier.py reads it through the facts registry, which a contract
test compares with the pinned torchvision wheel)."""

import pytest

from sitekit import runs
from sitekit.margins import above
from snippets.depth_width import frontier as snippet

PAGE = "module/depth-vs-width.md"
INDEPENDENT = "published weights metadata (parameter counts and accuracies): no computation runs on a device"
MATCHED = ("densenet201", "densenet161")  # the DenseNets whose top-1 lies within the ResNets' range


@pytest.fixture(scope="module")
def zoo(device, seeds):
    return snippet.measure(device, seed=seeds.first())  # no randomness: published numbers


def table(r: snippet.Result) -> dict:
    """One row per model: family, published parameters, multiply-adds and top-1 (V1 weights)."""
    rows = [[n, "DenseNet" if n in r.densenets else "ResNet", r.params[n], r.ops[n], r.acc1[n]] for n in r.params]
    return {"columns": ["model", "family", "parameters", "multiply-adds (billions)", "acc@1 %"], "rows": rows}


@pytest.mark.claim(
    "On torchvision's published ImageNet weights, the line through ResNet-50, ResNet-101 and ResNet-152 (top-1 "
    "linear in log parameters between neighbours) needs 36.0M parameters for DenseNet-201's 76.896% top-1, "
    "1.80× its 20.0M, and 40.1M for DenseNet-161's 77.138%, 1.40× its 28.7M; DenseNet-201 is 0.48 points below "
    "ResNet-101 with 0.45× its parameters.",
    page=PAGE,
    device_independent=INDEPENDENT,
    exact="arithmetic on torchvision's published num_params and acc@1 (no randomness, no training)",
)
def test_densenets_lie_above_the_resnet_line(claim, zoo):
    def resnet_line_needs_more(
        params: dict[str, int], acc: dict[str, float], resnet_acc: dict[str, float]
    ) -> dict[str, float]:
        line = [(params[n], resnet_acc[n]) for n in snippet.RESNETS]
        lo, hi = min(a for _, a in line), max(a for _, a in line)
        assert all(lo <= acc[n] <= hi for n in MATCHED), (lo, hi, acc)  # a point of the line to read, no extrapolation
        need = {n: snippet.params_for(acc[n], line) for n in MATCHED}
        above(
            "ResNet line's parameters at a DenseNet's top-1 / the DenseNet's", [need[n] / params[n] for n in MATCHED], 1
        )
        return need

    need = claim.check(resnet_line_needs_more, zoo.params, zoo.acc1, zoo.acc1)
    # The same comparison against the ResNets' newer IMAGENET1K_V2 weights (a longer, modern recipe): every DenseNet
    # is below ResNet-50's V2 accuracy, so there is no point of the line to compare with. The frontier is a
    # statement about one recipe per family.
    claim.rejects(resnet_line_needs_more, zoo.params, zoo.acc1, zoo.acc1_v2, because="the ResNets' V2 weights")
    line_at_201 = runs.run(
        snippet.params_for, zoo.acc1["densenet201"], [(zoo.params[n], zoo.acc1[n]) for n in zoo.resnets]
    )
    assert line_at_201 == need["densenet201"]
    p, a = zoo.params, zoo.acc1
    claim.record(
        table=table(zoo),
        need_m={n: need[n] / 1e6 for n in MATCHED},
        need_ratio={n: need[n] / p[n] for n in MATCHED},
        params_m={n: p[n] / 1e6 for n in p},
        acc1=dict(a),
        acc1_v2=dict(zoo.acc1_v2),
        gap_201_101=a["resnet101"] - a["densenet201"],
        ratio_201_101=p["densenet201"] / p["resnet101"],
        gain_201_50=a["densenet201"] - a["resnet50"],
        ratio_201_50=p["densenet201"] / p["resnet50"],
        ops_201_over_50=zoo.ops["densenet201"] / zoo.ops["resnet50"],
        gap_161_152=a["resnet152"] - a["densenet161"],
        below_range=[n for n in zoo.densenets if a[n] < min(a[r] for r in zoo.resnets)],
    )
