"""Claims of Lab 1 about its downloadable task file (snippets/lab_paths/tasks.py, served as lab_paths_tasks.py):
as downloaded it stops at both tasks with guidance; with the worked answers it passes both and the measured check;
each of three common mistakes fails with its own hint. Learner files are the starter with its two stubs replaced
(by the worked answers of tasks_solution.py, or by one mistake each) and are loaded from a folder of their own."""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path

import pytest

from sitekit import runs
from sitekit.site_render import PUBLISHED
from snippets.lab_paths import tasks as snippet
from snippets.lab_paths import tasks_solution

ROOT = Path(__file__).resolve().parents[2]
PAGE = "module/lab-why-it-trains.md"
STARTER = ROOT / PUBLISHED["module/lab_paths_tasks.py"]  # what the page's download link serves
ON_THE_CPU = "the task file builds its stacks in float64 on the CPU, whatever the device"
STUBS = {  # each stub, from its def to the comment that opens the next section
    "energy_weighted_length": ("def energy_weighted_length", "# TASK: the predicted length"),
    "predicted_length": ("def predicted_length", "# The measurement (given)"),
}
WORKED = {name: inspect.getsource(getattr(tasks_solution, name)) for name in STUBS}
MISTAKES = {  # name -> (the function it replaces, its body, words only that mistake's hint contains)
    "weighted by a row's size": (
        "energy_weighted_length",
        "def energy_weighted_length(energies):\n"
        "    sizes = [e**0.5 for e in energies]\n"
        "    return sum(k * s for k, s in enumerate(sizes)) / sum(sizes)\n",
        "a row's size, not its energy",
    ),
    "not divided by the total": (
        "energy_weighted_length",
        "def energy_weighted_length(energies):\n    return sum(k * e for k, e in enumerate(energies))\n",
        "divide by the total energy",
    ),
    "the gain r for the energy r²": (
        "predicted_length",
        "def predicted_length(depth, r2):\n    r = r2**0.5\n    return depth * r / (1 + r)\n",
        "uses the gain r, not the energy r²",
    ),
}


def replace(text: str, name: str, body: str, stubs: dict[str, tuple[str, str]] = STUBS) -> str:
    """`text` with the stub `name` (from its def to the comment after it) replaced by `body`."""
    start, stop = stubs[name]
    i, j = text.index(start), text.index(stop)
    return text[:i] + body + "\n\n" + text[j:]


def load(tmp_path: Path, label: str, text: str):
    """The learner's file as a module of its own, from a folder of its own."""
    folder = tmp_path / re.sub(r"\W+", "-", label)
    folder.mkdir()
    path = folder / "lab_paths_tasks.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"learner_{folder.name.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def worked_text() -> str:
    text = STARTER.read_text(encoding="utf-8")
    for name, body in WORKED.items():
        text = replace(text, name, body)
    return text


def verdicts(results) -> dict[str, bool]:
    return {name: ok for name, ok, _ in results}


@pytest.mark.claim(
    "As downloaded, Lab 1's task file fails both tasks, each with the guidance its stub gives, and runs no "
    "measurement; with the worked answers in place it passes both tasks and the measured check at each of 3 branch "
    "scales.",
    page=PAGE,
    device_independent=ON_THE_CPU,
    exact="the verdicts are PASS or FAIL and the guidance is text: nothing can drift",
)
def test_task_file_guides_then_passes(claim, tmp_path):
    starter = runs.run(snippet.check, load(tmp_path, "starter", STARTER.read_text(encoding="utf-8")))
    worked = runs.run(snippet.check, load(tmp_path, "worked", worked_text()))

    def all_pass(results) -> None:
        assert results and all(ok for _, ok, _ in results), results
        assert sum(name == "measured" for name, _, _ in results) == len(snippet.ALPHAS), results

    def guides(results) -> None:
        assert [name for name, ok, _ in results if not ok] == list(STUBS), results
        assert all(text.startswith("not done yet: ") for _, _, text in results), results

    claim.check(all_pass, worked)
    claim.rejects(all_pass, starter, because="the file as downloaded")
    claim.check(guides, starter)
    claim.rejects(guides, worked, because="the file with the worked answers")
    claim.record(
        starter="\n".join(f"{'PASS' if ok else 'FAIL'}  {n}: {t}" for n, ok, t in starter),
        worked="\n".join(f"{'PASS' if ok else 'FAIL'}  {n}{': ' + t if t else ''}" for n, ok, t in worked),
        scales=len(snippet.ALPHAS),
        near=snippet.NEAR,
    )


@pytest.mark.claim(
    "Each of 3 common mistakes (weighting a path length by its row's size instead of its energy, not dividing by "
    "the total energy, predicting with the branch's gain r instead of r²) fails its task in Lab 1's task file with a "
    "hint that names that mistake; the worked answers get none of the hints.",
    page=PAGE,
    device_independent=ON_THE_CPU,
    exact="the verdicts are PASS or FAIL and the hints are text: nothing can drift",
)
def test_task_file_names_each_mistake(claim, tmp_path):
    worked = runs.run(snippet.check, load(tmp_path, "worked", worked_text()))
    wrong = {}
    for label, (name, body, _) in MISTAKES.items():
        wrong[label] = runs.run(snippet.check, load(tmp_path, label, replace(worked_text(), name, body)))

    def names(words: str):
        def named(results) -> None:
            assert any(words in t for _, ok, t in results if not ok), (words, results)

        return named

    for label, (_, _, words) in MISTAKES.items():
        named = names(words)
        claim.check(named, wrong[label])
        claim.rejects(named, worked, because="the worked answers")
    claim.record(
        mistakes=len(MISTAKES),
        hints={label: next(t for _, ok, t in wrong[label] if not ok) for label in MISTAKES},
    )
