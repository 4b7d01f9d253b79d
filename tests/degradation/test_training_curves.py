"""Claims of "The degradation problem": the miniature of He et al.'s Figure 1 (5 seeds) and its learning-rate sweep."""

import math
import statistics

import pytest
import torch

from snippets.degradation import training_curves as snippet

PAGE = "module/degradation.md"
SEEDS = range(5)
SHALLOW, DEEP, RESIDUAL = snippet.NETS


@pytest.fixture(scope="module")
def runs(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


def per_seed(runs, what: str, net: str) -> list[float]:
    return [getattr(r, what)[net] for r in runs]


def summary(runs, what: str) -> dict:
    rows = []
    for net in snippet.NETS:
        v = per_seed(runs, what, net)
        rows.append([net, statistics.median(v), min(v), max(v)])
    return {"columns": ["net", "median", "min", "max"], "rows": rows}


def bands(runs) -> dict:
    """Per net and epoch: median, min and max of the mean training loss over the seeds."""
    out = {}
    for net in snippet.NETS:
        by_epoch = list(zip(*(r.curves[net] for r in runs), strict=True))
        out[net] = {
            "median": [statistics.median(e) for e in by_epoch],
            "min": [min(e) for e in by_epoch],
            "max": [max(e) for e in by_epoch],
        }
    return out


FACTOR, WINS = 1.5, 4


def weight_layers(blocks: int, residual: bool = True) -> int:
    """Layers with weights (Linear) in the net of that many blocks, as the page counts them."""
    return sum(isinstance(m, torch.nn.Linear) for m in snippet.make_net(blocks, residual).modules())


def higher_in_every_seed(deep: list[float], shallow: list[float]) -> None:
    """The deeper net ends above the shallower one in every seed, by at least 1.5×."""
    for d, s in zip(deep, shallow, strict=True):
        assert d > FACTOR * s, (deep, shallow)


@pytest.mark.claim(
    "Trained with the same data, steps and learning rate, the 22-layer plain BN net ends with a "
    "training loss more than 1.5× that of the 8-layer plain net, and a higher training error, "
    "in every one of 5 seeds.",
    page=PAGE,
)
def test_deeper_plain_net_has_higher_training_loss(claim, runs):
    claim.check(higher_in_every_seed, per_seed(runs, "final_loss", DEEP), per_seed(runs, "final_loss", SHALLOW))
    for r in runs:
        assert r.final_error[DEEP] > r.final_error[SHALLOW], r.final_error
    claim.rejects(
        higher_in_every_seed,
        per_seed(runs, "final_loss", RESIDUAL),
        per_seed(runs, "final_loss", SHALLOW),
        because="the 22-layer residual net",
    )
    loss = {net: statistics.median(per_seed(runs, "final_loss", net)) for net in snippet.NETS}
    error = {net: statistics.median(per_seed(runs, "final_error", net)) for net in snippet.NETS}
    claim.record(
        loss_table=summary(runs, "final_loss"),
        error_table=summary(runs, "final_error"),
        curves=bands(runs),
        median_loss=loss,
        median_error=error,
        loss_ratio=loss[DEEP] / loss[SHALLOW],
        epochs=len(runs[0].curves[SHALLOW]),
        steps=len(runs[0].curves[SHALLOW]) * snippet.N // 128,
        seeds=len(runs),
        factor=FACTOR,
        weight_layers={"deep": weight_layers(snippet.DEEP), "shallow": weight_layers(snippet.SHALLOW)},
        loss_ratio_min=min(
            d / s
            for d, s in zip(per_seed(runs, "final_loss", DEEP), per_seed(runs, "final_loss", SHALLOW), strict=True)
        ),
        n=snippet.N,
        d_in=snippet.D_IN,
        classes=snippet.K,
        chance_loss=math.log(snippet.K),
        batch=128,  # the minibatch train() draws; steps per epoch = N / batch
        steps_per_epoch=snippet.N // 128,
        layers={"shallow": weight_layers(snippet.SHALLOW, False), "deep": weight_layers(snippet.DEEP, False)},
        blocks={"shallow": snippet.SHALLOW, "deep": snippet.DEEP, "extra": snippet.DEEP - snippet.SHALLOW},
    )


@pytest.mark.claim(
    "The 22-layer residual net ends below the 22-layer plain net in every one of 5 seeds, and at or "
    "below the 8-layer plain net in at least 4 of them.",
    page=PAGE,
)
def test_residual_net_of_same_depth_does_not_degrade(claim, runs):
    def no_degradation(deep: list[float], plain_deep: list[float], shallow: list[float]) -> None:
        assert all(d < p for d, p in zip(deep, plain_deep, strict=True)), (deep, plain_deep)
        assert sum(d <= s for d, s in zip(deep, shallow, strict=True)) >= WINS, (deep, shallow)

    losses = {net: per_seed(runs, "final_loss", net) for net in snippet.NETS}
    claim.check(no_degradation, losses[RESIDUAL], losses[DEEP], losses[SHALLOW])
    claim.rejects(no_degradation, losses[DEEP], losses[DEEP], losses[SHALLOW], because="the 22-layer plain net")
    wins = sum(d <= s for d, s in zip(losses[RESIDUAL], losses[SHALLOW], strict=True))
    claim.record(
        seeds=len(runs),
        wins_over_shallow=wins,
        median_ratio_to_shallow=statistics.median(losses[RESIDUAL]) / statistics.median(losses[SHALLOW]),
        median_ratio_to_plain=statistics.median(losses[RESIDUAL]) / statistics.median(losses[DEEP]),
        wins_needed=WINS,
        weight_layers={"deep": weight_layers(snippet.DEEP), "shallow": weight_layers(snippet.SHALLOW)},
    )


BEST_FACTOR = 3.0
PLAIN = (SHALLOW, DEEP)


def best_per_seed(runs, net: str) -> list[float]:
    """Each seed's lowest final loss over the learning rates of the sweep."""
    return [min(r.lr_loss[net].values()) for r in runs]


def lr_bands(runs) -> dict:
    """Per plain net: the swept rates and the final loss at each, median, min and max over the seeds."""
    out = {}
    for net in PLAIN:
        by_lr = [[r.lr_loss[net][lr] for r in runs] for lr in snippet.LRS]
        out[net] = {
            "lrs": list(snippet.LRS),
            "median": [statistics.median(v) for v in by_lr],
            "min": [min(v) for v in by_lr],
            "max": [max(v) for v in by_lr],
        }
    return out


def best_lr_by_median(bands: dict, net: str) -> float:
    medians = bands[net]["median"]
    return snippet.LRS[medians.index(min(medians))]


@pytest.mark.claim(
    "With the learning rate swept over 5 values from 0.01 to 0.16 for each depth, the 22-layer plain net's "
    "lowest final training loss is still more than 3× the 8-layer plain net's lowest, in every one of 5 seeds; "
    "the deeper net's best rate (by the median over seeds) is not below the shallower net's, and its smallest "
    "rate is its worst.",
    page=PAGE,
)
def test_deeper_plain_net_is_worse_at_its_best_learning_rate(claim, runs):
    def worse_at_best(deep: list[float], shallow: list[float]) -> None:
        for d, s in zip(deep, shallow, strict=True):
            assert d > BEST_FACTOR * s, (deep, shallow)

    deep, shallow = best_per_seed(runs, DEEP), best_per_seed(runs, SHALLOW)
    claim.check(worse_at_best, deep, shallow)
    bands = lr_bands(runs)
    best_lr = {net: best_lr_by_median(bands, net) for net in PLAIN}
    # Each depth's best rate lies inside the grid, so the sweep brackets it rather than stopping short.
    for net, lr in best_lr.items():
        assert snippet.LRS[0] < lr < snippet.LRS[-1], (net, bands[net])
    # Gradients that grow with depth would call for a smaller rate; the deep net does not prefer one.
    assert best_lr[DEEP] >= best_lr[SHALLOW], best_lr
    assert bands[DEEP]["median"][0] == max(bands[DEEP]["median"]), bands[DEEP]
    claim.rejects(
        worse_at_best,
        per_seed(runs, "final_loss", RESIDUAL),
        shallow,
        because="the 22-layer residual net at the shared rate, against the 8-layer plain net at its best",
    )
    ratios = [d / s for d, s in zip(deep, shallow, strict=True)]
    rows = [[lr, bands[SHALLOW]["median"][i], bands[DEEP]["median"][i]] for i, lr in enumerate(snippet.LRS)]
    claim.record(
        lrs=list(snippet.LRS),
        lr_count=len(snippet.LRS),
        lr_low=snippet.LRS[0],
        lr_high=snippet.LRS[-1],
        lr_shared=snippet.LR,
        bands=bands,
        residual=per_seed(runs, "final_loss", RESIDUAL),
        table={"columns": ["learning rate", f"{SHALLOW}: median loss", f"{DEEP}: median loss"], "rows": rows},
        best_lr={"shallow": best_lr[SHALLOW], "deep": best_lr[DEEP]},
        best_median={"shallow": statistics.median(shallow), "deep": statistics.median(deep)},
        best_ratio_min=min(ratios),
        best_ratio_median=statistics.median(ratios),
        factor=BEST_FACTOR,
        seeds=len(runs),
        runs_per_seed=len(PLAIN) * len(snippet.LRS) + 1,
        layers={"shallow": weight_layers(snippet.SHALLOW, False), "deep": weight_layers(snippet.DEEP, False)},
        residual_median=statistics.median(per_seed(runs, "final_loss", RESIDUAL)),
    )
