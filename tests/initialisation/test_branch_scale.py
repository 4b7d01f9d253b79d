"""Claims of "The residual stream" about the size of a pre-norm block's write at initialisation."""

import inspect
import math
import statistics

import pytest

from sitekit.margins import above, below, between
from snippets.initialisation import branch_scale as snippet

PAGE = "module/residual-stream.md"  # shown where the pre-norm block is built


@pytest.mark.claim(
    "At default init a pre-norm block writes 0.1 to 0.4 of a unit-RMS stream's norm, but over 5× the norm of "
    "a stream of RMS 0.02: LayerNorm fixes the write's size, not its size relative to the stream (5 seeds).",
    page=PAGE,
)
def test_prenorm_write_is_fixed_size_not_fixed_ratio(claim, device, seeds):
    results = [snippet.measure(device, seed=s) for s in seeds(5)]
    depth = len(results[0].along)

    band, small = (0.1, 0.4), 5
    # "Fixed size, not fixed ratio", along the stack. If every write has the same size w, at least the band's
    # 0.1 of a unit-RMS stream's norm, the depth - 1 writes before the last block are independent random
    # vectors that add in quadrature: ‖h_50‖² ≈ ‖x‖² (1 + 49 w²), so the write's ratio to the stream at the
    # last block is at most 1/√(1 + 49 · 0.1²) ≈ 0.82 of its ratio at the first. A fixed ratio (what the
    # sentence denies; a post-norm stack, whose stream LayerNorm holds at unit RMS, is the counterfactual)
    # keeps it near 1. The threshold follows from the band and the depth, not from the measured fall.
    falls_to = 1 / math.sqrt(1 + (depth - 1) * band[0] ** 2)

    def small_next_to_unit_stream(ratios: list[float]) -> None:
        between("write / stream norm, unit-RMS stream", ratios, *band)

    def swamps_small_stream(ratios: list[float]) -> None:
        above("write / stream norm, stream of RMS 0.02", ratios, small)

    def ratio_falls_along_stack(along: list[list[float]]) -> None:
        below("write / stream at the last block / at the first", [a[-1] / a[0] for a in along], falls_to)

    claim.check(small_next_to_unit_stream, [r.ratio[1.0] for r in results])
    claim.rejects(small_next_to_unit_stream, [r.ratio[0.02] for r in results], because="a stream of RMS 0.02")
    claim.check(swamps_small_stream, [r.ratio[0.02] for r in results])
    claim.rejects(swamps_small_stream, [r.ratio[1.0] for r in results], because="a unit-RMS stream")
    claim.check(ratio_falls_along_stack, [r.along for r in results])
    claim.rejects(
        ratio_falls_along_stack, [r.post_along for r in results], because="a post-norm stack (a fixed-size stream)"
    )
    along = [statistics.median(r.along[i] for r in results) for i in range(depth)]
    claim.record(
        unit=statistics.median(r.ratio[1.0] for r in results),
        small=statistics.median(r.ratio[0.02] for r in results),
        first=along[0],
        last=along[-1],
        depth=depth,
        band=band,
        small_bound=small,
        falls_to=falls_to,
        post_norm_fall=statistics.median(r.post_along[-1] / r.post_along[0] for r in results),
        stream_rms=sorted(results[0].ratio),
        seeds=len(results),
        d=inspect.signature(snippet.measure).parameters["d"].default,
    )
