"""A miniature project for contract tests: this sitekit, one snippet, one claim file, run by pytest.

The claim file is `tests/topic/test_demo.py`; its snippet `snippets/topic/demo.py` has a `measure()` that
returns a fixed dict; the page is `page.md`. Records go to `results/` inside the project.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from sitekit.claims import ROOT

TEST = "tests/topic/test_demo.py"


def run(tmp_path: Path, test_source: str, measured: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Lay the project out in `tmp_path` (`measured`: the dict literal measure() returns) and run its claims."""
    shutil.copytree(ROOT / "sitekit", tmp_path / "sitekit", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n", encoding="utf-8")
    (tmp_path / "snippets" / "topic").mkdir(parents=True)
    (tmp_path / "snippets" / "topic" / "demo.py").write_text(
        f"def measure():\n    return {measured}\n", encoding="utf-8"
    )
    (tmp_path / "tests" / "topic").mkdir(parents=True)
    (tmp_path / TEST).write_text(test_source, encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-p", "sitekit.pytest_plugin", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(
        [*command, TEST],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path), "SITE_RESULTS_DIR": str(tmp_path / "results")},
        capture_output=True,
        text=True,
        check=False,
    )
