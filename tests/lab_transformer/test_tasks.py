"""Claims of Lab 2 about its downloadable task file (snippets/lab_transformer/tasks.py, served as
lab_stream_tasks.py): as downloaded it stops at both tasks with guidance; with the worked answers it passes both
and the measured checks; each of three common mistakes fails with its own hint. Learner files are made and loaded
as Lab 1's are (tests/lab_paths/test_tasks.py)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from sitekit import runs
from sitekit.site_render import PUBLISHED
from snippets.lab_transformer import tasks as snippet
from snippets.lab_transformer import tasks_solution
from tests.lab_paths.test_tasks import load, replace

ROOT = Path(__file__).resolve().parents[2]
PAGE = "module/lab-transformer-stream.md"
STARTER = ROOT / PUBLISHED["module/lab_stream_tasks.py"]  # what the page's download link serves
ON_THE_CPU = "the task file builds its stacks in float64 on the CPU, whatever the device"
STUBS = {
    "stream_growth": ("def stream_growth", "# TASK: the scale"),
    "alpha_for_growth": ("def alpha_for_growth", "# The measurement (given)"),
}
WORKED = {name: inspect.getsource(getattr(tasks_solution, name)) for name in STUBS}
MISTAKES = {  # name -> (the function it replaces, its body, words only that mistake's hint contains)
    "the second moment for the RMS": (
        "stream_growth",
        "def stream_growth(depth, alpha, r2):\n    return (1 + alpha**2 * r2) ** depth\n",
        "the second moment's growth",
    ),
    "alpha for alpha squared": (
        "stream_growth",
        "def stream_growth(depth, alpha, r2):\n    return (1 + alpha * r2) ** (depth / 2)\n",
        "scales its energy by alpha squared",
    ),
    "shares that add": (
        "stream_growth",
        "def stream_growth(depth, alpha, r2):\n    return (1 + depth * alpha**2 * r2) ** 0.5\n",
        "they do not add",
    ),
}


def text_with(answers: dict[str, str]) -> str:
    text = STARTER.read_text(encoding="utf-8")
    for name, body in answers.items():
        text = replace(text, name, body, STUBS)
    return text


@pytest.mark.claim(
    "As downloaded, Lab 2's task file fails both tasks, each with the guidance its stub gives, and runs no "
    "measurement; with the worked answers in place it passes both tasks, the growth check at each of 2 branch "
    "scales and the design check at each of 3 depths.",
    page=PAGE,
    device_independent=ON_THE_CPU,
    exact="the verdicts are PASS or FAIL and the guidance is text: nothing can drift",
)
def test_stream_task_file_guides_then_passes(claim, tmp_path):
    starter = runs.run(snippet.check, load(tmp_path, "starter", STARTER.read_text(encoding="utf-8")))
    worked = runs.run(snippet.check, load(tmp_path, "worked", text_with(WORKED)))

    def all_pass(results) -> None:
        assert results and all(ok for _, ok, _ in results), results
        assert sum(name == "measured" for name, _, _ in results) == len(snippet.ALPHAS), results
        assert sum(name == "designed" for name, _, _ in results) == len(snippet.DEPTHS), results

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
        depths=len(snippet.DEPTHS),
    )


@pytest.mark.claim(
    "Each of 3 common mistakes (the second moment's growth for the RMS's, alpha for alpha², shares that add "
    "instead of multiplying) fails the growth task in Lab 2's task file with a hint that names that mistake; the "
    "worked answers get none of the hints.",
    page=PAGE,
    device_independent=ON_THE_CPU,
    exact="the verdicts are PASS or FAIL and the hints are text: nothing can drift",
)
def test_stream_task_file_names_each_mistake(claim, tmp_path):
    worked = runs.run(snippet.check, load(tmp_path, "worked", text_with(WORKED)))
    wrong = {
        label: runs.run(snippet.check, load(tmp_path, label, text_with({**WORKED, name: body})))
        for label, (name, body, _) in MISTAKES.items()
    }

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
