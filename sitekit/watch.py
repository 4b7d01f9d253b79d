"""Run a file a reader downloads (the self-check, a page's notebook) as the reader would, and watch it.

WATCH runs a script in the current folder under a Python audit hook (PEP 578) that records every socket call
and every file opened for writing outside that folder, and prints what it saw as one JSON line at the end;
`watched` runs it in a given folder and returns that report with the process's output. The downloads'
promise (no network, nothing written outside their working folder) is checked with it
(tests/contract/test_downloads_stay_local.py, sitekit/notebook_check.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def watched(
    folder: Path, *argv: str, timeout: float = 600, env: dict[str, str] | None = None
) -> tuple[dict[str, list[str]], subprocess.CompletedProcess[str]]:
    """Run `python -c WATCH <argv>` in `folder` (the environment's SITE_ variables left out): what the hook saw,
    and the finished process."""
    env = env if env is not None else {k: v for k, v in os.environ.items() if not k.startswith("SITE_")}
    out = subprocess.run(
        [sys.executable, "-c", WATCH, *argv], cwd=folder, capture_output=True, text=True, env=env, timeout=timeout
    )
    line = next((x for x in out.stdout.splitlines() if x.startswith("WATCHED ")), None)
    if line is None:
        raise RuntimeError(f"the watched run printed no report:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    seen: dict[str, Any] = json.loads(line.removeprefix("WATCHED "))
    return seen, out
