"""The exercise's files run as readers run them, each in a process of its own.

The starter and a learner's file with plain Python; the self-check as the page offers it for
download (`python -I check_exercise.py FILE`, from a folder holding nothing else) and as
`nox -s check -- FILE` runs it in the site's repository; the worked-solution notebook in a Jupyter
kernel. The claims of tests/exercise take what these print or return from here, so it counts as a
run (sitekit.runs): a counterfactual is made of what running the files printed, never of text the
test wrote.
"""

# site: not-a-listing (the runner behind tests/exercise: runs the exercise's files as a reader does)

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sitekit.contract import NOT_A_LISTING
from snippets.exercise import check, exercise_residual

if (
    TYPE_CHECKING
):  # never imported (that would run the notebook): named so the claims' hash covers it
    from snippets.exercise import solution  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
STARTER = Path(exercise_residual.__file__)
CHECK = Path(check.__file__)
SOLUTION = STARTER.parent / "solution.py"
TIMEOUT_S = 900  # one full comparison takes seconds on an idle core; a very busy machine gets time


class Ran(NamedTuple):
    """What one process printed, and how it ended."""

    stdout: str
    stderr: str
    code: int


def _run(command: list[str], cwd: Path) -> Ran:
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, cwd=cwd
    )
    return Ran(done.stdout, done.stderr, done.returncode)


def run_python(*args: str, cwd: Path) -> Ran:
    """`python ARGS` in `cwd`: a file run as a reader runs it (with this interpreter)."""
    return _run([sys.executable, *args], cwd)


def run_download(path: Path, *args: str, script: Path = CHECK) -> Ran:
    """The downloaded self-check: `python -I check_exercise.py NAME ARGS` in `path`'s folder.

    `script` (the file the page's download link serves) is copied alone into a fresh folder, and -I
    keeps the repository, PYTHONPATH and the user's site-packages off the path: only Python, PyTorch
    and this one file, as after a download. The learner's file is named as a learner names it, by
    its name, from its own folder.
    """
    with tempfile.TemporaryDirectory(prefix="download-") as alone:
        copy = Path(alone) / "check_exercise.py"
        shutil.copyfile(script, copy)
        return _run([sys.executable, "-I", str(copy), path.name, *args], path.parent)


def run_nox_check(path: Path, *args: str) -> Ran:
    """`nox -s check -- NAME ARGS` in `path`'s folder, as a contributor runs it in the repository.

    nox logs its own lines ("nox > ...") to stderr; they are left in. It refuses to run where
    `nox -s check` would first rebuild .nox/site (requirements/lock.txt or lock-hashed.txt changed
    since it was built): a claim must not install packages.
    """
    # the stamp noxfile.site_env writes: both lock files' bytes, hashed
    locks = [ROOT / "requirements" / n for n in ("lock.txt", "lock-hashed.txt")]
    stamp = ROOT / ".nox" / "site" / ".lock-sha256"
    want = hashlib.sha256(b"".join(lock.read_bytes() for lock in locks)).hexdigest()
    if not stamp.is_file() or stamp.read_text() != want:
        raise RuntimeError(
            "`nox -s check` would rebuild .nox/site first (requirements/lock.txt or "
            "lock-hashed.txt changed): rebuild it (`nox -s tests` does), then run the claims again"
        )
    noxfile = str(ROOT / "noxfile.py")
    command = [sys.executable, "-m", "nox", "-f", noxfile, "-s", "check", "--"]
    return _run([*command, path.name, *args], path.parent)


def notebook_from_source() -> Any:  # -> nbformat.NotebookNode
    """The worked solution's source (jupytext percent format) as a notebook, without the marker."""
    import jupytext

    nb = jupytext.read(SOLUTION)
    nb.cells = [c for c in nb.cells if not c.source.startswith(NOT_A_LISTING)]
    nb.metadata = {
        "kernelspec": {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
    }
    return nb


def _cell(start: str) -> str:
    cells = notebook_from_source().cells
    return next(c.source for c in cells if c.source.startswith(start)).strip()


def worked_solution_text() -> str:
    """The worked solution as a learner's file: the starter, the notebook's cells for its stubs."""
    text = STARTER.read_text(encoding="utf-8")
    start, end = text.index("class ResidualBlock("), text.index("# ---- your part 2")
    text = text[:start] + _cell("class ResidualBlock(") + "\n\n\n" + text[end:]
    start, end = (
        text.index("def train("),
        text.index("# ---- given: the comparison ----"),
    )
    return text[:start] + _cell("def train(") + "\n\n\n" + text[end:]


PROBE = "import json as _json; print(_json.dumps(summary))"


def measure(device: str, executed: Path) -> dict[str, Any]:
    """Execute the worked-solution notebook on `device`; write it to `executed`; return `summary`.

    nbclient runs it in a `python3` kernel (jupyter_client starts that kernel with this very
    interpreter), fails on any failing cell, and the executed notebook is what the site publishes:
    the page shows the outputs of the very run whose numbers the claims assert.
    """
    import nbformat
    from nbclient import NotebookClient

    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")  # jupyter_core warns without it
    os.environ["SITE_DEVICE"] = device  # the kernel inherits it; the notebook reads it
    nb = notebook_from_source()
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=TIMEOUT_S,
        allow_errors=False,  # a failing cell raises CellExecutionError: the claims fail, no page
        record_timing=False,
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()
    probe = nb.cells.pop()
    out = "".join(o["text"] for o in probe.outputs if o.get("name") == "stdout")
    executed.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, executed)
    return json.loads(out)
