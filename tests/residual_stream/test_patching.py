"""Claims of "The residual stream" about an edit written into the stream and found again at the end."""

import statistics

import pytest

from sitekit.margins import above, between
from snippets.residual_stream import patching as snippet

PAGE = "module/residual-stream.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "When every branch after block k is zero, an edit δ written after block k reaches the output untouched: "
    "the final stream equals the patched stream at block k bit-for-bit.",
    page=PAGE,
    exact="every stream after block k is torch.equal to the final one (bit for bit), and the change carries δ "
    "whole up to float32 rounding of (h_k + δ) − h_k",
)
def test_patch_arrives_exactly_when_later_branches_are_zero(claim, results):
    def arrives_whole(equal: list[bool], along: list[float]) -> None:
        assert all(equal), "the final stream differs from h_k + δ"
        assert all(abs(a - 1) < 1e-6 for a in along), along

    claim.check(
        arrives_whole,
        [r.zeroed_final_equals_patched_stream for r in results],
        [r.survival["zeroed after k"][0] for r in results],
    )
    claim.rejects(
        arrives_whole,
        [r.stream_unchanged_after_k["residual"] for r in results],
        [r.survival["residual"][0] for r in results],
        because="the same stack with random (default-init) branches after block k",
    )
    claim.rejects(
        arrives_whole,
        [r.stream_unchanged_after_k["plain"] for r in results],
        [r.survival["plain"][0] for r in results],
        because="a plain stack",
    )
    claim.record(
        seeds=len(results),
        depth=results[0].depth,
        k=results[0].k,
        rounding=max(r.zeroed_effect_max_error for r in results),
    )


SHARE = (0.6, 1.4)  # δ's own direction is still there in full (±40 %)
COSINE = 0.4  # and is a visible part of the change
PERSISTING = ("residual", "pre-norm")


def persists(survivals: list[tuple[float, float]]) -> None:
    """δ's share along its own direction and its cosine with the final change, per seed and stack."""
    between("share of the final change along δ", [along for along, _ in survivals], *SHARE)
    above("cosine of the final change with δ", [cosine for _, cosine in survivals], COSINE)


@pytest.mark.claim(
    "Through 20 random later blocks (default init, residual or pre-norm) the final change still holds δ "
    "along its own direction (share 0.6 to 1.4, cosine above 0.4, 5 seeds); a plain stack erases it.",
    page=PAGE,
)
def test_patch_persists_through_random_later_blocks(claim, results):
    kinds = (*PERSISTING, "plain")
    claim.check(persists, [r.survival[kind] for r in results for kind in PERSISTING])
    claim.rejects(persists, [r.survival["plain"] for r in results], because="a plain stack of the same branches")
    rows = []
    for kind in kinds:
        rows.append(
            [
                kind,
                statistics.median(r.survival[kind][0] for r in results),
                statistics.median(r.survival[kind][1] for r in results),
                statistics.median(r.effect_norm[kind] for r in results),
            ]
        )
    claim.record(
        table={"columns": ["stack", "share along δ", "cosine with δ", "‖change‖ / ‖δ‖"], "rows": rows},
        residual_along=rows[0][1],
        residual_cosine=rows[0][2],
        prenorm_cosine=rows[1][2],
        residual_norm=rows[0][3],
        plain_norm=rows[2][3],
        later_blocks=results[0].depth - results[0].k,
        share_bounds=SHARE,
        cosine_bound=COSINE,
        seeds=len(results),
    )
