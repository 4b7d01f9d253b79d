"""Claims of the exercise page about running its files as downloaded (snippets/exercise/learner.py runs them)."""

from __future__ import annotations

import shutil

import pytest

from sitekit import runs
from snippets.exercise import exercise_residual as starter
from snippets.exercise import learner as snippet

PAGE = "module/exercise.md"
EXPERIMENT = "runs the downloaded starter twice, each in a fresh Python process that imports PyTorch"
TOLERANCE = 0.05  # an exact claim (exit code, message lines): nothing in it can drift
LEARNER_CPU = "it runs the learner's own file, which trains on the CPU"
# The learner's file builds its models and data on the CPU, whatever device the suite runs on.
ON_THE_LEARNERS_CPU = "it runs the learner's own file, which builds and trains its models on the CPU, not on --device"
# The starter's own main(), called without the `if __name__ == "__main__":` block that catches the TODO.
UNGUARDED = "import exercise_residual; exercise_residual.main()"


@pytest.mark.claim(
    "Run as downloaded, the starter stops at the training loop with a one-line 'fill in the training "
    "loop' message and exit code 1, not a traceback (its main() called without the file's __main__ block "
    "dies with a NotImplementedError traceback).",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="the exit code is 1 and stderr holds the one-line message and no traceback",
)
def test_starter_stops_at_the_training_loop_with_guidance(claim, tmp_path):
    shutil.copyfile(snippet.STARTER, tmp_path / "exercise_residual.py")  # the file alone, as downloaded
    result = runs.run(snippet.run_python, "exercise_residual.py", cwd=tmp_path)

    def guides(stdout: str, stderr: str, code: int) -> None:
        assert code == 1, (stdout, stderr, code)
        assert "fill in the training loop" in stderr and "Traceback" not in stderr, stderr
        assert len(stderr.strip().splitlines()) == 1, stderr  # one line

    claim.check(guides, *result)
    unguarded = runs.run(snippet.run_python, "-c", UNGUARDED, cwd=tmp_path)
    claim.rejects(guides, *unguarded, because="the starter's main() called without its __main__ block")
    assert starter.__file__ == str(snippet.STARTER)  # the file run is the module the claims' hash covers
    claim.record(
        transcript="\n".join(["$ python exercise_residual.py", result.stdout.strip(), result.stderr.strip()]),
        stdout=result.stdout.strip(),
        stderr=result.stderr.strip(),
        unguarded_error=unguarded.stderr.strip().splitlines()[-1],
        exit_code=result.code,
        message_lines=len(result.stderr.strip().splitlines()),
    )
