"""Claims of "The degradation problem": the miniature of He et al.'s Figure 1 (5 seeds) and its learning-rate sweep."""

import math
import statistics

import pytest

from sitekit.margins import above, below
from snippets.degradation import training_curves as snippet

PAGE = "module/degradation.md"
SHALLOW, DEEP, RESIDUAL = snippet.NETS


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


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
    """Layers with weights (Linear) in the net of that many blocks, counted on the built net."""
    return snippet.weight_layers(blocks, residual)


def steps_per_epoch() -> int:
    """Minibatches train() draws per epoch: N points split into batches of snippet.BATCH."""
    return math.ceil(snippet.N / snippet.BATCH)


def ratios(top: list[float], bottom: list[float]) -> list[float]:
    """Per seed: top / bottom."""
    return [t / b for t, b in zip(top, bottom, strict=True)]


def higher_in_every_seed(
    deep: list[float], shallow: list[float], deep_error: list[float], shallow_error: list[float]
) -> None:
    """The deeper net ends above the shallower one in every seed: loss by more than 1.5×, and error."""
    above("deep / shallow final training loss", ratios(deep, shallow), FACTOR)
    above(
        "deep − shallow final training error",
        [d - s for d, s in zip(deep_error, shallow_error, strict=True)],
        0.0,
    )


@pytest.mark.claim(
    "Trained with the same data, steps and learning rate, the 22-layer plain BN net ends with a "
    "training loss more than 1.5× that of the 8-layer plain net, and a higher training error, "
    "in every one of 5 seeds.",
    page=PAGE,
)
def test_deeper_plain_net_has_higher_training_loss(claim, runs):
    claim.check(
        higher_in_every_seed,
        per_seed(runs, "final_loss", DEEP),
        per_seed(runs, "final_loss", SHALLOW),
        per_seed(runs, "final_error", DEEP),
        per_seed(runs, "final_error", SHALLOW),
    )
    claim.rejects(
        higher_in_every_seed,
        per_seed(runs, "final_loss", RESIDUAL),
        per_seed(runs, "final_loss", SHALLOW),
        per_seed(runs, "final_error", RESIDUAL),
        per_seed(runs, "final_error", SHALLOW),
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
        steps=len(runs[0].curves[SHALLOW]) * steps_per_epoch(),
        seeds=len(runs),
        weight_layers={"deep": weight_layers(snippet.DEEP), "shallow": weight_layers(snippet.SHALLOW)},
        loss_ratio_min=min(
            d / s
            for d, s in zip(per_seed(runs, "final_loss", DEEP), per_seed(runs, "final_loss", SHALLOW), strict=True)
        ),
        n=snippet.N,
        d_in=snippet.D_IN,
        classes=snippet.K,
        chance_loss=math.log(snippet.K),
        batch=snippet.BATCH,  # the minibatch train() draws
        steps_per_epoch=steps_per_epoch(),
        layers={"shallow": weight_layers(snippet.SHALLOW, False), "deep": weight_layers(snippet.DEEP, False)},
        # the miniature's depth ratio, from the weight layers counted on the two plain nets built
        depth_ratio=weight_layers(snippet.DEEP, False) / weight_layers(snippet.SHALLOW, False),
        blocks={"shallow": snippet.SHALLOW, "deep": snippet.DEEP, "extra": snippet.DEEP - snippet.SHALLOW},
    )


@pytest.mark.claim(
    "The 22-layer residual net ends below the 22-layer plain net in every one of 5 seeds, and at or "
    "below the 8-layer plain net in at least 4 of them.",
    page=PAGE,
)
def test_residual_net_of_same_depth_does_not_degrade(claim, runs):
    def no_degradation(deep: list[float], plain_deep: list[float], shallow: list[float]) -> None:
        below("residual / plain final loss, both 22 layers", ratios(deep, plain_deep), 1.0)
        # "in at least 4 of 5": the seeds where it ends at or below the 8-layer net are counted (an integer
        # count of at least 4 is one above 3.5)...
        above(
            "seeds where the 22-layer residual net ends at or below the 8-layer plain net",
            sum(d <= s for d, s in zip(deep, shallow, strict=True)),
            WINS - 0.5,
        )
        # ...and, so that the count does not rest on ties or near-ties, in the 4 seeds where it does best
        # against the 8-layer net it must end below it with the margin floor: the 4th-lowest ratio decides.
        below(
            f"residual 22 / plain 8 final loss, in the {WINS} seeds where it is lowest",
            sorted(ratios(deep, shallow))[:WINS],
            1.0,
        )

    losses = {net: per_seed(runs, "final_loss", net) for net in snippet.NETS}
    claim.check(no_degradation, losses[RESIDUAL], losses[DEEP], losses[SHALLOW])
    # The alternative: a 22-layer net without the shortcut that was trained on its own, the plain net at the
    # other rates of the sweep, each seed's lowest of them (the plain net's best chance short of the shared
    # rate, which is the run it is compared with).
    other_rates = [min(v for lr, v in r.lr_loss[DEEP].items() if lr != snippet.LR) for r in runs]
    claim.rejects(
        no_degradation,
        other_rates,
        losses[DEEP],
        losses[SHALLOW],
        because="the 22-layer plain net, at its lowest over the sweep's other learning rates",
    )
    wins = sum(d <= s for d, s in zip(losses[RESIDUAL], losses[SHALLOW], strict=True))
    claim.record(
        seeds=len(runs),
        wins_over_shallow=wins,
        median_ratio_to_shallow=statistics.median(losses[RESIDUAL]) / statistics.median(losses[SHALLOW]),
        median_ratio_to_plain=statistics.median(losses[RESIDUAL]) / statistics.median(losses[DEEP]),
        weight_layers={"deep": weight_layers(snippet.DEEP), "shallow": weight_layers(snippet.SHALLOW)},
    )


BEST_FACTOR = 3.0
PLAIN = (SHALLOW, DEEP)


def sweeps(runs, net: str) -> list[dict[float, float]]:
    """Per seed: the final loss at each learning rate of the sweep."""
    return [r.lr_loss[net] for r in runs]


def lowest(sweep: list[dict[float, float]]) -> list[float]:
    """Each seed's lowest final loss over the learning rates it was trained at."""
    return [min(by_lr.values()) for by_lr in sweep]


def swept(runs) -> list[float]:
    """The learning rates the plain nets were actually trained at (the same for every seed and net)."""
    grids = {tuple(sorted(r.lr_loss[net])) for r in runs for net in PLAIN}
    assert len(grids) == 1, grids
    return list(grids.pop())


def lr_bands(runs) -> dict:
    """Per plain net: the swept rates and the final loss at each, median, min and max over the seeds."""
    out = {}
    for net in PLAIN:
        by_lr = [[r.lr_loss[net][lr] for r in runs] for lr in swept(runs)]
        out[net] = {
            "lrs": swept(runs),
            "median": [statistics.median(v) for v in by_lr],
            "min": [min(v) for v in by_lr],
            "max": [max(v) for v in by_lr],
        }
    return out


@pytest.mark.claim(
    "With the learning rate swept over 5 values from 0.01 to 0.16 for each depth, the 22-layer plain net ends "
    "above the 8-layer plain net at every rate, and its lowest final training loss over the sweep is still more "
    "than 3× the 8-layer net's lowest, in every one of 5 seeds.",
    page=PAGE,
)
def test_deeper_plain_net_is_worse_at_its_best_learning_rate(claim, runs):
    def worse_at_best(deep: list[dict[float, float]], shallow: list[dict[float, float]]) -> None:
        # No claim is made about *which* rate is best: the 22-layer net's loss is nearly flat across the sweep,
        # so its best rate is decided by noise, and the 8-layer net's can fall at the top of the grid. Nor is it
        # claimed that the deep net barely trains (its lowest loss above half of ln K, the halfway mark between
        # chance and a perfect fit): that held, but not by the margin floor on every seed set tried.
        above(
            "22-layer / 8-layer plain loss, each at its lowest over the sweep",
            ratios(lowest(deep), lowest(shallow)),
            BEST_FACTOR,
        )
        above(
            "22-layer / 8-layer plain loss at the same rate",
            [d[lr] / s[lr] for d, s in zip(deep, shallow, strict=True) for lr in d],
            1.0,
        )
        assert all(d.keys() == s.keys() for d, s in zip(deep, shallow, strict=True))

    claim.check(worse_at_best, sweeps(runs, DEEP), sweeps(runs, SHALLOW))
    claim.rejects(
        worse_at_best,
        [{snippet.LR: r.final_loss[RESIDUAL]} for r in runs],
        sweeps(runs, SHALLOW),
        because="the 22-layer residual net at the shared rate, against the 8-layer plain net at its lowest",
    )
    deep, shallow = lowest(sweeps(runs, DEEP)), lowest(sweeps(runs, SHALLOW))
    best = ratios(deep, shallow)
    bands = lr_bands(runs)
    lrs = swept(runs)
    rows = [[lr, bands[SHALLOW]["median"][i], bands[DEEP]["median"][i]] for i, lr in enumerate(lrs)]
    claim.record(
        lrs=lrs,
        lr_count=len(lrs),
        lr_low=lrs[0],
        lr_high=lrs[-1],
        lr_shared=snippet.LR,
        bands=bands,
        residual=per_seed(runs, "final_loss", RESIDUAL),
        table={"columns": ["learning rate", f"{SHALLOW}: median loss", f"{DEEP}: median loss"], "rows": rows},
        best_median={"shallow": statistics.median(shallow), "deep": statistics.median(deep)},
        best_ratio_min=min(best),
        best_ratio_median=statistics.median(best),
        rate_ratio_min=min(r.lr_loss[DEEP][lr] / r.lr_loss[SHALLOW][lr] for r in runs for lr in lrs),
        seeds=len(runs),
        # the training runs of one seed: every plain net at every swept rate, and each residual net once
        runs_per_seed=sum(len(v) for v in runs[0].lr_loss.values()) + len(runs[0].curves) - len(PLAIN),
        layers={"shallow": weight_layers(snippet.SHALLOW, False), "deep": weight_layers(snippet.DEEP, False)},
        residual_median=statistics.median(per_seed(runs, "final_loss", RESIDUAL)),
    )
