"""Claims of "The residual stream" about an edit written into the stream and found again at the end."""

import statistics

import pytest

from snippets.residual_stream import patching as snippet

PAGE = "module/residual-stream.md"
SEEDS = range(5)


@pytest.fixture(scope="module")
def results(device):
    return [snippet.measure(device, seed=s) for s in SEEDS]


@pytest.mark.claim(
    "When every branch after block k is zero, an edit δ written after block k reaches the output untouched: "
    "the final stream equals the patched stream at block k bit-for-bit (5 seeds).",
    page=PAGE,
)
def test_patch_arrives_exactly_when_later_branches_are_zero(claim, results):
    def arrives_whole(equal: bool, along: float) -> None:
        assert equal, "the final stream differs from h_k + δ"
        assert abs(along - 1) < 1e-6, along

    for r in results:
        claim.check(arrives_whole, r.zeroed_final_equals_patched_stream, r.survival["zeroed after k"][0])
    r = results[0]
    claim.rejects(
        arrives_whole,
        r.stream_unchanged_after_k["residual"],
        r.survival["residual"][0],
        because="the same stack with random (default-init) branches after block k",
    )
    claim.rejects(arrives_whole, r.stream_unchanged_after_k["plain"], r.survival["plain"][0], because="a plain stack")
    claim.record(
        seeds=len(results),
        depth=results[0].depth,
        k=results[0].k,
        rounding=max(r.zeroed_effect_max_error for r in results),
    )


SHARE = (0.6, 1.4)  # δ's own direction is still there in full (±40 %)
COSINE = 0.4  # and is a visible part of the change


def persists(along: float, cosine: float) -> None:
    """δ's share along its own direction and its cosine with the final change."""
    assert SHARE[0] < along < SHARE[1] and cosine > COSINE, (along, cosine)


@pytest.mark.claim(
    "Through 20 random later blocks (default init, residual or pre-norm) the final change still holds δ "
    "along its own direction (share 0.6 to 1.4, cosine above 0.4, 5 seeds); a plain stack erases it.",
    page=PAGE,
)
def test_patch_persists_through_random_later_blocks(claim, results):
    kinds = ("residual", "pre-norm", "plain")
    for r in results:
        for kind in kinds[:2]:
            claim.check(persists, *r.survival[kind])
    claim.rejects(persists, *results[0].survival["plain"], because="a plain stack of the same branches")
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
