"""Claims of the encyclopedia entry's premise: GPT-3's size and its number of residual writes.

Both are arithmetic on published figures (Brown et al. 2020, Table 2.1), read from facts/facts.toml:
they hold by construction, so they are marked identities and no counterfactual is staged for them.
"""

import inspect

import pytest

from sitekit import facts
from snippets.encyclopedia import scale_arithmetic as snippet

PAGE = "encyclopedia/residual-stream.md"


@pytest.fixture(scope="module")
def r(device):
    """The arithmetic on the two facts the page shows beside it (gpt3_params_b is in billions)."""
    reg = facts.registry()
    assert reg.facts["gpt3_params_b"].unit.strip() == "billion", reg.facts["gpt3_params_b"]
    return snippet.measure(device, parameters=reg.value("gpt3_params_b") * 1e9, layers=int(reg.value("gpt3_layers")))


@pytest.mark.claim(
    "175.0 billion parameters at 2 bytes each are 350 GB (10⁹ bytes), which is about 326 GiB (2³⁰ bytes).",
    page=PAGE,
    device_independent="arithmetic on Python numbers; no tensor is involved",
    identity="float arithmetic on the published parameter count: count × bytes per parameter, divided by "
    "10⁹ for GB and by 2³⁰ for GiB",
)
def test_gpt3_fp16_weights_are_350_gb(claim, r):
    def sizes(gigabytes: float, gibibytes: float) -> None:
        assert gigabytes == 350.0
        assert round(gibibytes) == 326

    claim.check(sizes, r.gigabytes, r.gibibytes)
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
    identity="integer multiplication: layers × sublayers per layer",
)
def test_gpt3_stream_is_written_192_times(claim, r):
    def writes(n: int) -> None:
        assert n == 192

    claim.check(writes, r.writes)
    claim.record(
        layers=r.layers,
        writes=r.writes,
        sublayers_per_layer=inspect.signature(snippet.residual_writes).parameters["sublayers_per_layer"].default,
    )
