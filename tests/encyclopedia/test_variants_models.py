"""Claims of the entry "Variants of the Residual Stream, Compared" about trained models: Lab 2's pre-norm model
and four variants, trained side by side from 3 seeds in Lab 2's harness (same batches, same steps, same rate),
scored on the same held-out windows. Each seed trains five models: the file is an experiment."""

import statistics

import pytest

from sitekit.margins import below, paired_interval
from snippets.encyclopedia import variants_models as snippet

PAGE = "encyclopedia/variants.md"
SEEDS = 3
EXPERIMENT = "trains Lab 2's pre-norm model and four variants of its stream from 3 seeds each (15 models)"
TOLERANCE = 0.25
# WITHIN was fixed from reasoning before any trained variant was looked at: the pre-norm model's held-out loss
# varies across seeds by about 0.06 nats (standard deviation over Lab 2's 5 reading models), and the papers
# report gains of a few hundredths of a nat at far larger scales, so a variant within 0.1 nats of pre-norm shows
# no difference this comparison can resolve. History: a per-seed "within 0.1" claim and a claim that DenseFormer
# leads by more than 0.02 nats (per seed, then at the median) held on the tuned seeds but not on the held-out
# set, where the per-seed gaps reached 0.086 (under 20% of margin) and DenseFormer's median lead was -0.002: the
# per-seed differences change sign from seed set to seed set. The claim below keeps WITHIN and asks it of a
# sturdier statistic, each variant's mean paired difference over the seeds; the single readings are shown on
# the page as readings.
WITHIN = 0.1  # nats


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(SEEDS)]


def losses(runs, name: str) -> list[float]:
    """A model's score in each seed: its mean held-out loss over the last checkpoints."""
    return [r.models[name].valid for r in runs]


def others() -> list[str]:
    return [n for n in snippet.VARIANTS if n != "pre-norm"]


def within(base: list[float], *variants: list[float]) -> None:
    means = [statistics.mean(v - b for v, b in zip(losses, base, strict=True)) for losses in variants]
    below("|mean over seeds of variant − pre-norm held-out loss|, each variant (nats)", [abs(m) for m in means], WITHIN)


CONFIDENCE = 0.95


@pytest.mark.claim(
    "Over the 3 paired seeds, each variant's mean difference from the pre-norm model in held-out loss (averaged "
    "over the last 5 checkpoints of 1000 steps) is within 0.1 nats; the pre-norm model after 100 of those steps "
    "is not.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_every_variant_ends_within_a_tenth_of_a_nat_of_pre_norm_on_average(claim, runs):
    base = losses(runs, "pre-norm")
    claim.check(within, base, *(losses(runs, n) for n in others()))
    early = [r.models["pre-norm"].early for r in runs]
    claim.rejects(within, base, early, because="the pre-norm model a tenth of the way through training")
    first = runs[0]
    names = snippet.VARIANTS
    diffs = {n: [v - b for v, b in zip(losses(runs, n), base, strict=True)] for n in others()}
    dwa = [r.models["DenseFormer"].dwa for r in runs]
    claim.record(
        seeds=len(runs),
        steps=first.steps,
        early=first.early,
        checkpoints=len(first.tail),
        every=snippet.EVERY,
        blocks=first.depth,
        lr=first.lr,
        within=WITHIN,
        diffs=diffs,
        mean_diff={n: statistics.mean(ds) for n, ds in diffs.items()},
        # judged by the spread of the paired differences: a t interval, and the smallest mean it could resolve.
        # Read, not asserted: "none is resolved" held on these seeds and failed on CI's held-out seeds (one
        # variant's interval excluded zero there), so 3 seeds settle neither a difference nor its absence.
        confidence=CONFIDENCE,
        interval={n: paired_interval(ds, CONFIDENCE) for n, ds in diffs.items()},
        early_interval=paired_interval([e - b for e, b in zip(early, base, strict=True)], CONFIDENCE),
        resolution_min=min(paired_interval(ds)["half_width"] for ds in diffs.values()),
        resolution_max=max(paired_interval(ds)["half_width"] for ds in diffs.values()),
        resolved=sorted(
            n for n, ds in diffs.items() if not paired_interval(ds)["low"] < 0 < paired_interval(ds)["high"]
        ),
        mean_gap_max=max(abs(statistics.mean(ds)) for ds in diffs.values()),
        gap_max=max(abs(d) for ds in diffs.values() for d in ds),
        early_gap_min=min(r.models["pre-norm"].early - b for r, b in zip(runs, base, strict=True)),
        prenorm=base,
        prenorm_spread=statistics.stdev(base),
        untrained=statistics.median(r.models["pre-norm"].untrained for r in runs),
        ahead_in={n: sum(d < 0 for d in ds) for n, ds in diffs.items()},
        cpu_seconds=statistics.median(r.models[n].cpu_seconds for r in runs for n in names),
        last_on_embedding_median=statistics.median(w[-1][0] for w in dwa),
        last_on_newest_median=statistics.median(w[-1][-1] for w in dwa),
        last_weights={
            "columns": ["output", *[("embedding" if j == 0 else f"block {j}") for j in range(len(dwa[0][-1]))]],
            "rows": [[f"seed {i + 1}", *w[-1]] for i, w in enumerate(dwa)],
        },
        table={
            "columns": [
                "variant",
                "parameters",
                *[f"seed {i + 1} (nats)" for i in range(len(runs))],
                "mean change (nats)",
                "95 % interval, low",
                "95 % interval, high",
                "CPU s per model",
            ],
            "rows": [
                [
                    n,
                    first.models[n].params,
                    *losses(runs, n),
                    statistics.mean(v - b for v, b in zip(losses(runs, n), base, strict=True)),
                    *((paired_interval(diffs[n])[k] for k in ("low", "high")) if n in diffs else ("—", "—")),
                    statistics.median(r.models[n].cpu_seconds for r in runs),
                ]
                for n in names
            ],
        },
    )
