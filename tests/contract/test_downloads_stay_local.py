"""The files a reader downloads and runs (the self-check and the exercise starter, sitekit/mkdocs_hook.PUBLISHED)
open no network connection and write nothing outside the folder they run in.

Each runs in a fresh folder under a Python audit hook (PEP 578) that records every socket call and every
file opened for writing; the test fails on any socket event and on any write outside that folder. A
counterfactual run of a file that does both shows the hook sees them."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SELF_CHECK = ROOT / "snippets" / "exercise" / "check.py"
STARTER = ROOT / "snippets" / "exercise" / "exercise_residual.py"

# Runs `script` with its arguments under the hook, then prints what the hook saw as one JSON line.
WATCH = r"""
import json, os, runpy, sys
here = os.path.realpath(os.getcwd())
seen = {"network": [], "writes": []}
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

def probing_tempdir():
    # tempfile.gettempdir() finds a writable folder by creating a file there and deleting it at once;
    # torch's import calls it. That probe leaves nothing behind, so it is not a write by the file.
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_name == "_get_default_tempdir" and f.f_code.co_filename.endswith("tempfile.py"):
            return True
        f = f.f_back
    return False

def hook(event, args):
    if event.startswith("socket.") and event != "socket.__new__":
        seen["network"].append(f"{event} {args!r}"[:200])
    elif event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        path, mode, flags = args
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & WRITE
        )
        if writes:
            real = os.path.realpath(os.fsdecode(path))
            if not (real == here or real.startswith(here + os.sep)) and not probing_tempdir():
                seen["writes"].append(real)

sys.addaudithook(hook)
script, *rest = sys.argv[1:]
sys.argv = [script, *rest]
try:
    runpy.run_path(script, run_name="__main__")
except SystemExit:
    pass
finally:
    print("\nWATCHED " + json.dumps(seen))
"""

OFFENDER = """
import socket, tempfile
open(tempfile.gettempdir() + "/left-behind.txt", "w").write("x")
try:
    socket.create_connection(("192.0.2.1", 80), timeout=0.01)
except OSError:
    pass
"""


def watched(folder: Path, *argv: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SITE_")}
    out = subprocess.run(
        [sys.executable, "-c", WATCH, *argv], cwd=folder, capture_output=True, text=True, env=env, timeout=600
    )
    line = next((x for x in out.stdout.splitlines() if x.startswith("WATCHED ")), None)
    assert line is not None, f"the watched run printed no report:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
    return json.loads(line.removeprefix("WATCHED "))


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
