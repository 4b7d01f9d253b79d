"""Reusing proven claims: a record stands in for a run only while everything it depends on is unchanged.

A claim's fingerprint covers its code (test, snippet and their snippets./tests. imports), the conftest
files pytest loads for it, requirements/lock.txt, the torch that ran it and the device. `nox -s tests`
reuses a test file's passing records while that fingerprint matches; every kind of change, a failure,
a new claim or `--fresh` runs it again; a published build refuses reused records.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitekit import call_log, claims

ROOT = claims.ROOT
TEST = ROOT / "tests" / "gradient_highway" / "test_add_node.py"
CID = "add_node_passes_upstream_gradient_unchanged"
TORCH = claims.torch_version()


def proven(**changes: object) -> claims.Claim:
    """A passing record of TEST's claim with today's fingerprint, unless told otherwise."""
    fingerprint = claims.fingerprint(TEST, "cpu")
    base = claims.Claim(
        id=CID,
        statement="s",
        page="module/gradient-highway.md",
        snippet="snippets/gradient_highway/add_node.py",
        test=f"tests/gradient_highway/test_add_node.py::test_{CID}",
        values={},
        status="passed",
        device="cpu",
        torch=TORCH,
        hash=claims.code_hash(TEST, "cpu", TORCH),
        recorded_at="2026-11-29T00:00:00+00:00",
        duration_s=0.1,
        counterfactuals=["c"],
        fingerprint=fingerprint,
    )
    return dataclasses.replace(base, **changes)


def reason(record: claims.Claim | None, fresh: bool = False) -> str | None:
    return claims.rerun_reason(TEST, [CID], {CID: record} if record else {}, "cpu", fresh=fresh)


@pytest.fixture(autouse=True)
def logged_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The call log TEST's last run wrote (its page's notebook replays it), here in a folder of the test's own."""
    monkeypatch.setenv("SITE_RESULTS_DIR", str(tmp_path))
    log = claims.calls_path("tests/gradient_highway/test_add_node.py", "cpu")
    log.parent.mkdir(parents=True)
    log.write_text('{"file": "tests/gradient_highway/test_add_node.py", "calls": []}\n', encoding="utf-8")
    return log


def test_a_passing_record_with_the_same_fingerprint_is_reused():
    assert reason(proven()) is None


def test_a_record_whose_call_log_is_gone_runs_again(logged_calls):
    logged_calls.unlink()  # the notebook of its page could not replay what the record rests on
    assert reason(proven()) == claims.OUTPUT


def test_a_fresh_run_reruns_even_a_matching_record():
    assert reason(proven(), fresh=True) == claims.FRESH


def test_a_claim_without_a_record_runs():
    assert reason(None) == claims.NEW


def test_a_claim_that_failed_before_runs_again():
    assert reason(proven(status="failed")) == claims.FAILED


@pytest.mark.parametrize(
    ("part", "why"),
    [
        ("code", claims.CODE),
        ("conftest", claims.CODE),
        ("lock", claims.ENVIRONMENT),
        ("torch", claims.ENVIRONMENT),
        ("device", claims.ENVIRONMENT),
    ],
)
def test_each_part_of_the_fingerprint_that_changed_reruns_the_claim(part, why):
    old = {**claims.fingerprint(TEST, "cpu"), part: "something else"}
    assert reason(proven(fingerprint=old)) == why


def test_a_record_from_before_fingerprints_runs_again():
    assert reason(proven(fingerprint=None)) == claims.CODE


def test_the_fingerprint_reads_the_topic_conftest_the_lock_and_torch(tmp_path, monkeypatch):
    mistakes = ROOT / "tests" / "mistakes" / "test_inplace_add.py"
    assert ROOT / "tests" / "mistakes" / "conftest.py" in claims.conftest_files(mistakes)
    assert claims.fingerprint(TEST, "cpu")["torch"] == TORCH
    before = claims.code_hash(TEST, "cpu")
    assert claims.code_hash(TEST, "cuda") != before  # the device is part of it
    assert claims.code_hash(TEST, "cpu", "0.0.1") != before  # so is the torch that ran it
    lock = tmp_path / "lock.txt"
    lock.write_text(claims.LOCK.read_text() + "extra==1.0\n")
    monkeypatch.setattr(claims, "LOCK", lock)
    claims.clear_cache()
    try:
        assert claims.code_hash(TEST, "cpu") != before  # a changed lock file
        assert reason(proven(fingerprint={**claims.fingerprint(TEST, "cpu"), "lock": "x"})) == claims.ENVIRONMENT
    finally:
        monkeypatch.undo()
        claims.clear_cache()


def test_a_missing_published_output_reruns_the_test_that_writes_it(monkeypatch):
    rel = TEST.relative_to(ROOT).as_posix()
    monkeypatch.setitem(claims.OUTPUTS, rel, ("results/build/no-such-file.ipynb",))
    assert reason(proven()) == claims.OUTPUT


def test_old_result_files_load_without_the_new_fields(tmp_path, monkeypatch):
    entry = {k: v for k, v in dataclasses.asdict(proven()).items() if k not in ("reused", "fingerprint")}
    (tmp_path / "cpu.json").write_text(json.dumps({"schema": 1, "claims": {CID: entry}}))
    monkeypatch.setenv("SITE_RESULTS_DIR", str(tmp_path))
    loaded, _ = claims.load("cpu")
    assert loaded[CID].reused is False and loaded[CID].fingerprint is None


# The same decision, end to end: pytest run three times on one claim file into a scratch results dir.


def run_pytest(results: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "SITE_FRESH", "SITE_PUBLISH")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--device", "cpu", *args, str(TEST)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**base, "SITE_RESULTS_DIR": str(results), **env},
        check=False,
    )


def test_a_second_run_reuses_and_says_so_and_fresh_or_ci_runs_again(tmp_path):
    first = run_pytest(tmp_path, "--reuse")
    assert first.returncode == 0, first.stdout[-2000:]
    assert "0 reused from their last run" in first.stdout and "1 re-run: 1 new" in first.stdout
    ran = json.loads((tmp_path / "cpu.json").read_text())["claims"][CID]
    assert ran["reused"] is False and ran["fingerprint"] == claims.fingerprint(TEST, "cpu", ran["torch"])

    second = run_pytest(tmp_path, "--reuse")
    assert second.returncode == 0, second.stdout[-2000:]
    assert "1 reused from their last run" in second.stdout and "1 deselected" in second.stdout
    assert "1 passed" not in second.stdout  # a reused claim is not reported as a pass of this run
    kept = json.loads((tmp_path / "cpu.json").read_text())["claims"][CID]
    assert kept["reused"] is True and kept["recorded_at"] == ran["recorded_at"]  # when it last actually ran

    for extra, env, why in (
        (["--fresh"], {}, "(--fresh)"),
        ([], {"CI": "true"}, "(CI=true)"),
        ([], {"SITE_FRESH": "1"}, "(SITE_FRESH=1)"),
    ):
        again = run_pytest(tmp_path, "--reuse", *extra, **env)
        assert again.returncode == 0, again.stdout[-2000:]
        assert f"1 re-run: 1 fresh run requested {why}" in again.stdout and "1 passed" in again.stdout
        assert json.loads((tmp_path / "cpu.json").read_text())["claims"][CID]["reused"] is False


def test_a_published_build_refuses_reused_records(tmp_path):
    record = {**dataclasses.asdict(proven()), "reused": True}
    (tmp_path / "cpu.json").write_text(json.dumps({"schema": 1, "claims": {CID: record}}))
    env = {**os.environ, "SITE_RESULTS_DIR": str(tmp_path), "NO_MKDOCS_2_WARNING": "1", "SITE_PUBLISH": "1"}
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert out.returncode != 0
    assert f"SITE_PUBLISH=1: 1 claims in results/cpu.json were reused from an earlier run instead of run ({CID})" in (
        out.stderr
    )
    assert "a published site comes from a fresh run" in out.stderr


def test_ci_runs_fresh_and_publishes_only_a_fresh_run():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "SITE_FRESH=1" in ci or "--fresh" in ci
    assert "SITE_PUBLISH=1" in ci
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    assert "run: bash .ci/run" in workflow, "the hosted workflow publishes what .ci/run built"


def test_the_fingerprint_covers_the_committed_sweeps_and_site_url(monkeypatch):
    """A re-benchmark or a build for another address re-runs the claims that read them (honesty audit 6.4, 6.5)."""
    from sitekit import claims

    costs = claims.code_files(ROOT / "tests" / "costs" / "test_denormals.py")
    assert any(p.is_relative_to(ROOT / "benchmarks") for p in costs), "benchmarks/ is followed as an import"
    before = claims._data_digest(costs)
    monkeypatch.setattr(claims, "BENCH_RECORDS", "results/no-such-sweep-*.json")  # as if the sweeps changed
    assert claims._data_digest(costs) != before
    citation = claims.code_files(ROOT / "tests" / "encyclopedia" / "test_citation.py")
    monkeypatch.setenv("SITE_URL", "https://a.example/")
    first = claims._data_digest(citation)
    monkeypatch.setenv("SITE_URL", "https://b.example/")
    assert claims._data_digest(citation) != first
    plain = claims.code_files(ROOT / "tests" / "gradient_highway" / "test_add_node.py")
    assert claims._data_digest(plain) == claims._data_digest([])  # reads neither


def test_a_corrected_fact_re_runs_the_claims_that_read_facts(monkeypatch, tmp_path):
    """facts/facts.toml is data for the claims that read it (depth records, GPT-3's size...), not for the rest."""
    from sitekit import claims

    reads = claims.code_files(ROOT / "tests" / "degradation" / "test_depth_records.py")
    before = claims._data_digest(reads)
    edited = tmp_path / "facts.toml"
    edited.write_text(claims.FACTS.read_text(encoding="utf-8") + "\n# a corrected quote\n", encoding="utf-8")
    monkeypatch.setattr(claims, "FACTS", edited)
    assert claims._data_digest(reads) != before
    plain = claims.code_files(ROOT / "tests" / "gradient_highway" / "test_add_node.py")
    assert claims._data_digest(plain) == claims._data_digest([])


def test_a_claim_file_that_calls_no_measure_still_writes_its_log(tmp_path, monkeypatch):
    """A claim that reads a committed sweep or checks a published file makes no measure() call; its empty log must
    still be written, or its record would never be reused (every build would run it again)."""
    monkeypatch.setattr(call_log, "_LOG", {})
    monkeypatch.setattr(call_log, "folder", lambda device: tmp_path / f"calls-{device}")
    call_log.ran("tests/costs/test_depth_width.py")
    call_log.write("cpu")
    written = json.loads((tmp_path / "calls-cpu" / "costs__test_depth_width.json").read_text(encoding="utf-8"))
    assert written == {"file": "tests/costs/test_depth_width.py", "calls": []}
