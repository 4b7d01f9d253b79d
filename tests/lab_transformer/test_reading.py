"""Claims of Lab 2 about reading the trained model's stream: logit lens, attribution, patching (one seed)."""

import itertools

import pytest

from snippets.lab_transformer import reading as snippet

PAGE = "module/lab-transformer-stream.md"
LENS_DROP = 1.0  # nats the lens loss falls from the embedding to the last block
LENS_SLACK = 0.05  # no block may raise the lens loss by more than this
EXACT = 1e-12  # float64: the attribution's sum against the real logit
MIN_GAP = 0.05  # nats: on the windows kept, corrupting must cost the right answer at least this much
LARGE = 0.35  # the best block's write restores more than this share of the gap


@pytest.fixture(scope="module")
def result(device):
    return snippet.measure(device, seed=0)


@pytest.mark.claim(
    "In the trained 6-block model, the logit lens loss falls by more than 1 nat from the embedding to "
    "the last block, and no block raises it by more than 0.05; in the untrained model it does not fall.",
    page=PAGE,
)
def test_logit_lens_loss_falls_block_by_block(claim, result):
    def falls(losses: list[float]) -> None:
        assert losses[0] - losses[-1] > LENS_DROP, losses
        assert all(b < a + LENS_SLACK for a, b in itertools.pairwise(losses)), losses

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
        threshold=LENS_DROP,
        slack=LENS_SLACK,
        blocks=result.depth,
        steps=result.steps,
        windows=result.windows,
        valid_loss=result.valid_loss,
        seeds=1,
    )


@pytest.mark.claim(
    "The embedding's and the six blocks' direct contributions, taken through the final LayerNorm with "
    "its scale fixed, add up to the logit of the right character to within 1e-12 (float64); putting each "
    "part through the LayerNorm on its own does not.",
    page=PAGE,
)
def test_direct_logit_attribution_sums_to_the_logit(claim, result):
    def exact(error: float) -> None:
        assert error < EXACT, error

    claim.check(exact, result.dla_error)
    claim.rejects(exact, result.dla_naive_error, because="each part normalised on its own")
    rows = [[("embedding" if k == 0 else f"block {k}"), share] for k, share in enumerate(result.dla_shares)]
    claim.record(
        table={"columns": ["part of the stream", "share of the logit"], "rows": rows},
        shares=result.dla_shares,
        error=result.dla_error,
        naive_error=result.dla_naive_error,
        logit=result.dla_logit,
        tolerance=EXACT,
        windows=result.windows,
        blocks=result.depth,
    )


@pytest.mark.claim(
    "Corrupt the second-to-last character of held-out windows and keep the eighth where that costs the "
    "right next character most: in the trained model, patching the clean write of one block into the "
    "corrupted run restores more than 0.35 of the lost log-probability, the last block's write less; in "
    "the untrained model the corruption costs less than 0.05 nats, nothing to restore.",
    page=PAGE,
)
def test_patching_one_block_restores_most_of_the_gap(claim, result):
    def restores(share: float, gap: float) -> None:
        assert gap > MIN_GAP and share > LARGE, (share, gap)

    best = max(range(result.depth), key=lambda k: result.patch_restored[k])
    claim.check(restores, result.patch_restored[best], result.patch_gap)
    claim.rejects(restores, result.patch_restored[-1], result.patch_gap, because="the last block's write")
    claim.rejects(
        restores,
        max(result.untrained_patch_restored),
        result.untrained_patch_gap,
        because="the untrained model",
    )
    claim.record(
        table={
            "columns": ["patched block", "share of the gap restored"],
            "rows": [[f"block {k + 1}", s] for k, s in enumerate(result.patch_restored)],
        },
        restored=result.patch_restored,
        best_block=best + 1,
        best=result.patch_restored[best],
        last=result.patch_restored[-1],
        gap=result.patch_gap,
        untrained_gap=result.untrained_patch_gap,
        min_gap=MIN_GAP,
        large=LARGE,
        candidates=result.candidates,
        kept=result.candidates // 8,
        blocks=result.depth,
        seeds=1,
    )
