"""CI's experiments: a record a submission adds or changes is run fresh by the CI run that lands it; a record that
CI's procedure (a publishing build of a clean commit) reproduced, unchanged since, may rest on it outside its slot.

The rule (sitekit.experiments.unreproduced) is checked here against a real git history in a temporary folder:
each way a record can be new or changed must make it due, and only a reproduced, unchanged record rests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from sitekit import experiments

FILE = "tests/topic/test_exp.py"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def record(value: float = 1.0, reproduced: dict | None = None, when: str = "2026-12-01T00:00:00+00:00") -> dict:
    return {
        "id": "c",
        "test": f"{FILE}::test_c",
        "hash": "h1",
        "status": "passed",
        "experiment": "trains",
        "values": {"gap": value},
        "ran": {"date": when, "cpu": "CPU", "file": FILE, "wall_s": 10.0},
        "reproduced": reproduced,
    }


def commit(root: Path, rec: dict, message: str) -> str:
    (root / "results").mkdir(exist_ok=True)
    (root / "results" / "experiments-cpu.json").write_text(json.dumps({"schema": 1, "claims": {"c": rec}}))
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "--short=12", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.org")
    git(tmp_path, "config", "user.name", "t")
    experiments._AT.clear()
    return tmp_path


def why(rec: dict, root: Path) -> str | None:
    return experiments.unreproduced("c", rec, "cpu", root)


def test_a_new_record_is_due(repo):
    commit(repo, record(), "recorded by nox -s experiments")
    assert "no fresh run has reproduced it" in why(record(), repo)
    assert experiments.due("cpu", repo, {"c": record()}) == {
        FILE: "c: no fresh run has reproduced it since it was recorded"
    }


def test_an_identity_in_an_experiment_file_follows_its_file(repo):
    identity = record() | {"id": "i", "test": f"{FILE}::test_i", "experiment": None}
    assert experiments.due("cpu", repo, {"i": identity}) == {}, "it has no reproduction of its own to wait for"
    assert FILE in experiments.due("cpu", repo, {"i": identity, "c": record()}), "its file's experiment is due"


def test_a_reproduced_unchanged_record_rests(repo):
    at = commit(repo, record(), "recorded")
    rests = record(reproduced={"commit": at, "cpu": "AMD EPYC", "date": "2026-12-02", "published": True})
    commit(repo, rests, "CI's reproduction committed")
    assert why(rests, repo) is None
    assert experiments.due("cpu", repo, {"c": rests}) == {}


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda r: r | {"values": {"gap": 2.0}}, id="values edited, reproduction kept"),
        pytest.param(lambda r: r | {"hash": "h2"}, id="re-recorded for other code"),
        pytest.param(lambda r: r | {"ran": r["ran"] | {"date": "2026-12-05T00:00:00+00:00"}}, id="run again"),
        pytest.param(lambda r: r | {"status": "failed"}, id="now failing"),
    ],
)
def test_a_record_changed_since_its_reproduction_is_due(repo, change):
    at = commit(repo, record(), "recorded")
    changed = change(record(reproduced={"commit": at, "published": True}))
    commit(repo, changed, "a later submission changes the record and keeps the old reproduction")
    assert "changed after commit" in why(changed, repo)


def test_a_reproduction_from_an_uncommitted_tree_or_another_history_does_not_count(repo):
    at = commit(repo, record(), "recorded")
    ci = {"published": True}
    assert "not a publishing build's" in why(record(reproduced={"commit": at}), repo), "a contributor's --fresh"
    assert "uncommitted tree" in why(record(reproduced={"commit": at + "+dirty"} | ci), repo)
    assert "uncommitted tree" in why(record(reproduced={"commit": "unknown"} | ci), repo)
    git(repo, "checkout", "-qb", "side")
    side = commit(repo, record(value=3.0), "a record on a branch that never landed")
    git(repo, "checkout", "-q", "-")
    assert "not in this history" in why(record(value=3.0, reproduced={"commit": side} | ci), repo)
    assert "not in this history" in why(record(reproduced={"commit": "0" * 12} | ci), repo)


def test_every_experiment_file_is_fresh_within_one_turn_of_the_rotation():
    files = [f"tests/t/test_{i}.py" for i in range(24)]
    seconds = {f: float(10 + 37 * i % 300) for i, f in enumerate(files)}
    slots = [experiments.rotation(files, i, 6, seconds) for i in range(6)]
    assert sorted(f for s in slots for f in s) == sorted(files), "each file in exactly one slot"


def test_ci_passes_the_rotation_and_a_clean_run_writes_a_commit_without_dirt_from_its_own_records():
    noxfile = (experiments.ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert '"--experiment-rotation"' in noxfile and 'os.environ.get("SITE_PUBLISH") == "1"' in noxfile
    assert "SITE_PUBLISH=1" in (experiments.ROOT / ".ci" / "run").read_text(encoding="utf-8")
    src = (experiments.ROOT / "sitekit" / "experiments.py").read_text(encoding="utf-8")
    assert '":(exclude)results"' in src, "a fresh run rewrites results/: that alone must not make its commit dirty"


def test_contributing_states_the_rotation_that_ci_uses():
    from sitekit import rotations

    text = (experiments.ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert f"`GROUPS` = {rotations.GROUPS} groups" in text
    assert f"group (count // 2) mod {rotations.GROUPS} fresh" in text
    assert f"`EXPERIMENTS` = {rotations.EXPERIMENTS} commits" in text
    assert '{{ rotation("EXPERIMENTS") }}' in (experiments.ROOT / "docs" / "how-we-check.md").read_text(
        encoding="utf-8"
    )


def test_a_published_build_refuses_reuse_except_an_experiment_resting_on_its_reproduction(tmp_path, monkeypatch):
    from sitekit import site_render

    def rec(cid: str, **extra) -> dict:
        base = {"id": cid, "page": "p.md", "snippet": "s.py", "statement": "s", "reused": True, "device": "cpu"}
        base |= {"torch": "2.13.0", "recorded_at": "2026-12-01T00:00:00+00:00", "duration_s": 1.0}
        return record() | base | {"counterfactuals": ["c"]} | extra

    claims_ = {
        "exp": rec("exp", experiment="trains", reproduced={"commit": "0" * 12, "published": True}),
        "plain": rec("plain", reproduced=None),
    }
    (tmp_path / "cpu.json").write_text(json.dumps({"schema": 1, "claims": claims_}), encoding="utf-8")
    monkeypatch.setenv("SITE_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("SITE_PUBLISH", "1")
    with pytest.raises(site_render.RenderError, match=r"2 claims .* were reused"):
        site_render.load(strict=True)  # commit 000... is in no history: the experiment cannot rest either
    monkeypatch.setattr(experiments, "rests", lambda cid, r, device, due=None: cid == "exp")  # as if reproduced
    with pytest.raises(site_render.RenderError, match=r"1 claims .* were reused .* instead of run \(plain\)"):
        site_render.load(strict=True)
    claims_.pop("plain")
    (tmp_path / "cpu.json").write_text(json.dumps({"schema": 1, "claims": claims_}), encoding="utf-8")
    assert set(site_render.load(strict=True).cpu) == {"exp"}


def test_keep_reproductions_copies_a_rehearsals_reproductions_onto_identical_records_only(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "keep_reproductions", experiments.ROOT / "scripts" / "keep_reproductions.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    ci = {"commit": "abc123def456", "published": True, "cpu": "AMD EPYC"}
    here, clone = tmp_path / "here", tmp_path / "clone"
    mine = {"same": record(), "re-recorded": record(value=2.0), "local": record()}
    theirs = {
        "same": record(reproduced=ci),
        "re-recorded": record(reproduced=ci),  # the rehearsal saw the old record
        "local": record(reproduced=ci | {"published": False}),  # a contributor's --fresh, not CI's procedure
    }
    for root, claims in ((here, mine), (clone, theirs)):
        (root / "results").mkdir(parents=True)
        (root / "results" / "experiments-cpu.json").write_text(json.dumps({"schema": 1, "claims": claims}))
    copied, skipped = tool.keep(clone, "cpu", here)
    assert copied == ["same"] and len(skipped) == 2
    after = json.loads((here / "results" / "experiments-cpu.json").read_text())["claims"]
    assert after["same"]["reproduced"] == ci and after["re-recorded"]["reproduced"] is None
    assert after["local"]["reproduced"] is None


def test_one_ci_run_carries_one_experiment_group_and_each_group_takes_each_condition_once_a_cycle():
    """sitekit/rotations.py: the longest file sets a step's floor, so a CI run carries a group fresh or held-out,
    never both; over any EXPERIMENTS consecutive commit counts each group meets each condition exactly once."""
    from sitekit import rotations

    assert rotations.EXPERIMENTS == rotations.HELD_OUT == 2 * rotations.GROUPS
    for start in range(0, 40, 7):
        turns = [rotations.turn(c) for c in range(start, start + rotations.EXPERIMENTS)]
        for condition in ("fresh", "heldout"):
            assert sorted(g for taken, g in turns if taken == condition) == list(range(rotations.GROUPS))
    noxfile = (experiments.ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert '_experiment_turn("fresh")' in noxfile and '_experiment_turn("heldout")' in noxfile


def test_none_takes_no_group_and_a_bad_slot_is_refused_with_the_form_to_write():
    import pytest

    from sitekit import selection

    assert selection.parse_slot("none", "--experiment-slot") == (0, 0)
    assert selection.parse_slot("2/6", "--experiment-slot") == (2, 6)
    with pytest.raises(pytest.UsageError, match=r"write I/K with 0 <= I < K, e\.g\. 1/3, or none"):
        selection.parse_slot("6/6", "--experiment-slot")
