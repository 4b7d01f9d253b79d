"""The contributor's commands: `nox -s docs` says when lint would fail, `nox -s deps` answers what a file feeds,
and an out-of-date claim is reported as out of date (once per edited file), not as failed."""

from __future__ import annotations

import sys
from pathlib import Path

from sitekit.claims import ROOT
from tests.contract.noxfile_once import noxfile

PY = Path(sys.executable)


def test_docs_names_the_files_lint_would_fail_and_the_fix(tmp_path):
    (tmp_path / "clean.py").write_text("X = 1\n", encoding="utf-8")
    assert noxfile().lint_hint(PY, tmp_path) is None
    (tmp_path / "messy.py").write_text("import os\nx=1\n", encoding="utf-8")
    hint = noxfile().lint_hint(PY, tmp_path)
    assert hint is not None and "messy.py" in hint and "clean.py" not in hint
    assert "ruff format ." in hint and "ruff check --fix ." in hint
    assert "\n" not in hint, "one line"


def test_deps_lists_the_claims_a_snippet_feeds_and_the_command(capsys):
    from sitekit import deps

    snippet = ROOT / "snippets" / "gradient_highway" / "add_node.py"
    found = deps.dependents(snippet)
    assert [d.test for d in found] == ["tests/gradient_highway/test_add_node.py"]
    assert "add_node_passes_upstream_gradient_unchanged" in found[0].ids
    lines = deps.report(snippet)
    assert lines[-1].endswith("nox -s tests -- tests/gradient_highway/test_add_node.py")
    assert "Re-verify them all (about" in lines[-1]


def test_deps_follows_conftests_and_names_experiments_with_their_committed_time():
    from sitekit import deps, experiments

    committed = {c.test.split("::")[0]: c for c in experiments.load("cpu").values()}
    exp_test = sorted(committed)[0]
    found = {d.test: d for d in deps.dependents(ROOT / "requirements" / "lock.txt")}  # the lock covers every claim
    assert exp_test in found and found[exp_test].experiment
    assert found[exp_test].seconds == committed[exp_test].ran["wall_s"]
    assert deps.command(list(found.values())) == "nox -s experiments && nox -s tests"
    conftest = ROOT / "tests" / "initialisation" / "conftest.py"
    covered = {d.test for d in deps.dependents(conftest)}
    assert covered and all(t.startswith("tests/initialisation/") for t in covered)


def test_deps_says_when_nothing_depends_on_a_file():
    from sitekit import deps

    assert "no claim's fingerprint covers it" in deps.report(ROOT / "README.md")[0]


def _failed_as_out_of_date() -> object:
    from sitekit import claims, experiments

    test = "tests/gradient_highway/test_add_node.py"
    return claims.Claim(
        id="add_node_passes_upstream_gradient_unchanged",
        statement="s",
        page="module/gradient-highway.md",
        snippet="snippets/gradient_highway/add_node.py",
        test=f"{test}::test_add_node_passes_upstream_gradient_unchanged",
        values={"x": 1.5},
        status="failed",
        device="cpu",
        torch="2.13.0",
        hash=claims.code_hash(ROOT / test, "cpu", "2.13.0"),
        recorded_at="2026-01-01T00:00:00+00:00",
        duration_s=0.1,
        counterfactuals=[],
        error=experiments.stale_message(ROOT / test, "code changed"),
    )


def test_the_preview_says_out_of_date_not_failed_for_a_stale_experiment():
    from sitekit import render

    c = _failed_as_out_of_date()
    ctx = render.Context(page="module/gradient-highway.md", cpu={c.id: c}, strict=False)
    out = render.render('{{ claim("%s") }}' % c.id, ctx)
    assert "out of date" in out and "fix it" not in out and "failed" not in out


def test_an_out_of_date_run_names_the_edited_file_once_with_one_command(monkeypatch):
    from sitekit import deps, experiments

    files = sorted({c.test.split("::")[0] for c in experiments.load("cpu").values()})[:2]
    monkeypatch.setattr(deps, "edited_files", lambda test_file, record: ["snippets/shared/helper.py"])
    lines = experiments.out_of_date_summary(dict.fromkeys(files, "code changed"))
    text = "\n".join(lines)
    assert text.count("snippets/shared/helper.py") == 1
    assert text.count("nox -s experiments --") == 1 and all(f in lines[-1] for f in files)
    assert "by their committed run times" in lines[-1]
    assert "out of date" in experiments.stale_message(ROOT / files[0], "code changed")
