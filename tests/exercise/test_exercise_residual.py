"""Claims of the exercise page about the downloadable starter file."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest
import torch

from snippets.exercise import exercise_residual as snippet

PAGE = "module/exercise.md"
LEARNER_CPU = "it runs the learner's own file, which trains on the CPU"
# The learner's file builds its models and data on the CPU, whatever device the suite runs on.
ON_THE_LEARNERS_CPU = "it runs the learner's own file, which builds and trains its models on the CPU, not on --device"
PUBLISHED_SEED = inspect.signature(snippet.main).parameters["seed"].default  # the seed the starter's main() uses

# A naive harness, reduced to what happens when an unfilled train() stub returns an empty list.
NAIVE_HARNESS = "losses = []\nprint(f'Final loss: {losses[-1]:.4f}')\n"


def run(code_or_file: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *code_or_file],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=snippet.__file__.rsplit("/", 1)[0],
    )


@pytest.mark.claim(
    "Run as downloaded, the starter stops at the training loop with a one-line 'fill in the training "
    "loop' message and exit code 1, not a traceback (a starter that indexes an empty list dies with an IndexError).",
    page=PAGE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="the exit code is 1 and stderr holds the one-line message and no traceback",
)
def test_starter_stops_at_the_training_loop_with_guidance(claim):
    result = run(["exercise_residual.py"])

    def guides(done: subprocess.CompletedProcess[str]) -> None:
        assert done.returncode == 1, done
        assert "fill in the training loop" in done.stderr and "Traceback" not in done.stderr, done.stderr

    claim.check(guides, result)
    naive = run(["-c", NAIVE_HARNESS])
    claim.rejects(guides, naive, because="a harness that indexes the empty list an unfilled train() returns")
    claim.record(
        transcript="\n".join(["$ python exercise_residual.py", result.stdout.strip(), result.stderr.strip()]),
        stdout=result.stdout.strip(),
        stderr=result.stderr.strip(),
        stub_error=naive.stderr.strip().splitlines()[-1],
        exit_code=result.returncode,
    )


@pytest.mark.claim(
    "The plain and the residual DeepMLP have the same layers and parameter count, and from one seed they start "
    "from bit-for-bit identical He-initialised weights, except the last Linear of each residual branch, which "
    "starts at zero: the shortcut and that zeroing are the only differences.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="every parameter is torch.equal across the two models (bit for bit) except the zeroed ones, which are 0",
)
def test_plain_and_residual_models_differ_only_by_the_shortcut(claim, seeds):
    zeroed = {f"blocks.{i}.branch.5.{p}" for i in range(snippet.DEEP) for p in ("weight", "bias")}

    def same_start(plain: torch.nn.Module, residual: torch.nn.Module) -> None:
        pa, pb = list(plain.named_parameters()), list(residual.named_parameters())
        assert len(pa) == len(pb)
        for (_, a), (name, b) in zip(pa, pb, strict=True):
            assert not b.any() if name in zeroed else torch.equal(a, b), name

    def build(residual: bool, seed: int) -> torch.nn.Module:
        torch.manual_seed(seed)
        return snippet.DeepMLP(snippet.DEEP, snippet.DIM, snippet.WIDTH, use_residual=residual)

    # The starter leaves zero_last_layer to the learner: fill it in as the worked solution does.
    def zero_last(self) -> None:
        torch.nn.init.zeros_(self.branch[-1].weight)
        torch.nn.init.zeros_(self.branch[-1].bias)

    original = snippet.ResidualBlock.zero_last_layer
    snippet.ResidualBlock.zero_last_layer = zero_last
    try:
        seed, other = seeds(2)
        plain, residual, other_seed = build(False, seed), build(True, seed), build(True, other)
    finally:
        snippet.ResidualBlock.zero_last_layer = original
    claim.check(same_start, plain, residual)
    claim.rejects(same_start, plain, other_seed, because="a residual model from another seed")
    count = sum(p.numel() for p in residual.parameters())
    linears = sum(isinstance(m, torch.nn.Linear) for m in residual.modules())
    norms = sum(isinstance(m, torch.nn.BatchNorm1d) for m in residual.modules())
    x, y, _, _ = snippet.make_data(seed=PUBLISHED_SEED)  # the learner's data, as the starter makes it
    noise = y - torch.sin(x.norm(dim=1, keepdim=True))  # what make_data added to sin(‖x‖)
    claim.record(
        parameters=count,
        linear_layers=linears,
        batchnorm_layers=norms,
        deep=snippet.DEEP,
        shallow=snippet.SHALLOW,
        dim=snippet.DIM,
        width=snippet.WIDTH,
        n=snippet.N,
        noise_std=noise.std().item(),
    )


def test_self_check_uses_the_starters_data_and_configuration():
    """check.py carries its own copy (it must run without the repository): keep it the starter's."""
    import inspect

    from snippets.exercise import check

    assert inspect.getsource(check.make_data) == inspect.getsource(snippet.make_data)
    names = ("N", "DIM", "WIDTH", "SHALLOW", "DEEP", "EPOCHS", "LR", "WARMUP")
    assert [getattr(check, n) for n in names] == [getattr(snippet, n) for n in names]
