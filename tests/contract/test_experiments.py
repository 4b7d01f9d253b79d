"""The experiment tier (sitekit.experiments): a claim that takes minutes keeps a committed record.

A build that is not fresh reuses a committed record whose fingerprint matches and never runs the experiment;
a stale one stops the build with the command to run; a fresh run (CI) must reproduce the committed record
within the claim's tolerance, and fails when the record is missing, stale or not reproduced.
Each test lays out a miniature project (tests/contract/miniature.py) and runs pytest on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from sitekit import experiments
from tests.contract import miniature

EXPERIMENT = """
import pytest

from sitekit import margins
from snippets.topic import demo


def lower_loss(ratios):
    margins.above("plain loss / residual loss", ratios, 2.0)


@pytest.mark.claim("The residual net ends with the lower loss on every seed.", page="page.md",
                   experiment="trains two nets per seed", tolerance=0.1)
def test_residual_ends_lower(claim, device):
    r = demo.measure()
    claim.check(lower_loss, r["ratios"])
    claim.rejects(lower_loss, r["flat"], because="two plain nets")
    claim.record(ratios=r["ratios"])
"""
MEASURED = '{"ratios": [4.0, 4.2, 3.9], "flat": [1.0, 1.1, 0.9]}'


def again(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the miniature project's claims again (as nox's sessions would), with `args` and extra environment."""
    base = {k: v for k, v in os.environ.items() if k not in ("SITE_FRESH", "SITE_PUBLISH", "CI", "SITE_SEEDS")}
    command = [sys.executable, "-m", "pytest", "-p", "sitekit.pytest_plugin", "-q", "-p", "no:cacheprovider"]
    return subprocess.run(
        [*command, *args, miniature.TEST],
        cwd=root,
        env={**base, "PYTHONPATH": str(root), "SITE_RESULTS_DIR": str(root / "results"), **env},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def committed(tmp_path: Path) -> Path:
    """A miniature project whose experiment has been run by `nox -s experiments` (--experiments)."""
    out = miniature.run(tmp_path, EXPERIMENT, MEASURED, "--experiments")
    assert out.returncode == 0, out.stdout + out.stderr
    return tmp_path


def stored(root: Path, name: str) -> dict:
    return json.loads((root / "results" / name).read_text(encoding="utf-8"))["claims"]["residual_ends_lower"]


def test_nox_s_experiments_writes_the_committed_record_with_where_it_ran(committed):
    record = stored(committed, "experiments-cpu.json")
    assert record["status"] == "passed" and record["experiment"] == "trains two nets per seed"
    assert record["tolerance"] == 0.1 and record["reproduced"] is None
    ran = record["ran"]
    assert {"date", "cpu", "cores", "threads", "commit", "torch", "wall_s", "file"} <= set(ran)
    assert ran["file"] == miniature.TEST


def test_a_build_reuses_a_committed_record_whose_fingerprint_matches_without_running_it(committed):
    (committed / "results" / "cpu.json").unlink()  # a newcomer's clone: only the committed record
    out = again(committed, "--reuse")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "experiment, committed record" in out.stdout and "1 reused" in out.stdout
    shown = stored(committed, "cpu.json")
    assert shown["reused"] is True and shown["values"]["ratios"] == [4.0, 4.2, 3.9]
    assert shown["ran"] == stored(committed, "experiments-cpu.json")["ran"]


def test_a_stale_experiment_record_is_refused_with_the_command_to_run(committed):
    demo = committed / "snippets" / "topic" / "demo.py"
    demo.write_text(demo.read_text(encoding="utf-8").replace("4.2", "4.3"), encoding="utf-8")  # the code changed
    out = again(committed, "--reuse")
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"experiment {miniature.TEST} is out of date (code changed): a build does not run experiments" in out.stdout
    summary = [line for line in out.stdout.splitlines() if line.startswith("OUT OF DATE:")]
    assert len(summary) == 1, "the command is given once, not once per claim"
    assert f"`nox -s experiments -- {miniature.TEST}`" in out.stdout
    assert stored(committed, "cpu.json")["status"] == "failed"  # so the page build refuses it


def test_a_fresh_run_that_reproduces_the_committed_record_says_so(committed):
    out = again(committed, "--reuse", CI="true")
    assert out.returncode == 0, out.stdout + out.stderr
    fresh = stored(committed, "cpu.json")
    assert fresh["reused"] is False and fresh["reproduced"]["cpu"]
    assert stored(committed, "experiments-cpu.json")["reproduced"] == fresh["reproduced"]


def test_a_committed_record_the_fresh_run_does_not_reproduce_fails_ci(committed):
    path = committed / "results" / "experiments-cpu.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["claims"]["residual_ends_lower"]["margins"][0]["median"] = 3.0  # the record drifted from the code
    path.write_text(json.dumps(data), encoding="utf-8")
    out = again(committed, "--reuse", CI="true")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "the fresh run does not reproduce the committed experiment record within its tolerance (10%)" in out.stdout
    assert "'plain loss / residual loss': fresh median 4, committed 3" in out.stdout


def test_a_fresh_run_without_a_committed_record_fails(committed):
    (committed / "results" / "experiments-cpu.json").unlink()
    out = again(committed, SITE_FRESH="1")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "an experiment needs a committed record of the code that ran (none is committed)" in out.stdout


def test_held_out_seeds_have_nothing_committed_to_compare_with_and_experiments_refuse_them(committed):
    (committed / "results" / "experiments-cpu.json").unlink()
    assert again(committed, SITE_FRESH="1", SITE_SEEDS="held-out").returncode == 0
    out = again(committed, "--experiments", "--seeds", "held-out")
    assert out.returncode != 0 and "taken on the tuned seeds" in out.stdout + out.stderr


def test_an_experiment_states_its_tolerance(tmp_path):
    out = miniature.run(tmp_path, EXPERIMENT.replace(", tolerance=0.1", ""), MEASURED, "--no-record")
    assert out.returncode != 0
    assert "an experiment states the tolerance a fresh run may differ by" in out.stdout + out.stderr


def test_the_held_out_rotation_without_times_takes_every_kth_experiment_file():
    files = [f"tests/t/test_{c}.py" for c in "edcba"]
    slots = [experiments.rotation(files, i, 3) for i in range(3)]
    assert slots == [
        ["tests/t/test_a.py", "tests/t/test_d.py"],
        ["tests/t/test_b.py", "tests/t/test_e.py"],
        ["tests/t/test_c.py"],
    ]
    assert sorted(f for s in slots for f in s) == sorted(files)  # every file in exactly one slot
    assert [experiments.slot(n, 3) for n in (0, 1, 2, 3)] == [0, 1, 2, 0]


def test_the_held_out_rotation_balances_the_slots_on_committed_wall_time():
    seconds = {"tests/t/test_a.py": 100.0, "tests/t/test_b.py": 90.0, "tests/t/test_c.py": 10.0}
    seconds |= {"tests/t/test_d.py": 10.0, "tests/t/test_e.py": 5.0}
    slots = [experiments.rotation(list(seconds), i, 3, seconds) for i in range(3)]
    assert slots == [
        ["tests/t/test_a.py"],
        ["tests/t/test_b.py"],
        ["tests/t/test_c.py", "tests/t/test_d.py", "tests/t/test_e.py"],
    ]
    # every k-th file would put a and d together (110 s) beside a slot of 10 s
    assert max(sum(seconds[f] for f in s) for s in slots) == 100.0


def test_a_rotation_slot_leaves_the_other_experiments_out_and_says_so(committed):
    out = again(committed, "--experiment-slot", "1/2", "--no-record")
    assert out.returncode == 5, out.stdout + out.stderr  # its only experiment is in slot 0
    assert "experiments in rotation group 1/2: 0 run, 1 left to the other slots" in out.stdout


@pytest.mark.parametrize("n", [*sorted(experiments.SPREADS_ALLOWED), max(experiments.SPREADS_ALLOWED) + 1])
def test_two_runs_of_the_same_experiment_rarely_differ_by_more_than_the_spreads_allowed(n):
    """Simulate a fresh run as new seeds (what another processor amounts to): two medians of n normal draws
    differ by more than spreads_allowed(n) of the larger of the two sample deviations at most FALSE_ALARMS of the
    time (with sampling slack); with half as many spreads they would differ far more often, so the table is not
    looser than it needs to be by a factor of two."""
    import torch

    gen = torch.Generator().manual_seed(n)
    draws = torch.randn(2, 400_000, n, generator=gen, dtype=torch.float64)
    gap = (draws[0].median(dim=1).values - draws[1].median(dim=1).values).abs()
    spread = draws.std(dim=2).max(dim=0).values
    k = experiments.spreads_allowed(n)
    assert (gap > k * spread).double().mean().item() <= 1.5 * experiments.FALSE_ALARMS
    assert (gap > k / 2 * spread).double().mean().item() > 2 * experiments.FALSE_ALARMS


def test_a_fresh_median_within_the_spreads_allowed_of_the_larger_run_is_not_drift():
    committed = SimpleNamespace(margins=[{"what": "gap", "median": 0.84, "spread": 0.19, "n": 3}], ran=None)
    fresh = [{"what": "gap", "median": 1.25, "spread": 0.2, "n": 3}]
    assert experiments.drift(fresh, committed, 0.3) == []  # 0.41 apart: under 6 x 0.2
    far = [{"what": "gap", "median": 2.5, "spread": 0.2, "n": 3}]
    (problem,) = experiments.drift(far, committed, 0.3)
    assert "> 6 seed-to-seed spreads (1.2, the larger run's)" in problem


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)


def test_ci_runs_an_unreproduced_record_out_of_turn_then_rests_on_its_committed_reproduction(committed):
    for args in (("init", "-q"), ("config", "user.email", "t@example.org"), ("config", "user.name", "t")):
        _git(committed, *args)
    _git(committed, "add", "-A")
    _git(committed, "commit", "-qm", "the record, as nox -s experiments wrote it")
    # Outside its slot (the only file is in slot 0 of 2), a record no fresh run has reproduced still runs fresh.
    out = again(committed, "--reuse", "--experiment-rotation", "1/2", CI="true", SITE_PUBLISH="1")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "experiments (rotation group 1/2): 1 files run fresh, 0 rest" in out.stdout
    assert f"fresh out of turn: {miniature.TEST} (residual_ends_lower: no fresh run has reproduced it" in out.stdout
    reproduced = stored(committed, "experiments-cpu.json")["reproduced"]
    assert reproduced and "+dirty" not in reproduced["commit"], "the run's own records do not make its tree dirty"
    assert reproduced["published"] is True
    _git(committed, "add", "-A")
    _git(committed, "commit", "-qm", "CI's reproduction, committed")
    # Now it rests on its committed record outside its slot, and runs fresh in it.
    out = again(committed, "--reuse", "--experiment-rotation", "1/2", CI="true", SITE_PUBLISH="1")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 files run fresh, 1 rest on committed records" in out.stdout
    assert stored(committed, "cpu.json")["reused"] is True
    out = again(committed, "--reuse", "--experiment-rotation", "0/2", CI="true", SITE_PUBLISH="1")
    assert out.returncode == 0 and "1 files run fresh, 0 rest" in out.stdout, out.stdout + out.stderr
    assert stored(committed, "cpu.json")["reused"] is False
