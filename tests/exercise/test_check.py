"""Claims of the exercise page about the self-check (`python check_exercise.py FILE`, `nox -s check -- FILE`).

Learner files are made from the starter: the worked solution puts the notebook's ResidualBlock and
train() cells in place of the starter's stubs, and each wrong solution changes it in one place. Each
file is checked through both entry points, each run in a process of its own by
snippets/exercise/learner.py (so what they print counts as a run): the copy the page's download link
serves, run on its own (`python -I check_exercise.py FILE`, from a folder with nothing else), and
`nox -s check -- FILE` itself. Only the worked solution reaches the full comparison (four models at
seed 5, a seed the notebook does not use); the wrong ones fail the short runs in seconds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from sitekit import runs
from sitekit.margins import above, below
from sitekit.pytest_plugin import compute_timer
from sitekit.site_render import PUBLISHED
from snippets.exercise import check as snippet
from snippets.exercise import learner
from snippets.exercise.learner import worked_solution_text
from tests.exercise.test_solution import STARTER  # the notebook's claims and these share the starter

ROOT = Path(__file__).resolve().parents[2]
DOWNLOAD = ROOT / PUBLISHED["module/check_exercise.py"]  # what the page's download link serves
PAGE = "module/exercise.md"
EXPERIMENT = "runs the self-check on 8 learner files through both entry points (16 processes, nox among them)"
# The full comparison trains the notebook's four models on one seed: the deep plain model's final loss moves with
# the kernel path (the notebook's medians of the same ratios moved by up to 0.56 between native kernels and
# ATEN_CPU_CAPABILITY=default, test_solution.py), and one seed moves more than a median. Between processors it moves
# further: the deep/shallow final-loss ratio on seed 5 was 5.89 on Intel Xeon (2026-12-06) and 11.17 on AMD EPYC
# (2026-12-07, CI), a difference of 0.90 of the smaller. Both clear the check (> 1) many times over; the number the
# page prints is one processor's, and a reader's will differ by as much (the page says so).
TOLERANCE = 1.8  # twice the largest drift measured between processors (0.90 of the smaller value)
EXACT_TOLERANCE = 0.05  # the exact claims: exit codes and output text, nothing that can drift
pytestmark = pytest.mark.timeout(1800)  # 16 processes, each importing PyTorch: minutes on a busy machine
LEARNER_CPU = "it runs the learner's own file, which trains on the CPU"
# The self-check and the learner's file run in their own processes on the CPU, whatever --device says.
ON_THE_LEARNERS_CPU = "the self-check runs the learner's file in its own process, on the CPU, not on --device"
REFERENCE_SEED = 5  # published: the page shows the self-check's output on this seed (one the notebook does not use)


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


ZEROS = "        nn.init.zeros_(self.branch[-1].weight)\n        nn.init.zeros_(self.branch[-1].bias)\n"

# name -> (how the worked solution is changed, words only that mistake's hint contains)
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


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> dict[str, dict[str, learner.Ran]]:
    """Every learner file through both entry points: name -> {"download"|"nox": what the process printed}."""
    files = tmp_path_factory.mktemp("learner")
    texts = {"worked solution": worked_solution_text(), "starter": STARTER.read_text(encoding="utf-8")} | {
        name: change(worked_solution_text()) for name, (change, _) in WRONG.items()
    }
    seed = ("--seed", str(REFERENCE_SEED))
    out = {}
    with compute_timer("snippets.exercise.check (both entry points)"):
        for name, text in texts.items():
            path = write(files, name, text)
            out[name] = {
                "download": runs.run(learner.run_download, path, *seed, script=DOWNLOAD),
                "nox": runs.run(learner.run_nox_check, path, *seed),
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
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
)
def test_self_check_passes_the_worked_solution(claim, both):
    def all_pass(stdout: str, stderr: str, code: int) -> None:
        assert code == 0 and stdout.rstrip().endswith("Well done.") and not stderr, stdout + stderr
        # The full comparison's three criteria, from the numbers it prints (a trained run: statistical).
        final, held, early = comparison(stdout)
        shallow, deep, residual, warm = snippet.RUNS
        above("plain deep / plain shallow final training loss", final[deep] / final[shallow], 1.0)
        above("plain deep / plain shallow held-out MSE", held[deep] / held[shallow], 1.0)
        below("residual deep / plain deep final training loss", final[residual] / final[deep], 1.0)
        below("residual deep / plain deep held-out MSE", held[residual] / held[deep], 1.0)
        below("warm-up's highest early loss / starting loss", early[warm], 1.0)

    claim.check(all_pass, *both["worked solution"]["download"])
    claim.rejects(all_pass, *both["starter"]["download"], because="the starter, whose stubs are not written")
    output = both["worked solution"]["download"].stdout
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
    experiment=EXPERIMENT,
    tolerance=EXACT_TOLERANCE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="exit code 1 and the mistake's own hint (and no other mistake's) in the self-check's output, "
    "before the full comparison",
)
def test_self_check_names_each_wrong_solutions_mistake(claim, both):
    def fails_with(words: str) -> Callable[[str, str, int], None]:
        def check(stdout: str, stderr: str, code: int) -> None:
            output = stdout + stderr
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
        found = re.findall(r"^        hint: (.*)$", both[name]["download"].stdout, re.M)
        hints[name] = next(h for h in found if not h.startswith("not run"))
    claim.record(
        table={"columns": ["mistake", "hint"], "rows": [[name, hint] for name, hint in hints.items()]},
        mistakes=len(WRONG),
        outputs={name: both[name]["download"].stdout for name in WRONG},
        exit_codes={name: both[name]["download"].code for name in WRONG},
    )


# The line that names the file: the download is given its name, `nox -s check` passes on its full path.
NAMED = re.compile(r"^(Checking|Could not check) (\S.*?)(:?)$", re.M)


def report(stdout: str) -> str:
    """The self-check's report with the file named by its name alone."""
    return NAMED.sub(lambda m: f"{m[1]} {Path(m[2]).name}{m[3]}", stdout)


def own_lines(stderr: str) -> list[str]:
    """stderr without nox's own log lines ("nox > ...")."""
    return [line for line in stderr.splitlines() if not line.startswith("nox > ")]


@pytest.mark.claim(
    "The downloadable check_exercise.py, run on its own with only Python and PyTorch, prints the same report and "
    "exits with the same code as `nox -s check -- FILE` run in the site's repository, on the worked solution, the "
    "starter and every wrong solution the page lists; only the file is named differently, nox giving its full path.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=EXACT_TOLERANCE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="the two processes' reports (the file named by its name), their other output and their exit codes are "
    "equal, character for character",
)
def test_downloaded_self_check_agrees_with_nox_check(claim, both):
    def same(download: learner.Ran, nox: learner.Ran) -> None:
        assert report(download.stdout) == report(nox.stdout), (download.stdout, nox.stdout)
        assert own_lines(download.stderr) == own_lines(nox.stderr), (download.stderr, nox.stderr)
        assert download.code == nox.code, (download.code, nox.code)

    for ran in both.values():
        claim.check(same, ran["download"], ran["nox"])
    claim.rejects(
        same,
        both["no zero_grad"]["download"],
        both["no warm-up"]["nox"],
        because="two wrong solutions, both exiting with 1, whose hints differ",
    )
    claim.record(
        files=len(both),
        exit_codes={name: ran["download"].code for name, ran in both.items()},
        nox_exit_codes={name: ran["nox"].code for name, ran in both.items()},
        nox_log=both["worked solution"]["nox"].stderr,
    )


@pytest.mark.claim(
    "The self-check stops the unmodified starter at its two TODOs, the residual block and the training loop, "
    "with guidance for each, before any full run.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=EXACT_TOLERANCE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="exit code 1 and both TODOs' guidance in the output, before the full comparison",
)
def test_self_check_sends_the_starter_to_the_training_loop(claim, both):
    guidance = ("write the residual block", "fill in the training loop")  # the starter's two parts, as its stubs say

    def guided(stdout: str, stderr: str, code: int) -> None:
        output = stdout + stderr
        assert code == 1 and all(words in output for words in guidance), output
        assert "FAIL  full comparison" in output, output

    starter = both["starter"]["download"]
    claim.check(guided, *starter)
    claim.rejects(guided, *both["worked solution"]["download"], because="the worked solution, which passes")
    claim.record(
        output=starter.stdout,
        exit_code=starter.code,
        todos_guided=sum(words in starter.stdout + starter.stderr for words in guidance),
    )


BROKEN = {
    "syntax error": ("def train(model x):\n    pass\n", "line 1"),
    "missing names": ("import torch\n\n\ndef train(model, data, epochs, lr, warmup):\n    return [], 0.0\n", "DeepMLP"),
    "error at import": ("import torch\n\nraise ValueError('oops')\n", "line 3"),
}


@pytest.mark.claim(
    "For a file it cannot use (a syntax error, a missing DeepMLP, an error at import, no such file) the "
    "self-check prints a short message naming the file and line, not a traceback, and exits with code 2.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=EXACT_TOLERANCE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="exit code 2 and a message of at most 4 lines naming the file and line, without a traceback",
)
def test_self_check_explains_broken_files_without_a_traceback(claim, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def short_message(words: str) -> Callable[[str, str, int], None]:
        def check(stdout: str, stderr: str, code: int) -> None:
            out = stdout + stderr
            assert code == 2 and "Traceback" not in out and words in out and len(out.splitlines()) <= 4, out

        return check

    outputs, codes, checks = {}, {}, {}
    for name, (text, words) in BROKEN.items():
        codes[name] = snippet.main([write(tmp_path, name, text).name])
        printed = capsys.readouterr()
        outputs[name] = printed.out
        checks[name] = short_message(words)
        claim.check(checks[name], printed.out, printed.err, codes[name])
    codes["no such file"] = snippet.main(["missing.py"])
    printed = capsys.readouterr()
    outputs["no such file"] = printed.out
    claim.check(short_message("no such file"), printed.out, printed.err, codes["no such file"])
    raw = runs.run(learner.run_python, write(tmp_path, "syntax error", BROKEN["syntax error"][0]).name, cwd=tmp_path)
    claim.rejects(checks["syntax error"], *raw, because="Python itself running the file")
    claim.record(outputs=outputs, exit_codes=codes, python_exit_code=raw.code)
