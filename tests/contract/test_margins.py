"""Checks report their margins, statistical claims clear the floor, seeds come from the harness.

The end-to-end tests run a real claim file (tests/gradient_highway/test_depth_sweep.py, about 2 s) with
one of its thresholds moved by a small plugin, and show the harness failing each kind of change.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from sitekit import margins, runs
from sitekit.claims import ROOT
from sitekit.pytest_plugin import Claim, _margin_problem
from tests.contract import miniature


def test_above_and_below_measure_the_worst_value_relative_to_the_threshold():
    m = margins.above("ratio", [3.0, 4.0, 5.0], 2.0)
    assert (m.worst, m.median, m.low, m.high, m.n) == (3.0, 4.0, 3.0, 5.0, 3)
    assert m.relative == pytest.approx(0.5) and m.spread == pytest.approx(1.0) and m.spreads == pytest.approx(1.0)
    assert m.passed and m.clears_floor
    m = margins.below("error", [0.7, 0.9], 1.0)
    assert m.worst == 0.9 and m.relative == pytest.approx(0.1) and m.spread is None and not m.clears_floor


def test_a_value_on_the_wrong_side_fails_with_the_worst_value_named():
    with pytest.raises(AssertionError, match=r"ratio: every value must be above 2; worst 1\.5"):
        margins.above("ratio", [3.0, 1.5, 5.0], 2.0)
    with pytest.raises(AssertionError, match="below"):
        margins.below("nan", [float("nan")], 1.0)


def test_the_floor_is_twenty_percent_or_three_spreads():
    tight = margins.margin("x", ">", [1.10, 1.11, 1.12], 1.0)  # 10 %, but 5 spreads of 0.01
    assert tight.relative == pytest.approx(0.1) and tight.spreads == pytest.approx(10.0) and tight.clears_floor
    noisy = margins.margin("x", ">", [1.1, 1.5, 1.9], 1.0)  # 10 %, 0.25 spreads
    assert not noisy.clears_floor
    assert margins.margin("x", ">", [1.25, 1.3], 1.0).clears_floor
    assert margins.margin("sign", ">", [0.001], 0.0).relative == math.inf


def test_margins_are_collected_by_the_check_and_the_counterfactual_records_its_miss():
    claim = Claim(SimpleNamespace(nodeid="tests/topic/test_demo.py::test_claim"))  # type: ignore[arg-type]

    def grows(values: list[float]) -> None:
        margins.above("growth", values, 10.0)

    residual, plain = runs.register(([20.0, 30.0, 40.0], [2.0, 3.0, 4.0]), "snippets.topic.demo.measure()")
    claim.check(grows, residual)
    claim.rejects(grows, plain, because="the plain stack")
    assert [m.worst for m in claim.margins] == [20.0]
    assert claim.missed[0]["because"] == "the plain stack" and claim.missed[0]["worst"] == 2.0


def _item(**kwargs):
    mark = SimpleNamespace(kwargs=kwargs)
    return SimpleNamespace(
        nodeid="tests/t/test_x.py::test_y",
        fixturenames=["claim", "device"],
        get_closest_marker=lambda name: mark,
    )


def test_a_statistical_claim_without_margins_or_under_the_floor_is_refused_and_an_exact_one_is_not():
    claim = Claim(SimpleNamespace(nodeid="x"))  # type: ignore[arg-type]
    assert "reports no margin" in _margin_problem(_item(page="p"), claim)
    assert _margin_problem(_item(page="p", exact="bit-for-bit"), claim) is None
    claim.check(lambda v: margins.below("error", v, 1.0), [0.9])
    problem = _margin_problem(_item(page="p"), claim)
    assert "must clear each threshold by 20%" in problem and "never move the threshold" in problem


def test_a_claim_that_never_asks_for_the_device_must_say_it_is_device_independent():
    claim = Claim(SimpleNamespace(nodeid="x"))  # type: ignore[arg-type]
    item = _item(page="p", exact="a count")
    item.fixturenames = ["claim"]
    assert "device_independent" in _margin_problem(item, claim)
    item = _item(page="p", exact="a count", device_independent="it counts parameters")
    item.fixturenames = ["claim"]
    assert _margin_problem(item, claim) is None


def test_seed_sets_are_named_or_integer_bases_and_a_bad_one_is_refused():
    assert margins.Seeds("tuned")(3) == [0, 1, 2]
    held = margins.Seeds("held-out")(2)
    assert held[0] == margins.SEED_SETS["held-out"] and held[1] == held[0] + 1
    assert margins.Seeds("424242").first() == 424242
    with pytest.raises(margins.SeedSetError, match=r"unknown seed set 'lucky'.*tuned, held-out"):
        margins.seed_base("lucky")


SWEEP = "tests/gradient_highway/test_depth_sweep.py"


def _run(tmp_path: Path, patch: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the depth-sweep claims with `patch` applied to the test module once it is collected."""
    plugin = tmp_path / "movethreshold.py"
    plugin.write_text(
        f"def pytest_collection_modifyitems(items):\n    for item in items:\n        {patch}\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        "SITE_RESULTS_DIR": str(tmp_path),
    }
    env.pop("SITE_SEEDS", None)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "movethreshold", "-q", SWEEP, *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_the_unchanged_claims_pass_and_print_their_thinnest_margins(tmp_path):
    run = _run(tmp_path, "pass")
    assert run.returncode == 0, run.stdout[-3000:]
    assert "thinnest margins of 3 statistical claims (seed set tuned)" in run.stdout


def test_a_tightened_threshold_fails_the_claim(tmp_path):
    run = _run(tmp_path, "item.module.VANISHED = 1e-40")
    assert run.returncode == 1 and "every value must be below 1e-40" in run.stdout, run.stdout[-3000:]


def test_a_loosened_threshold_fails_the_sentence_that_states_the_old_one(tmp_path):
    run = _run(tmp_path, "item.module.VANISHED = 1e-10")
    assert run.returncode == 1, run.stdout[-3000:]
    assert (
        "the sentence states 1e-20 (a bound: assert it through sitekit.margins), which no recorded value shows"
        in run.stdout
    )


def test_a_threshold_moved_close_to_the_values_fails_the_floor(tmp_path):
    # The residual stack's worst ratio is about 3.6: a 'within 4×' check passes by 10 % at most.
    run = _run(tmp_path, "item.module.WITHIN = 4", "-k", "within_10x")
    assert run.returncode == 1 and "must clear each threshold by 20%" in run.stdout, run.stdout[-3000:]


def test_another_seed_set_runs_other_seeds_and_says_so(tmp_path):
    run = _run(tmp_path, "pass", "--seeds", "held-out")
    assert run.returncode == 0, run.stdout[-3000:]
    assert "(seed set held-out)" in run.stdout
    bad = _run(tmp_path, "pass", "--seeds", "lucky")
    assert bad.returncode != 0 and "unknown seed set 'lucky'" in bad.stdout + bad.stderr


CUDA_TEST = """
import pytest

from snippets.topic import demo


def exact(deviation):
    assert deviation == 0.0


@pytest.mark.claim("On a GPU the zeroed block returns its input exactly.", page="page.md", exact="equality")
def test_speaks_of_the_gpu(claim, device):
    r = demo.measure()
    claim.check(exact, r["zeroed"])
    claim.rejects(exact, r["plain"], because="the plain block")
"""


def _mini_project(tmp_path: Path, test_source: str) -> subprocess.CompletedProcess[str]:
    return miniature.run(tmp_path, test_source, '{"zeroed": 0.0, "plain": 0.25}')


def test_a_cuda_sentence_in_a_cpu_claim_is_refused(tmp_path):
    run = _mini_project(tmp_path, CUDA_TEST)
    assert run.returncode != 0, run.stdout
    assert "the sentence speaks of CUDA or a GPU, which a CPU run cannot verify" in run.stdout + run.stderr


def test_a_cuda_only_claim_is_recorded_on_cpu_as_not_run_and_never_as_a_pass(tmp_path):
    marked = CUDA_TEST.replace('exact="equality")', 'exact="equality", cuda_only="the block on a GPU")')
    run = _mini_project(tmp_path, marked)
    assert run.returncode == 5, run.stdout + run.stderr  # pytest's "no tests ran": it is not counted as a pass
    assert "1 CUDA-only claims recorded as not run" in run.stdout
    import json

    record = json.loads((tmp_path / "results" / "cpu.json").read_text(encoding="utf-8"))["claims"]["speaks_of_the_gpu"]
    assert record["status"] == "not run: CUDA only" and record["values"] == {} and record["margins"] == []


def test_a_paired_design_is_judged_by_the_spread_of_its_paired_differences():
    from sitekit.margins import paired_interval

    # DenseFormer's three paired differences in an earlier record: mean -0.067, 95 % interval about [-0.18, +0.05]
    got = paired_interval([-0.100, -0.088, -0.014])
    assert round(got["mean"], 4) == -0.0673 and round(got["low"], 2) == -0.18 and round(got["high"], 2) == 0.05
    assert got["low"] < 0 < got["high"], "not resolved at this size, which is not 'no difference'"
    tight = paired_interval([-0.070, -0.066, -0.068])  # the same mean, paired differences that agree
    assert tight["high"] < 0 and tight["half_width"] < got["half_width"] / 10
    with pytest.raises(ValueError, match="at least 2"):
        paired_interval([0.1])
