"""Claims of the Measured costs page about subnormal floats and flushing them."""

import pytest
import torch

from benchmarks import store
from sitekit.margins import above, below
from snippets.costs import denormals as snippet
from tests.costs import display, machines

PAGE = "costs.md"


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(3)]


def zeroed_by_the_flag(subnormal_in: list[float], kept: list[float]) -> None:
    """Every input is subnormal, and none survives `tiny * 1`: the fraction left nonzero is exactly 0."""
    assert all(s == 1.0 for s in subnormal_in), subnormal_in
    assert all(k == 0.0 for k in kept), kept


def untouched_by_the_flag(kept_without: list[float], kept_with: list[float]) -> None:
    """The flag is the x86 CPU's (FTZ/DAZ): CUDA kernels never see it."""
    assert all(k == 1.0 for k in kept_without + kept_with), (kept_without, kept_with)


@pytest.mark.claim(
    "torch.set_flush_denormal(True) makes every subnormal float32 input read as zero in CPU arithmetic on the thread "
    "that set it (tiny × 1 becomes exactly 0, on every one of 3 seeds' inputs).",
    page=PAGE,
    exact="the fraction of tiny × 1 left nonzero with the flag is exactly 0 (the same multiply without it, the "
    "counterfactual, leaves exactly 1)",
    cpu_only="the flag is the x86 CPU's FTZ/DAZ; flag_leaves_cuda_tensors_alone states what it does to CUDA tensors",
)
def test_flush_denormal_zeroes_subnormal_inputs(claim, device, runs):
    machines.require_x86("flush_denormal_zeroes_subnormal_inputs")  # FTZ/DAZ are x86 flags
    subnormal = [r.subnormal_in for r in runs]
    without, kept = [r.kept_without_flush for r in runs], [r.kept_with_flush for r in runs]
    claim.check(zeroed_by_the_flag, subnormal, kept)
    # The counterfactual is a run of its own: measure() multiplies the same inputs once more with the flag off
    # (kept_without_flush), a second multiply, not the flagged one's result passed again (honesty audit 1.5).
    claim.rejects(zeroed_by_the_flag, subnormal, without, because="the same inputs multiplied with the flag off")
    claim.record(
        seeds=len(runs),
        subnormal_in=min(r.subnormal_in for r in runs),
        kept_without_flush=min(without),
        kept_with_flush=max(kept),
        float32_smallest_normal=torch.finfo(torch.float32).tiny,
        float32_smallest_subnormal=torch.nextafter(torch.zeros(()), torch.ones(())).item(),  # the float after 0
    )


@pytest.mark.claim(
    "torch.set_flush_denormal(True) leaves CUDA tensors alone: on a GPU, tiny × 1 stays nonzero for every subnormal "
    "float32 input, flag or not (on every one of 3 seeds' inputs).",
    page=PAGE,
    exact="the fraction of tiny × 1 left nonzero on the GPU is exactly 1 with and without the flag",
    cuda_only="the CPU's flush flag does not reach CUDA kernels",
)
def test_flag_leaves_cuda_tensors_alone(claim, device, runs, seeds):
    without, kept = [r.kept_without_flush for r in runs], [r.kept_with_flush for r in runs]
    claim.check(untouched_by_the_flag, without, kept)
    # The counterfactual, run: the snippet's own measurement on CPU tensors (the flag's home), same seeds; one
    # timing round, since only its fractions are compared.
    on_cpu = [snippet.measure("cpu", seed=s, rounds=1) for s in seeds(3)]
    claim.rejects(
        untouched_by_the_flag,
        [r.kept_without_flush for r in on_cpu],
        [r.kept_with_flush for r in on_cpu],
        because="a CPU tensor under the same flag",
    )
    claim.record(seeds=len(runs), kept_without_flush=min(without), kept_with_flush=min(kept))


# What the thresholds follow from. With the flag on, a subnormal operand reads as zero, so the work is
# the normal work: the time ratio is about 1, and "less than 2×" says no slow path is left (timer noise
# on a shared machine stays well inside a factor of 2). A slow path for subnormal operands (a microcode
# assist on x86) costs tens of normal operations per element, so one that remains shows as many times
# the normal time: "over 5×" sits far above noise and far below such a path. The sentence names the
# machine the sweep ran on, because without the flag the cost depends on the processor.
FLUSHED_BELOW, SQRT_ABOVE = 2, 5
ARITHMETIC = ("multiply", "relu", "matmul")


def sweep_matches_page(table: dict, sqrt_nonzero_flushed: float) -> None:
    ratios = {op: (plain, flushed) for op, plain, flushed in table["rows"]}
    below(
        "flushed subnormal / normal time, multiply, ReLU, matmul", [ratios[op][1] for op in ARITHMETIC], FLUSHED_BELOW
    )
    above("sqrt subnormal / normal time, flag off and on", list(ratios["sqrt"]), SQRT_ABOVE)
    # ... because torch.sqrt does not go through the flushed arithmetic: its results stay nonzero
    assert sqrt_nonzero_flushed == 1.0, sqrt_nonzero_flushed


@pytest.mark.claim(
    "In the benchmark committed from an Intel Xeon (one CPU thread), with flushing on, multiply, ReLU and matmul on "
    "subnormal inputs take less than 2× their time on normal ones, while torch.sqrt takes over 5× as long on them "
    "with the flag off or on.",
    page=PAGE,
    cpu_only="the sentence is about the committed CPU sweep and the CPU it ran on; "
    "sqrt_is_not_slowed_by_subnormals_on_cuda states the CUDA expectation",
)
def test_denormals_benchmark_costs(claim, device):
    record = store.load(device, "denormals", machine=machines.INTEL_XEON)
    values = record["values"]
    claim.check(sweep_matches_page, values["table"], values["sqrt_nonzero_flushed"])
    claim.rejects(
        sweep_matches_page,
        values["normal_table"],
        values["sqrt_nonzero_flushed"],
        because="the same operations on inputs scaled by 2⁻¹⁰⁰: small but normal",
    )
    rows = {op: (plain, flushed) for op, plain, flushed in values["table"]["rows"]}
    claim.record(
        table=display.rounded(values["table"]),
        provenance=display.provenance(record),
        depth=values["depth"],
        plain_stack=values["plain_stack"],
        sqrt_nonzero_flushed=values["sqrt_nonzero_flushed"],
        threads=values.get("threads"),
        flushed_with_all_threads=values.get("flushed_with_all_threads"),
        bounds={"flushed below": FLUSHED_BELOW, "sqrt above": SQRT_ABOVE},
        flushed_below=FLUSHED_BELOW,
        sqrt_above=SQRT_ABOVE,
        flushed_max=max(rows[op][1] for op in ARITHMETIC),
        sqrt_min=min(rows["sqrt"]),
        unflushed_max=max(rows[op][0] for op in ARITHMETIC),
        unflushed_max_op=max(ARITHMETIC, key=lambda op: rows[op][0]),
        counterfactual_table=display.rounded(values["normal_table"]),
    )


def no_slow_path(table: dict) -> None:
    ratios = {op: (plain, flushed) for op, plain, flushed in table["rows"]}
    below(
        "flushed subnormal / normal time, multiply, ReLU, matmul", [ratios[op][1] for op in ARITHMETIC], FLUSHED_BELOW
    )
    below("sqrt subnormal / normal time, flag off and on", list(ratios["sqrt"]), FLUSHED_BELOW)


@pytest.mark.claim(
    "In the benchmark committed from a CUDA GPU, with the CPU's flush flag on, multiply, ReLU and matmul on subnormal "
    "inputs take less than 2× their time on normal ones, and torch.sqrt less than 2× with the flag off or on.",
    page=PAGE,
    cuda_only="a GPU takes subnormal operands at full speed, sqrt included, and the CPU's flag does not reach it",
)
def test_sqrt_is_not_slowed_by_subnormals_on_cuda(claim, device):
    record = store.load(device, "denormals")
    values = record["values"]
    claim.check(no_slow_path, values["table"])
    claim.rejects(no_slow_path, values["host_cpu_table"], because="the same operations timed on the GPU host's CPU")
    claim.record(
        table=display.rounded(values["table"]),
        provenance=display.provenance(record),
        bound=FLUSHED_BELOW,
    )
