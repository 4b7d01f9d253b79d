"""Encyclopedia, The Residual Stream: the arithmetic behind the premise's GPT-3 numbers.

Inputs are published figures (Brown et al. 2020, Table 2.1): the parameter count and the number of
layers, which the caller passes in; the tests and `__main__` read them from facts/facts.toml
(`gpt3_params_b`, `gpt3_layers`), so no figure of the paper is typed here.
Run `python -m snippets.encyclopedia.scale_arithmetic` to print what the page states.
"""

from __future__ import annotations

from dataclasses import dataclass


# --8<-- [start:arithmetic]
def weight_bytes(parameters: float, bytes_per_parameter: int = 2) -> float:
    """Bytes to hold the weights alone, at 2 bytes each for fp16 or bf16."""
    return parameters * bytes_per_parameter


def residual_writes(layers: int, sublayers_per_layer: int = 2) -> int:
    """Updates of a token's stream: one by attention and one by the MLP, per layer."""
    return layers * sublayers_per_layer


# --8<-- [end:arithmetic]


@dataclass(frozen=True)
class Result:
    """GPT-3 175B's weights in gigabytes and gibibytes, and its residual writes."""

    parameters: float
    layers: int
    gigabytes: float  # 10^9 bytes
    gibibytes: float  # 2^30 bytes
    writes: int


def measure(
    device: str = "cpu", seed: int = 0, *, parameters: float, layers: int
) -> Result:
    """Do the arithmetic on a published parameter count and depth (device and seed are unused)."""
    size = weight_bytes(parameters)
    return Result(parameters, layers, size / 1e9, size / 2**30, residual_writes(layers))


if __name__ == "__main__":
    from sitekit import facts  # the published figures, as the page shows them

    reg = facts.registry()
    print(
        measure(
            parameters=reg.value("gpt3_params_b") * 1e9,  # the fact is in billions
            layers=int(reg.value("gpt3_layers")),
        )
    )
