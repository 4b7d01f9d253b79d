"""Claims of the encyclopedia entry's premise: GPT-3's size and its number of residual writes."""

import inspect

import pytest

from snippets.encyclopedia import scale_arithmetic as snippet

PAGE = "encyclopedia/residual-stream.md"


@pytest.fixture(scope="module")
def r(device):
    return snippet.measure(device)


@pytest.mark.claim(
    "175.0 billion parameters at 2 bytes each are 350 GB (10⁹ bytes), which is about 326 GiB (2³⁰ bytes).",
    page=PAGE,
    device_independent="arithmetic on Python numbers; no tensor is involved",
    exact="175.0e9 × 2 bytes is 350 GB exactly and rounds to 326 GiB (float arithmetic on published numbers)",
)
def test_gpt3_fp16_weights_are_350_gb(claim, r):
    def sizes(gigabytes: float, gibibytes: float) -> None:
        assert gigabytes == 350.0
        assert round(gibibytes) == 326

    claim.check(sizes, r.gigabytes, r.gibibytes)
    claim.rejects(sizes, r.gibibytes, r.gibibytes, because="reading GiB as GB")
    claim.record(
        gigabytes=r.gigabytes,
        gibibytes=r.gibibytes,
        parameters=r.parameters,
        bytes_per_parameter=inspect.signature(snippet.weight_bytes).parameters["bytes_per_parameter"].default,
        unit_bytes={"GB": 10**9, "GiB": 2**30},  # the definitions the sentence states
    )


@pytest.mark.claim(
    "A 96-layer decoder updates each token's stream 96 × 2 = 192 times.",
    page=PAGE,
    device_independent="arithmetic on Python numbers; no tensor is involved",
    exact="96 layers × 2 sublayers is the integer 192",
)
def test_gpt3_stream_is_written_192_times(claim, r):
    def writes(n: int) -> None:
        assert n == 192

    claim.check(writes, r.writes)
    claim.rejects(writes, snippet.residual_writes(r.layers, 1), because="counting layers instead of sublayers")
    claim.record(
        layers=r.layers,
        writes=r.writes,
        sublayers_per_layer=inspect.signature(snippet.residual_writes).parameters["sublayers_per_layer"].default,
    )
