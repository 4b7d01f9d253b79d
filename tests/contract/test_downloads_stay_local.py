"""The files a reader downloads and runs (the self-check and the exercise starter, sitekit/site_render.PUBLISHED)
open no network connection and write nothing outside the folder they run in.

Each runs in a fresh folder under a Python audit hook (PEP 578) that records every socket call and every
file opened for writing; the test fails on any socket event and on any write outside that folder. A
counterfactual run of a file that does both shows the hook sees them."""

from pathlib import Path

import pytest

from sitekit import watch

ROOT = Path(__file__).resolve().parents[2]
SELF_CHECK = ROOT / "snippets" / "exercise" / "check.py"
STARTER = ROOT / "snippets" / "exercise" / "exercise_residual.py"

OFFENDER = """
import socket, tempfile
open(tempfile.gettempdir() + "/left-behind.txt", "w").write("x")
try:
    socket.create_connection(("192.0.2.1", 80), timeout=0.01)
except OSError:
    pass
"""


def watched(folder: Path, *argv: str) -> dict:
    return watch.watched(folder, *argv)[0]


@pytest.mark.timeout(600)
def test_the_self_check_on_the_starter_file_stays_in_its_folder(tmp_path):
    (tmp_path / "check_exercise.py").write_text(SELF_CHECK.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "exercise_residual.py").write_text(STARTER.read_text(encoding="utf-8"), encoding="utf-8")
    seen = watched(tmp_path, "check_exercise.py", "exercise_residual.py")
    assert seen["network"] == [], f"the self-check opened network connections: {seen['network']}"
    assert seen["writes"] == [], f"the self-check wrote outside its folder: {seen['writes']}"


def test_the_starter_file_imported_on_its_own_stays_in_its_folder(tmp_path):
    (tmp_path / "exercise_residual.py").write_text(STARTER.read_text(encoding="utf-8"), encoding="utf-8")
    seen = watched(tmp_path, "exercise_residual.py")
    assert seen == {"network": [], "writes": []}, seen


def test_the_watch_sees_a_file_that_phones_home_and_writes_elsewhere(tmp_path):
    (tmp_path / "offender.py").write_text(OFFENDER, encoding="utf-8")
    seen = watched(tmp_path, "offender.py")
    assert any(e.startswith("socket.connect") for e in seen["network"]), seen
    assert any(p.endswith("left-behind.txt") for p in seen["writes"]), seen
