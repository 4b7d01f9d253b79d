"""Claims of Lab 3 about its downloadable task file (snippets/lab_transformer/reading_tasks.py, served as
lab_reading_tasks.py): as downloaded it stops at its task with guidance; with the worked answer it passes the task
and the measured check on every stack; each of four common mistakes fails with its own hint. Learner files are made
and loaded as Lab 1's are (tests/lab_paths/test_tasks.py)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from sitekit import runs
from sitekit.site_render import PUBLISHED
from snippets.lab_transformer import reading_tasks as snippet
from snippets.lab_transformer import reading_tasks_solution
from tests.lab_paths.test_tasks import load, replace

ROOT = Path(__file__).resolve().parents[2]
PAGE = "module/lab-reading-stream.md"
STARTER = ROOT / PUBLISHED["module/lab_reading_tasks.py"]  # what the page's download link serves
ON_THE_CPU = "the task file builds its stacks in float64 on the CPU, whatever the device"
STUBS = {"direct_share": ("def direct_share", "# The stacks (given)")}
WORKED = {name: inspect.getsource(getattr(reading_tasks_solution, name)) for name in STUBS}
OPEN = "def direct_share(part, stream, gamma, u, eps):\n    centred = part - part.mean(-1, keepdim=True)\n"
WHOLE = "    sigma = (stream.var(-1, unbiased=False, keepdim=True) + eps).sqrt()\n"
MISTAKES = {  # name -> (the function it replaces, its body, words only that mistake's hint contains)
    "each part divided by its own size": (
        "direct_share",
        OPEN + "    sigma = (part.var(-1, unbiased=False, keepdim=True) + eps).sqrt()\n"
        "    return (centred / sigma * gamma * u).sum(-1)\n",
        "divides the part by its own size",
    ),
    "the part not centred": (
        "direct_share",
        OPEN + WHOLE + "    return (part / sigma * gamma * u).sum(-1)\n",
        "is not centred",
    ),
    "the unbiased variance": (
        "direct_share",
        OPEN + "    sigma = (stream.var(-1, keepdim=True) + eps).sqrt()\n"
        "    return (centred / sigma * gamma * u).sum(-1)\n",
        "uses the unbiased variance",
    ),
    "gamma left out": (
        "direct_share",
        OPEN + WHOLE + "    return (centred / sigma * u).sum(-1)\n",
        "leaves out gamma",
    ),
}


def text_with(answers: dict[str, str]) -> str:
    text = STARTER.read_text(encoding="utf-8")
    for name, body in answers.items():
        text = replace(text, name, body, STUBS)
    return text


@pytest.mark.claim(
    "As downloaded, Lab 3's task file fails its task with the guidance its stub gives and runs no measurement; with "
    "the worked answer in place it passes the task and, on each of 3 random stacks, the measured check that the "
    "parts' shares and the constant add up to the stack's own logit.",
    page=PAGE,
    device_independent=ON_THE_CPU,
    exact="the verdicts are PASS or FAIL and the guidance is text: nothing can drift",
)
def test_reading_task_file_guides_then_passes(claim, tmp_path):
    starter = runs.run(snippet.check, load(tmp_path, "starter", STARTER.read_text(encoding="utf-8")))
    worked = runs.run(snippet.check, load(tmp_path, "worked", text_with(WORKED)))

    def all_pass(results) -> None:
        assert results and all(ok for _, ok, _ in results), results
        assert sum(name == "measured" for name, _, _ in results) == len(snippet.SEEDS), results

    def guides(results) -> None:
        assert [name for name, ok, _ in results if not ok] == list(STUBS), results
        assert all(text.startswith("not done yet: ") for _, _, text in results), results

    claim.check(all_pass, worked)
    claim.rejects(all_pass, starter, because="the file as downloaded")
    claim.check(guides, starter)
    claim.rejects(guides, worked, because="the file with the worked answer")
    claim.record(
        starter="\n".join(f"{'PASS' if ok else 'FAIL'}  {n}: {t}" for n, ok, t in starter),
        worked="\n".join(f"{'PASS' if ok else 'FAIL'}  {n}{': ' + t if t else ''}" for n, ok, t in worked),
        stacks=len(snippet.SEEDS),
        blocks=snippet.DEPTH,
    )


@pytest.mark.claim(
    "Each of 4 common mistakes (dividing a part by its own size instead of the whole stream's, leaving it uncentred, "
    "taking LayerNorm's variance as the unbiased one, leaving out the LayerNorm's weight) fails the task in Lab 3's "
    "task file with a hint that names that mistake; the worked answer gets none of the hints.",
    page=PAGE,
    device_independent=ON_THE_CPU,
    exact="the verdicts are PASS or FAIL and the hints are text: nothing can drift",
)
def test_reading_task_file_names_each_mistake(claim, tmp_path):
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
        claim.rejects(named, worked, because="the worked answer")
    claim.record(
        mistakes=len(MISTAKES),
        hints={label: next(t for _, ok, t in wrong[label] if not ok) for label in MISTAKES},
    )
