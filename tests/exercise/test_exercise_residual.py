"""Claims of the exercise page about the downloadable starter file."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from snippets.exercise import exercise_residual as snippet

PAGE = "module/exercise.md"
LEARNER_CPU = "it runs the learner's own file, which trains on the CPU"

# The brief's harness, reduced to what happens when its train() stub returns an empty list.
BRIEF_HARNESS = "losses = []\nprint(f'Final loss: {losses[-1]:.4f}')\n"


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
)
def test_starter_stops_at_the_training_loop_with_guidance(claim):
    result = run(["exercise_residual.py"])

    def guides(done: subprocess.CompletedProcess[str]) -> None:
        assert done.returncode == 1, done
        assert "fill in the training loop" in done.stderr and "Traceback" not in done.stderr, done.stderr

    claim.check(guides, result)
    brief = run(["-c", BRIEF_HARNESS])
    claim.rejects(guides, brief, because="a harness that indexes the empty list an unfilled train() returns")
    claim.record(
        transcript="\n".join(["$ python exercise_residual.py", result.stdout.strip(), result.stderr.strip()]),
        stdout=result.stdout.strip(),
        stderr=result.stderr.strip(),
        stub_error=brief.stderr.strip().splitlines()[-1],
        exit_code=result.returncode,
    )


@pytest.mark.claim(
    "The plain and the residual DeepMLP have the same layers and parameter count, and from one seed "
    "they start from bit-for-bit identical weights: the shortcut is the only difference.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
)
def test_plain_and_residual_models_differ_only_by_the_shortcut(claim):
    def same_start(a: torch.nn.Module, b: torch.nn.Module) -> None:
        pa, pb = list(a.parameters()), list(b.parameters())
        assert len(pa) == len(pb) and all(torch.equal(x, y) for x, y in zip(pa, pb, strict=True))

    models = {}
    for residual in (False, True):
        torch.manual_seed(0)
        models[residual] = snippet.DeepMLP(snippet.DEPTH, snippet.DIM, use_residual=residual)
    claim.check(same_start, models[False], models[True])
    torch.manual_seed(1)
    other_seed = snippet.DeepMLP(snippet.DEPTH, snippet.DIM, use_residual=True)
    claim.rejects(same_start, models[False], other_seed, because="a residual model from another seed")
    count = sum(p.numel() for p in models[True].parameters())
    linears = sum(isinstance(m, torch.nn.Linear) for m in models[True].modules())
    x, target = snippet.make_data(seed=0)
    noise = target - torch.sin(x.norm(dim=1, keepdim=True))  # what make_data added to sin(‖x‖)
    claim.record(
        parameters=count,
        linear_layers=linears,
        depth=snippet.DEPTH,
        dim=snippet.DIM,
        n=snippet.N,
        parameter_tensors=len(list(models[True].parameters())),  # what Adam updates one by one
        noise_std=noise.std().item(),
        adam_eps=torch.optim.Adam(models[True].parameters()).defaults["eps"],
    )
