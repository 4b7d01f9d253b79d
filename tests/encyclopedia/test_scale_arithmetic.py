"""Claims of the encyclopedia entry's premise: GPT-3's size and its number of residual writes."""

import pytest

from snippets.encyclopedia import scale_arithmetic as snippet

PAGE = "encyclopedia/residual-stream.md"


@pytest.fixture(scope="module")
def r(device):
    return snippet.measure(device)


@pytest.mark.claim(
    "175.0 billion parameters at 2 bytes each are 350 GB (10⁹ bytes), which is about 326 GiB (2³⁰ bytes).",
    page=PAGE,
)
def test_gpt3_fp16_weights_are_350_gb(claim, r):
    def sizes(gigabytes: float, gibibytes: float) -> None:
        assert gigabytes == 350.0
        assert round(gibibytes) == 326

    sizes(r.gigabytes, r.gibibytes)
    claim.rejects(sizes, r.gibibytes, r.gibibytes, because="reading GiB as GB")
    claim.record(gigabytes=r.gigabytes, gibibytes=r.gibibytes, parameters=r.parameters)


@pytest.mark.claim("A 96-layer decoder updates each token's stream 96 × 2 = 192 times.", page=PAGE)
def test_gpt3_stream_is_written_192_times(claim, r):
    def writes(n: int) -> None:
        assert n == 192

    writes(r.writes)
    claim.rejects(writes, snippet.residual_writes(r.layers, 1), because="counting layers instead of sublayers")
    claim.record(layers=r.layers, writes=r.writes)
