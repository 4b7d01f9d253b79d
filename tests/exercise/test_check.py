"""Claims of the exercise page about the self-check (`nox -s check -- FILE`).

Learner files are made from the starter: the reference puts the notebook's `train` cell in place of
the starter's stub, and each wrong solution changes the reference in one place. Only the reference
reaches the full comparison (one plain and one residual model at seed 5, a seed the notebook does
not use, so no run repeats one of the notebook's); the wrong ones fail the short runs in seconds.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sitekit.pytest_plugin import compute_timer
from snippets.exercise import check as snippet
from snippets.exercise import exercise_residual as learner
from tests.exercise.test_solution import STARTER, notebook_from_source

if TYPE_CHECKING:  # never imported (that would run the notebook): named so the claims' hash covers it
    from snippets.exercise import solution  # noqa: F401

PAGE = "module/exercise.md"
LEARNER_CPU = "it runs the learner's own file, which trains on the CPU"
REFERENCE_SEED = 5


def reference_text() -> str:
    """The starter with its train() stub replaced by the worked solution's train() cell."""
    starter = STARTER.read_text(encoding="utf-8")
    cell = next(c.source for c in notebook_from_source().cells if c.source.startswith("def train("))
    start, end = starter.index("def train("), starter.index("# ---- given: the comparison ----")
    return starter[:start] + cell.strip() + "\n\n\n" + starter[end:]


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


READ = "        first_layer_grad_norm = model.input_proj.weight.grad.double().norm().item()\n"
STEP = "        optimizer.step()\n"

# name -> (how the reference is changed, words the hint must contain)
WRONG = {
    "no zero_grad": (lambda t: edit(t, "        optimizer.zero_grad()\n", ""), "zero_grad() before"),
    "in-place += on the stream": (
        lambda t: edit(t, "return x + self.branch(x)", "x += self.branch(x)\n        return x"),
        "in-place",
    ),
    "norm read after zero_grad": (
        lambda t: edit(edit(t, READ, ""), STEP, STEP + "        optimizer.zero_grad()\n" + READ),
        "zero_grad",
    ),
    "norm read after zero_grad(set_to_none=False)": (
        lambda t: edit(edit(t, READ, ""), STEP, STEP + "        optimizer.zero_grad(set_to_none=False)\n" + READ),
        "after optimizer.zero_grad()",
    ),
    "norm taken in float32": (lambda t: edit(t, ".grad.double().norm()", ".grad.norm()"), "in float32"),
}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name.replace(' ', '_').replace('(', '').replace(')', '').replace('=', '')}.py"
    path.write_text(text, encoding="utf-8")
    return path


def fails_with_hint(words: str) -> Callable[[snippet.Report], None]:
    """The check fails the file and some hint (or the problem) names the mistake."""

    def check(report: snippet.Report) -> None:
        assert not report.passed, snippet.render(report)
        hints = " ".join([report.problem] + [c.hint for c in report.criteria if not c.passed])
        assert words in hints, (words, snippet.render(report))

    return check


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[snippet.Report, list[str]]:
    """The self-check on the worked solution (the full 200-epoch comparison), run once for every claim."""
    tmp_path = tmp_path_factory.mktemp("reference")
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)  # relative paths, so the recorded output reads as a learner's would
        path = write(tmp_path, "exercise_residual", reference_text()).relative_to(tmp_path)
        with compute_timer("snippets.exercise.check (reference, 200 epochs)"):
            report = snippet.check(path, seed=REFERENCE_SEED, say=lines.append)
    return report, lines


@pytest.mark.claim(
    "The self-check passes the worked solution: every criterion, including the full 200-epoch "
    "comparison of both 50-block models.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
)
def test_self_check_passes_the_worked_solution(claim, reference):
    report, lines = reference

    def all_pass(r: snippet.Report) -> None:
        assert r.passed, snippet.render(r)

    claim.check(all_pass, report)
    starter = snippet.check(STARTER, say=None)
    claim.rejects(all_pass, starter, because="the starter, whose train() is a stub")
    claim.record(
        epochs=learner.EPOCHS,
        depth=learner.DEPTH,
        criteria=[c.name for c in report.criteria],
        output=snippet.render(report),
        progress_lines=len([s for s in lines if "epoch" in s]),
        seed=REFERENCE_SEED,
        **report.numbers,
    )


@pytest.mark.claim(
    "The self-check fails each plausible wrong solution (no zero_grad, an in-place += on the stream, "
    "the gradient norm read after zero_grad, the norm taken in float32) with a hint naming the mistake.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
)
def test_self_check_names_each_wrong_solutions_mistake(claim, tmp_path, reference):
    text = reference_text()
    reports, checks = {}, {}
    for name, (change, words) in WRONG.items():
        reports[name] = snippet.check(write(tmp_path, name, change(text)), say=None)
        checks[name] = fails_with_hint(words)
        claim.check(checks[name], reports[name])
        # Wrong loops fail the short runs: the full comparison never starts.
        assert reports[name].criteria[-1].name == "full comparison", snippet.render(reports[name])
    for name, check in checks.items():
        claim.rejects(check, reference[0], because=f"the worked solution, checked for '{name}'")
    claim.record(
        table={
            "columns": ["mistake", "hint"],
            "rows": [[name, next(c.hint for c in r.criteria if not c.passed)] for name, r in reports.items()],
        },
        outputs={name: snippet.render(r) for name, r in reports.items()},
    )


@pytest.mark.claim(
    "The self-check stops the unmodified starter at the training loop with 'fill in the training loop' "
    "guidance, before any full run.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
)
def test_self_check_sends_the_starter_to_the_training_loop(claim, reference):
    report = snippet.check(STARTER, say=None)
    guided = fails_with_hint("fill in the training loop")
    claim.check(guided, report)
    claim.rejects(guided, reference[0], because="the worked solution, which passes")
    claim.record(output=snippet.render(report))


BROKEN = {
    "syntax error": ("def train(model x):\n    pass\n", "line 1"),
    "missing names": ("import torch\n\n\ndef train(model, x, target, epochs, lr):\n    return [], 0.0\n", "DeepMLP"),
    "error at import": ("import torch\n\nraise ValueError('oops')\n", "line 3"),
}


@pytest.mark.claim(
    "For a file it cannot use (a syntax error, a missing DeepMLP, an error at import, no such file) the "
    "self-check prints a short message naming the file and line, not a traceback, and exits with code 2.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
)
def test_self_check_explains_broken_files_without_a_traceback(claim, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def short_message(words: str) -> Callable[[str, int], None]:
        def check(out: str, code: int) -> None:
            assert code == 2 and "Traceback" not in out and words in out and len(out.splitlines()) <= 4, out

        return check

    outputs, codes, checks = {}, {}, {}
    for name, (text, words) in BROKEN.items():
        codes[name] = snippet.main([write(tmp_path, name, text).name])
        outputs[name] = capsys.readouterr().out
        checks[name] = short_message(words)
        claim.check(checks[name], outputs[name], codes[name])
    codes["no such file"] = snippet.main(["missing.py"])
    outputs["no such file"] = capsys.readouterr().out
    claim.check(short_message("no such file"), outputs["no such file"], codes["no such file"])
    raw = subprocess.run(
        [sys.executable, write(tmp_path, "syntax error", BROKEN["syntax error"][0]).name],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    claim.rejects(
        checks["syntax error"], raw.stdout + raw.stderr, raw.returncode, because="Python itself running the file"
    )
    claim.record(outputs=outputs, exit_codes=codes, python_exit_code=raw.returncode)
