"""The contributor's commands: `nox -s docs` says when lint would fail, `nox -s deps` answers what a file feeds,
and an out-of-date claim is reported as out of date (once per edited file), not as failed."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from sitekit.claims import ROOT

NOXFILE = runpy.run_path(str(ROOT / "noxfile.py"))
PY = Path(sys.executable)


def test_docs_names_the_files_lint_would_fail_and_the_fix(tmp_path):
    (tmp_path / "clean.py").write_text("X = 1\n", encoding="utf-8")
    assert NOXFILE["lint_hint"](PY, tmp_path) is None
    (tmp_path / "messy.py").write_text("import os\nx=1\n", encoding="utf-8")
    hint = NOXFILE["lint_hint"](PY, tmp_path)
    assert hint is not None and "messy.py" in hint and "clean.py" not in hint
    assert "ruff format ." in hint and "ruff check --fix ." in hint
    assert "\n" not in hint, "one line"
