"""Claims of the entry "Hyper-Connections" about trained models: Lab 2's reading model trained with and without
hyper-connections (n = 4 copies, static) from the same seeds, compared on held-out text, and the trained mixing
matrices read. Each model trains for Lab 2's step count: the file is an experiment."""

import statistics

import pytest

from sitekit.margins import above, below
from snippets.encyclopedia import hyper_connections_trained as snippet

PAGE = "encyclopedia/hyper-connections.md"
MODELS = 3  # seeds; each trains a pre-norm model and its hyper-connected twin (over a minute together)
HC = "hyper-connections"
EXPERIMENT = (
    "trains 3 pairs of 6-block character transformers (Lab 2's pre-norm reading model, and the same model with "
    "static hyper-connections on 4 copies) and reads their mixing matrices"
)
# One trained model's held-out loss moved 0.025 nats between two processors (Lab 2's seed-0 reading model: 2.007 on
# AMD EPYC, 2.032 on this Intel Xeon), so a gap between two trained models can move by about twice that; with 3
# seeds the spread route (6 spreads) covers such a move where the relative one does not.
TOLERANCE = 0.3
# A tenth of a nat: Lab 2's pre-norm reading models trained from different seeds end about that far apart on held-out
# text (1.88 to 2.03 nats over its 5 seeds), so a gap below it is one this experiment cannot tell from the draw of a
# seed. The comparison is paired: each pair shares its initial branch weights, its batches and its held-out windows.
# (The first sentence written here, "ahead by more than 0.03 nats in every seed", failed on the third tuned seed.)
WORSE = 0.1
MOVED = 0.1  # "moved off the identity": the composite gain lies more than a tenth from the identity's 1


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(MODELS)]


@pytest.mark.claim(
    "Trained for Lab 2's 1500 steps from the same initial weights and batches, the 6-block model with static "
    "hyper-connections (4 copies) ends no more than 0.1 nats above the pre-norm model's held-out loss, in each of 3 "
    "seeds; the same hyper-connected models before training do not.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_hyper_connections_do_no_worse_than_prenorm_at_lab_scale(claim, runs):
    def no_worse(prenorm: list[float], hyper: list[float]) -> None:
        below(
            "hyper-connected − pre-norm held-out loss, per seed (nats)",
            [h - p for p, h in zip(prenorm, hyper, strict=True)],
            WORSE,
        )

    prenorm = [r.prenorm_loss for r in runs]
    claim.check(no_worse, prenorm, [r.trained[HC].valid_loss for r in runs])
    claim.rejects(
        no_worse, prenorm, [r.trained[HC].untrained_loss for r in runs], because="the hyper-connected models untrained"
    )
    leads = [r.prenorm_loss - r.trained[HC].valid_loss for r in runs]
    first = runs[0]
    extra = first.parameters[HC] - first.prenorm_parameters
    claim.record(
        models=len(runs),
        blocks=first.depth,
        updates=first.updates,
        steps=first.steps,
        n=first.n,
        worse=WORSE,
        ahead=sum(lead > 0 for lead in leads),
        behind=sum(lead < 0 for lead in leads),
        prenorm=prenorm,
        hyper=[r.trained[HC].valid_loss for r in runs],
        leads=leads,
        lead_median=statistics.median(leads),
        lead_mean=statistics.mean(leads),
        lead_min=min(leads),
        lead_max=max(leads),
        untrained=[r.trained[HC].untrained_loss for r in runs],
        prenorm_parameters=first.prenorm_parameters,
        parameters=first.parameters[HC],
        extra=extra,
        extra_percent=100 * extra / first.prenorm_parameters,
        seconds_prenorm=statistics.median(r.prenorm_seconds for r in runs),
        seconds_hyper=statistics.median(r.trained[HC].seconds for r in runs),
        time_ratio=statistics.median(r.trained[HC].seconds / r.prenorm_seconds for r in runs),
        table={
            "columns": ["seed", "pre-norm (nats)", "hyper-connections (nats)", "pre-norm − hyper-connections"],
            "rows": [
                [i + 1, r.prenorm_loss, r.trained[HC].valid_loss, lead]
                for i, (r, lead) in enumerate(zip(runs, leads, strict=True))
            ],
        },
    )


@pytest.mark.claim(
    "After training, the composite gain of the first l unconstrained mixing matrices (the largest singular value of "
    "M_l ⋯ M_1) strays more than 0.1 from the identity's 1 at some update l of the 12, in each of 3 seeds; before "
    "training it is 1 at every update.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_trained_mixing_moves_the_composite_gain_off_one(claim, runs):
    # The largest departure over the updates, not the gain after the last one: the gain wanders both ways, and on
    # held-out seeds it came back within 0.1 of 1 at the last update in some models (0.97 in one) after straying.
    def moved(gains: list[list[float]]) -> None:
        above("largest |composite gain − 1| over the updates", [max(abs(g - 1) for g in c) for c in gains], MOVED)

    trained = [r.trained[HC] for r in runs]
    claim.check(moved, [t.gains for t in trained])
    claim.rejects(moved, [t.untrained_gains for t in trained], because="the same models before training")
    final = [t.gains[-1] for t in trained]
    largest = [max(s[0] for s in t.singular) for t in trained]
    smallest = [min(s[-1] for s in t.singular) for t in trained]
    claim.record(
        models=len(runs),
        updates=runs[0].updates,
        moved=MOVED,
        final=final,
        final_min=min(final),
        final_max=max(final),
        peak=[max(t.gains) for t in trained],
        peak_max=max(max(t.gains) for t in trained),
        peak_at=[t.gains.index(max(t.gains)) + 1 for t in trained],
        curves=[t.gains for t in trained],
        median_curve=[statistics.median(c) for c in zip(*(t.gains for t in trained), strict=True)],
        largest_max=max(largest),
        smallest_min=min(smallest),
        row_error_max=max(t.row_error for t in trained),
        column_error_max=max(t.column_error for t in trained),
        negative_min=min(t.negative for t in trained),
        off_diagonal=statistics.median(t.off_diagonal for t in trained),
        untrained_max=max(abs(g - 1) for t in trained for g in t.untrained_gains),
        departure=[max(abs(g - 1) for g in t.gains) for t in trained],
        departure_min=min(max(abs(g - 1) for g in t.gains) for t in trained),
    )
