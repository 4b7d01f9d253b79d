"""Claims run on every core (pytest-xdist, one test file per worker) and record what a serial run records.

Two cheap topics whose computations are deterministic (their conftest pins one CPU thread) are run
once in one process and once on two workers, each into its own scratch results directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sitekit import claims

TOPICS = ["tests/residual_stream", "tests/mistakes"]


def run(results: Path, *args: str) -> tuple[dict[str, dict], str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "SITE_FRESH", "SITE_PUBLISH")}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--device", "cpu", *args, *TOPICS],
        cwd=claims.ROOT,
        capture_output=True,
        text=True,
        env={**env, "SITE_RESULTS_DIR": str(results)},
        check=False,
    )
    assert out.returncode == 0, out.stdout[-3000:]
    return json.loads((results / "cpu.json").read_text())["claims"], out.stdout


def test_parallel_and_serial_runs_record_identical_values(tmp_path):
    serial, serial_log = run(tmp_path / "serial", "-p", "no:xdist")
    parallel, parallel_log = run(tmp_path / "parallel", "-n", "2", "--dist", "loadfile")
    assert "2 workers" in parallel_log
    assert serial and sorted(serial) == sorted(parallel)
    for cid in serial:
        assert parallel[cid]["status"] == serial[cid]["status"] == "passed", cid
        assert parallel[cid]["values"] == serial[cid]["values"], cid
        assert parallel[cid]["hash"] == serial[cid]["hash"], cid
    # The controller prints the run's report once, from every worker's share.
    for log in (serial_log, parallel_log):
        assert log.count("snippet compute:") == 1
        assert log.count(f"recorded {len(serial)} claims (0 not passing)") == 1
