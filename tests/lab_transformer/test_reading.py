"""Claims of Lab 2 about reading the trained model's stream: logit lens, attribution (the first seed's model),
patching (5 models, one per seed)."""

import itertools
import statistics

import pytest

from sitekit.margins import above, below
from snippets.lab_transformer import reading as snippet

PAGE = "module/lab-transformer-stream.md"
LENS_DROP = 1.0  # nats the lens loss falls from the embedding to the last block
LENS_SLACK = 0.05  # no block may raise the lens loss by more than this
EXACT = 1e-12  # float64: the attribution's sum against the real logit
MIN_GAP = 0.05  # nats: on the windows kept, corrupting must cost the right answer at least this much
LARGE = 0.35  # the best block's write restores more than this share of the gap
MODELS = 5  # the patching claim reads one trained model per seed: which block carries the character varies


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(MODELS)]


@pytest.fixture(scope="module")
def result(results):
    """The model the page reads: the first seed's."""
    return results[0]


@pytest.mark.claim(
    "In the trained 6-block model (one seed), the logit lens loss falls by more than 1 nat from the embedding to "
    "the last block, and no block raises it by more than 0.05; in the untrained model it does not fall.",
    page=PAGE,
)
def test_logit_lens_loss_falls_block_by_block(claim, result, seeds):
    def falls(losses: list[float]) -> None:
        above("lens loss at the embedding − after the last block (nats)", losses[0] - losses[-1], LENS_DROP)
        below(
            "largest rise of the lens loss over one block (nats)",
            max(b - a for a, b in itertools.pairwise(losses)),
            LENS_SLACK,
        )

    claim.check(falls, result.lens_loss)
    claim.rejects(falls, result.untrained_lens_loss, because="the same model before training")
    rows = [
        [("embedding" if k == 0 else f"block {k}"), result.lens_loss[k], result.lens_agree[k]]
        for k in range(result.depth + 1)
    ]
    claim.record(
        table={"columns": ["stream after", "lens loss (nats)", "top-1 agrees with output"], "rows": rows},
        loss=result.lens_loss,
        agree=result.lens_agree,
        untrained_loss=result.untrained_lens_loss,
        untrained_agree=result.untrained_lens_agree,
        drop=result.lens_loss[0] - result.lens_loss[-1],
        untrained_drop=result.untrained_lens_loss[0] - result.untrained_lens_loss[-1],
        embedding_agree=result.lens_agree[0],
        slack=LENS_SLACK,
        blocks=result.depth,
        steps=result.steps,
        windows=result.windows,
        valid_loss=result.valid_loss,
        seed=seeds.first(),  # the seed of the model read: results[0], the first of the set
    )


@pytest.mark.claim(
    "The embedding's and the six blocks' direct contributions, taken through the final LayerNorm with "
    "its scale fixed, add up to the logit of the right character to within 1e-12 (float64); putting each "
    "part through the LayerNorm on its own does not.",
    page=PAGE,
    exact="with the LayerNorm's divisor fixed the logit is affine in the parts: the split is exact up to float64 "
    "rounding",
)
def test_direct_logit_attribution_sums_to_the_logit(claim, result, results):
    def exact(errors: list[float]) -> None:
        below("|sum of the shares + constant − logit|", errors, EXACT)

    claim.check(exact, [r.dla_error for r in results])
    claim.rejects(exact, [r.dla_naive_error for r in results], because="each part normalised on its own")
    rows = [[("embedding" if k == 0 else f"block {k}"), share] for k, share in enumerate(result.dla_shares)]
    claim.record(
        table={"columns": ["part of the stream", "share of the logit"], "rows": rows},
        shares=result.dla_shares,
        error=max(r.dla_error for r in results),
        naive_error=result.dla_naive_error,
        logit=result.dla_logit,
        tolerance=EXACT,
        windows=result.windows,
        blocks=result.depth,
        seeds=len(results),
    )


@pytest.mark.claim(
    "Corrupt the second-to-last character of held-out windows and keep those where that costs the "
    "right next character most (a fixed share the listing sets): "
    "across 5 trained models, patching the clean write of the best single block "
    "into the corrupted run restores a median of more than 0.35 of the lost log-probability, the last block's "
    "write less than that in every model; in every untrained model the corruption costs less than 0.05 nats, "
    "nothing to restore.",
    page=PAGE,
)
def test_patching_one_block_restores_most_of_the_gap(claim, results):
    # Which block carries the previous character, and how much of it one block carries, changes from one
    # trained model to the next (a model whose attention spreads it over several blocks has no single block
    # that restores much), so one model's best share says little about the next one's. The claim is about
    # the typical trained model: the median over MODELS of them, with the range recorded. The last block's
    # share and the untrained models' cost are bounds every model meets.
    def restores(shares: list[float], gaps: list[float]) -> None:
        above("median over models: corruption's cost on the windows kept (nats)", statistics.median(gaps), MIN_GAP)
        above("median over models: share of the gap one block's write restores", statistics.median(shares), LARGE)

    def less(shares: list[float]) -> None:
        below("share of the gap the last block's write restores", shares, LARGE)

    def nothing_to_restore(gaps: list[float]) -> None:
        below("corruption's cost on the windows kept (nats)", gaps, MIN_GAP)

    best = [max(r.patch_restored) for r in results]
    last = [r.patch_restored[-1] for r in results]
    gaps = [r.patch_gap for r in results]
    untrained_gaps = [r.untrained_patch_gap for r in results]
    claim.check(restores, best, gaps)
    claim.check(less, last)
    claim.check(nothing_to_restore, untrained_gaps)
    claim.rejects(restores, last, gaps, because="the last block's write")
    claim.rejects(
        restores, [max(r.untrained_patch_restored) for r in results], untrained_gaps, because="the untrained models"
    )
    claim.rejects(less, best, because="the best block's write")
    claim.rejects(nothing_to_restore, gaps, because="the trained models")
    first = results[0]
    best_block = max(range(first.depth), key=lambda k: first.patch_restored[k])
    best_blocks = [max(range(r.depth), key=lambda k, r=r: r.patch_restored[k]) + 1 for r in results]
    claim.record(
        table={
            "columns": ["patched block", "share of the gap restored"],
            "rows": [[f"block {k + 1}", s] for k, s in enumerate(first.patch_restored)],
        },
        restored=first.patch_restored,
        best_block=best_block + 1,
        best=first.patch_restored[best_block],
        last=first.patch_restored[-1],
        gap=first.patch_gap,
        untrained_gap=first.untrained_patch_gap,
        best_median=statistics.median(best),
        best_min=min(best),
        best_max=max(best),
        best_blocks=best_blocks,
        last_max=max(last),
        gap_median=statistics.median(gaps),
        gap_min=min(gaps),
        gap_max=max(gaps),
        untrained_gap_max=max(untrained_gaps),
        per_model={
            "columns": ["model", "best block", "its share", "last block's share", "cost of the corruption (nats)"],
            "rows": [
                [
                    f"model {i + 1}" + (" (read above)" if i == 0 else ""),
                    f"block {block}",
                    max(r.patch_restored),
                    r.patch_restored[-1],
                    r.patch_gap,
                ]
                for i, (r, block) in enumerate(zip(results, best_blocks, strict=True))
            ],
        },
        min_gap=MIN_GAP,
        large=LARGE,
        candidates=first.candidates,
        kept=first.candidates // 8,
        blocks=first.depth,
        seeds=len(results),
    )
