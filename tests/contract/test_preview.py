"""The live preview stays still: `mkdocs serve --dirty` (as `nox -s serve` runs it) rebuilds once per real
edit, never on its own.

Started on a copy of the tree (the real one is never edited) on a free loopback port, it must build
no more after its first build until a file changes, then exactly once for one snippet edit; the page
then shows the edited snippet's claim as stale (a red ⚠) instead of failing. A snippet is not a page, so
that edit rebuilds every page (sitekit/preview.py); a prose edit then rebuilds its page alone, which shows
the new sentence and still the stale claim. How fast that is, `nox -s speed` measures (preview_prose).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from sitekit import claims

QUIET_S = 12  # the old loop rebuilt every ~2 s: this would have seen several
START_TIMEOUT_S = 240  # the first build, on a busy 2-core machine
SNIPPET = "snippets/gradient_highway/add_node.py"
PAGE = "module/gradient-highway/"


def copy_tree(dest: Path) -> Path:
    """The repository's files and its recorded results, without environments, builds or git."""
    skip = shutil.ignore_patterns(".git", ".nox", "site", "screenshots", "__pycache__", ".*_cache", "build")
    shutil.copytree(claims.ROOT, dest, ignore=skip, symlinks=True)
    notebook = claims.ROOT / "results" / "build" / "exercise-solution.ipynb"
    if notebook.is_file():
        (dest / "results" / "build").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(notebook, dest / "results" / "build" / notebook.name)
    return dest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Preview:
    """`mkdocs serve` in a subprocess, its log collected line by line."""

    def __init__(self, root: Path) -> None:
        self.port = free_port()
        env = {**os.environ, "SITE_ALLOW_STALE": "1", "NO_MKDOCS_2_WARNING": "1", "PYTHONUNBUFFERED": "1"}
        env.pop("SITE_RESULTS_DIR", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--no-strict", "--dirty", "-a", f"127.0.0.1:{self.port}"],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())

    def wait_for(self, text: str, timeout: float, after: int = 0) -> int:
        """Index of the first log line at or after `after` containing `text`."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for i, line in enumerate(self.lines[after:], start=after):
                if text in line:
                    return i
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError(f"no {text!r} from mkdocs serve in {timeout:.0f} s:\n" + "\n".join(self.lines[-40:]))

    def builds_since(self, index: int) -> int:
        return sum("Building documentation" in line for line in self.lines[index:])

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=20)
        assert self.proc.stdout is not None
        self.proc.stdout.close()


def record_the_edited_claim(root: Path) -> None:
    """Run the edited snippet's claims in the copy, so its record exists whatever this run has recorded so far
    (in a fresh clone under xdist, this test can start before those claims ran)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SITE_RESULTS_DIR"))}
    topic, name = SNIPPET.removeprefix("snippets/").split("/")
    test = f"tests/{topic}/test_{name}"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--device", "cpu", "-p", "no:cacheprovider", test],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_the_preview_rebuilds_once_per_edit_and_never_on_its_own(tmp_path):
    root = copy_tree(tmp_path / "tree")
    record_the_edited_claim(root)
    preview = Preview(root)
    try:
        serving = preview.wait_for("Serving on", START_TIMEOUT_S)
        time.sleep(QUIET_S)
        assert preview.builds_since(serving) == 0, "rebuilt with nothing edited:\n" + "\n".join(preview.lines)

        with open(root / SNIPPET, "a", encoding="utf-8") as f:
            f.write("# an edit\n")
        edited = len(preview.lines)
        built = preview.wait_for("Building documentation", 60, after=edited)
        preview.wait_for("Reloading browsers", START_TIMEOUT_S, after=built)
        time.sleep(QUIET_S)
        assert preview.builds_since(edited) == 1, "\n".join(preview.lines[edited:])

        base = preview.lines[serving].split("Serving on ", 1)[1].strip()  # site_url's path included
        html = urllib.request.urlopen(base.rstrip("/") + "/" + PAGE, timeout=30).read().decode()
        assert 'class="claim-problem"' in html and "changed since it ran" in html  # shown stale, not fatal

        with open(root / "docs" / f"{PAGE.rstrip('/')}.md", "a", encoding="utf-8") as f:
            f.write("\nA sentence with the word previewedit.\n")
        edited = len(preview.lines)
        built = preview.wait_for("Building documentation", 60, after=edited)
        preview.wait_for("Reloading browsers", START_TIMEOUT_S, after=built)
        html = urllib.request.urlopen(base.rstrip("/") + "/" + PAGE, timeout=30).read().decode()
        assert "previewedit" in html, "the edited page was not rebuilt"
        assert "changed since it ran" in html, "the dirty rebuild lost the stale claim"
    finally:
        preview.stop()


def test_a_rewritten_worked_solution_makes_the_preview_render_again(tmp_path):
    """The worked solution's page shows results/build/exercise-solution.ipynb, which the walk over the inputs
    skips (results/build/ is what builds write): the stamp counts it by name, so a test run that rewrites it
    makes a dirty preview render every page again."""
    from sitekit import preview

    (tmp_path / "results" / "build").mkdir(parents=True)
    notebook = tmp_path / "results" / "build" / "exercise-solution.ipynb"
    notebook.write_text("{}", encoding="utf-8")
    before = preview.stamp(tmp_path)
    notebook.write_text('{"cells": []}', encoding="utf-8")
    assert preview.stamp(tmp_path) != before
