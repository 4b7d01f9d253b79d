"""Claims of the exercise page about the self-check (`python check_exercise.py FILE`, `nox -s check -- FILE`).

Learner files are made from the starter: the reference puts the notebook's ResidualBlock and train()
cells in place of the starter's stubs, and each wrong solution changes the reference in one place. Each
file is checked through both entry points, as separate processes: the downloadable copy run on its own
(`python -I check_exercise.py FILE`, in a folder with nothing else) and the command `nox -s check` runs.
Only the reference reaches the full comparison (four models at seed 5, a seed the notebook does not
use); the wrong ones fail the short runs in seconds.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sitekit.margins import above, below
from sitekit.pytest_plugin import compute_timer
from snippets.exercise import check as snippet
from tests.exercise.test_solution import STARTER, notebook_from_source

if TYPE_CHECKING:  # never imported (that would run the notebook): named so the claims' hash covers it
    from snippets.exercise import solution  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "snippets" / "exercise" / "check.py"
PAGE = "module/exercise.md"
LEARNER_CPU = "it runs the learner's own file, which trains on the CPU"
# The self-check and the learner's file run in their own processes on the CPU, whatever --device says.
ON_THE_LEARNERS_CPU = "the self-check runs the learner's file in its own process, on the CPU, not on --device"
REFERENCE_SEED = 5  # published: the page shows the self-check's output on this seed (one the notebook does not use)


def cell(start: str) -> str:
    return next(c.source for c in notebook_from_source().cells if c.source.startswith(start)).strip()


def reference_text() -> str:
    """The starter with its two stubs replaced by the worked solution's cells."""
    text = STARTER.read_text(encoding="utf-8")
    block_start, block_end = text.index("class ResidualBlock("), text.index("# ---- your part 2")
    text = text[:block_start] + cell("class ResidualBlock(") + "\n\n\n" + text[block_end:]
    start, end = text.index("def train("), text.index("# ---- given: the comparison ----")
    return text[:start] + cell("def train(") + "\n\n\n" + text[end:]


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


ZEROS = "        nn.init.zeros_(self.branch[-1].weight)\n        nn.init.zeros_(self.branch[-1].bias)\n"

# name -> (how the reference is changed, words only that mistake's hint contains)
WRONG: dict[str, tuple[Callable[[str], str], str]] = {
    "no shortcut": (lambda t: edit(t, "return x + self.branch(x)", "return self.branch(x)"), "shortcut is missing"),
    "last layer not zeroed": (lambda t: edit(t, ZEROS, ""), "in zero_last_layer"),
    "in-place += on the stream": (
        lambda t: edit(t, "return x + self.branch(x)", "x += self.branch(x)\n        return x"),
        "in-place update",
    ),
    "no zero_grad": (lambda t: edit(t, "        optimizer.zero_grad()\n", ""), "zero_grad() before"),
    "no warm-up": (lambda t: edit(t, "lr * min(1.0, (epoch + 1) / warmup) if warmup else lr", "lr"), "(the warm-up)"),
    "held-out MSE in training mode": (lambda t: edit(t, "    model.eval()\n", ""), "Call model.eval()"),
}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{re.sub(r'[^a-z0-9]+', '_', name.lower()).strip('_')}.py"
    path.write_text(text, encoding="utf-8")
    return path


def nox_command() -> list[str]:
    """What `nox -s check -- FILE` runs (read from noxfile.py, so a change there reaches this test)."""
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert 'CHECK_SCRIPT = "snippets/exercise/check.py"' in noxfile, "noxfile.py no longer runs check.py"
    return [sys.executable, str(CHECK)]


def run(command: list[str], cwd: Path) -> tuple[str, int]:
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False, cwd=cwd)
    return done.stdout + done.stderr, done.returncode


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> dict[str, dict[str, tuple[str, int]]]:
    """Every learner file through both entry points: name -> {"nox"|"download": (output, exit code)}."""
    files = tmp_path_factory.mktemp("learner")
    alone = tmp_path_factory.mktemp("download")
    shutil.copyfile(CHECK, alone / "check_exercise.py")  # what the page's download link serves
    texts = {"worked solution": reference_text(), "starter": STARTER.read_text(encoding="utf-8")} | {
        name: change(reference_text()) for name, (change, _) in WRONG.items()
    }
    out = {}
    with compute_timer("snippets.exercise.check (both entry points)"):
        for name, text in texts.items():
            path = write(files, name, text)
            seed = ["--seed", str(REFERENCE_SEED)]
            out[name] = {
                "nox": run([*nox_command(), path.name, *seed], files),
                # -I: no PYTHONPATH, no user site, not even the script's own folder beyond itself
                "download": run([sys.executable, "-I", str(alone / "check_exercise.py"), path.name, *seed], files),
            }
    return out


def comparison(output: str) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """The final training loss, held-out MSE and early peak the self-check prints for each model."""
    final, held, early = {}, {}, {}
    for name in snippet.RUNS:
        found = re.search(rf"^    {re.escape(name)} +(\S+)  (\S+)  (\S+)$", output, re.M)
        assert found, (name, output)
        final[name], held[name], early[name] = (float(v) for v in found.groups())
    return final, held, early


@pytest.mark.claim(
    "The self-check passes the worked solution: every criterion, including the full comparison of all four models.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
)
def test_self_check_passes_the_worked_solution(claim, both):
    def all_pass(output: str, code: int) -> None:
        assert code == 0 and output.rstrip().endswith("Well done."), output
        # The full comparison's three criteria, from the numbers it prints (a trained run: statistical).
        final, held, early = comparison(output)
        shallow, deep, residual, warm = snippet.RUNS
        above("plain deep / plain shallow final training loss", final[deep] / final[shallow], 1.0)
        above("plain deep / plain shallow held-out MSE", held[deep] / held[shallow], 1.0)
        below("residual deep / plain deep final training loss", final[residual] / final[deep], 1.0)
        below("residual deep / plain deep held-out MSE", held[residual] / held[deep], 1.0)
        below("warm-up's highest early loss / starting loss", early[warm], 1.0)

    claim.check(all_pass, *both["worked solution"]["download"])
    claim.rejects(all_pass, *both["starter"]["download"], because="the starter, whose stubs are not written")
    output = both["worked solution"]["download"][0]
    claim.record(
        output="\n".join(line for line in output.splitlines() if "epoch" not in line),
        progress_lines=len([s for s in output.splitlines() if "epoch" in s]),
        seed=REFERENCE_SEED,
        models=len(snippet.RUNS),
        epochs=snippet.EPOCHS,
    )


@pytest.mark.claim(
    "The self-check fails each plausible wrong solution (no shortcut, last layer not zeroed, an in-place += on "
    "the stream, no zero_grad, no warm-up, the held-out MSE taken in training mode) with a hint of its own "
    "that names the mistake.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="exit code 1 and the mistake's own hint (and no other mistake's) in the self-check's output, "
    "before the full comparison",
)
def test_self_check_names_each_wrong_solutions_mistake(claim, both):
    def fails_with(words: str) -> Callable[[str, int], None]:
        def check(output: str, code: int) -> None:
            assert code == 1, output
            assert words in output, (words, output)
            others = [w for _, w in WRONG.values() if w != words]
            assert not any(w in output for w in others), output  # its own hint, not another's
            assert "FAIL  full comparison" in output, output  # caught by the short runs

        return check

    checks = {name: fails_with(words) for name, (_, words) in WRONG.items()}
    for name, check in checks.items():
        claim.check(check, *both[name]["download"])
    for name, check in checks.items():
        claim.rejects(
            check,
            *both["worked solution"]["download"],
            because=f"the worked solution, checked for '{name}'",
        )
    hints = {}
    for name in WRONG:
        found = re.findall(r"^        hint: (.*)$", both[name]["download"][0], re.M)
        hints[name] = next(h for h in found if not h.startswith("not run"))
    claim.record(
        table={"columns": ["mistake", "hint"], "rows": [[name, hint] for name, hint in hints.items()]},
        mistakes=len(WRONG),
        outputs={name: both[name]["download"][0] for name in WRONG},
    )


@pytest.mark.claim(
    "The downloadable check_exercise.py, run on its own with only Python and PyTorch, prints the same output and "
    "exits with the same code as `nox -s check` on the worked solution and on every wrong solution the page lists.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="the two entry points' outputs and exit codes are equal, character for character",
)
def test_downloaded_self_check_agrees_with_nox_check(claim, both):
    def same(a: tuple[str, int], b: tuple[str, int]) -> None:
        assert a == b, (a, b)

    for runs in both.values():
        claim.check(same, runs["download"], runs["nox"])
    claim.rejects(same, both["worked solution"]["download"], both["no warm-up"]["nox"], because="two different files")
    claim.record(files=len(both), exit_codes={name: runs["download"][1] for name, runs in both.items()})


@pytest.mark.claim(
    "The self-check stops the unmodified starter at its two TODOs, the residual block and the training loop, "
    "with guidance for each, before any full run.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="exit code 1 and both TODOs' guidance in the output, before the full comparison",
)
def test_self_check_sends_the_starter_to_the_training_loop(claim, both):
    def guided(output: str, code: int) -> None:
        assert code == 1 and "write the residual block" in output and "fill in the training loop" in output, output
        assert "FAIL  full comparison" in output, output

    claim.check(guided, *both["starter"]["download"])
    claim.rejects(guided, *both["worked solution"]["download"], because="the worked solution, which passes")
    claim.record(output=both["starter"]["download"][0])


BROKEN = {
    "syntax error": ("def train(model x):\n    pass\n", "line 1"),
    "missing names": ("import torch\n\n\ndef train(model, data, epochs, lr, warmup):\n    return [], 0.0\n", "DeepMLP"),
    "error at import": ("import torch\n\nraise ValueError('oops')\n", "line 3"),
}


@pytest.mark.claim(
    "For a file it cannot use (a syntax error, a missing DeepMLP, an error at import, no such file) the "
    "self-check prints a short message naming the file and line, not a traceback, and exits with code 2.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="exit code 2 and a message of at most 4 lines naming the file and line, without a traceback",
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
