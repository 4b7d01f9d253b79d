"""Claims of "The residual stream" about the size of a pre-norm block's write at initialisation."""

import inspect
import statistics

import pytest

from snippets.initialisation import branch_scale as snippet

PAGE = "module/residual-stream.md"  # shown where the pre-norm block is built
SEEDS = range(5)


@pytest.mark.claim(
    "At default init a pre-norm block writes 0.1 to 0.4 of a unit-RMS stream's norm, but over 5× the norm of "
    "a stream of RMS 0.02: LayerNorm fixes the write's size, not its size relative to the stream (5 seeds).",
    page=PAGE,
)
def test_prenorm_write_is_fixed_size_not_fixed_ratio(claim, device):
    results = [snippet.measure(device, seed=s) for s in SEEDS]

    band, small = (0.1, 0.4), 5
    falls_to = 0.75  # along the stack the ratio falls below this fraction of its first value (seeds: 0.55-0.59);
    # a stream that does not grow (a post-norm stack) keeps it near 1

    def small_next_to_unit_stream(ratio: float) -> None:
        assert band[0] < ratio < band[1], ratio

    for r in results:
        claim.check(small_next_to_unit_stream, r.ratio[1.0])
        assert r.ratio[0.02] > small, r.ratio[0.02]
        assert r.along[-1] < falls_to * r.along[0], (r.along[0], r.along[-1])
    claim.rejects(small_next_to_unit_stream, results[0].ratio[0.02], because="a stream of RMS 0.02")
    along = [statistics.median(r.along[i] for r in results) for i in range(len(results[0].along))]
    claim.record(
        unit=statistics.median(r.ratio[1.0] for r in results),
        small=statistics.median(r.ratio[0.02] for r in results),
        first=along[0],
        last=along[-1],
        depth=len(along),
        band=band,
        small_bound=small,
        falls_to=falls_to,
        stream_rms=sorted(results[0].ratio),
        seeds=len(results),
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )
