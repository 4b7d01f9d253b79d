"""Claims of the Measured costs page about subnormal floats and flushing them."""

import pytest
import torch

from benchmarks import store
from snippets.costs import denormals as snippet
from tests.costs import display

PAGE = "costs.md"


@pytest.fixture(scope="module")
def r(device):
    return snippet.measure(device, seed=0)


def flush_zeroes_cpu_inputs(device: str, kept_without: float, kept_with: float) -> None:
    assert kept_without == 1.0, kept_without
    # The flag is the x86 CPU's (FTZ/DAZ): CUDA kernels never see it.
    assert kept_with == (1.0 if device == "cuda" else 0.0), kept_with


@pytest.mark.claim(
    "torch.set_flush_denormal(True) makes every subnormal float32 input read as zero in CPU arithmetic on the thread "
    "that set it (tiny × 1 becomes exactly 0), and leaves CUDA tensors alone.",
    page=PAGE,
)
def test_flush_denormal_zeroes_subnormal_inputs(claim, device, r):
    assert r.subnormal_in == 1.0
    flush_zeroes_cpu_inputs(device, r.kept_without_flush, r.kept_with_flush)
    claim.rejects(
        flush_zeroes_cpu_inputs,
        device,
        r.kept_without_flush,
        0.5,
        because="a flag that reached half the numbers",
    )
    claim.record(
        subnormal_in=r.subnormal_in,
        kept_without_flush=r.kept_without_flush,
        kept_with_flush=r.kept_with_flush,
        float32_smallest_normal=torch.finfo(torch.float32).tiny,
    )


# Per device, what the page says of the recorded sweep: on the benchmark CPU (an AMD EPYC) the
# hardware takes subnormal operands in multiply, ReLU and matmul at about full speed (2× leaves
# room for timing noise on a shared machine), and torch.sqrt is
# many times slower on them, flushed or not; a GPU handles them at full speed throughout.
def sweep_matches_page(device: str, table: dict, sqrt_nonzero_flushed: float) -> None:
    ratios = {op: (plain, flushed) for op, plain, flushed in table["rows"]}
    for op in ("multiply", "relu", "matmul"):
        assert max(ratios[op]) < 2, (op, ratios[op])
    if device == "cuda":
        assert max(ratios["sqrt"]) < 2, ratios["sqrt"]
    else:
        assert min(ratios["sqrt"]) > 5, ratios["sqrt"]
        # ... because torch.sqrt does not go through the flushed arithmetic: its results stay nonzero
        assert sqrt_nonzero_flushed == 1.0, sqrt_nonzero_flushed


@pytest.mark.claim(
    "In the committed benchmark, subnormal inputs slow multiply, ReLU and matmul by less than 2× with or without "
    "flushing; torch.sqrt is over 5× slower on them on the CPU even when flushed, and under 2× on CUDA.",
    page=PAGE,
)
def test_denormals_benchmark_costs(claim, device):
    record = store.load(device, "denormals")
    values = record["values"]
    sweep_matches_page(device, values["table"], values["sqrt_nonzero_flushed"])
    slow = {"columns": [], "rows": [[op, 20.0, 20.0] for op, *_ in values["table"]["rows"]]}
    claim.rejects(
        sweep_matches_page, device, slow, values["sqrt_nonzero_flushed"], because="a CPU that traps on every subnormal"
    )
    claim.record(
        table=display.rounded(values["table"]),
        provenance=display.provenance(record),
        depth=values["depth"],
        plain_stack=values["plain_stack"],
        sqrt_nonzero_flushed=values["sqrt_nonzero_flushed"],
        threads=values.get("threads"),
        flushed_with_all_threads=values.get("flushed_with_all_threads"),
    )
