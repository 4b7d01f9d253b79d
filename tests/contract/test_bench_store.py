"""The committed benchmark store: a sweep recorded on other code cannot reach a page.

No claims here; these keep benchmarks/store.py honest, because the claims in tests/costs trust it
to refuse stale numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import store
from snippets.costs import exercise_pair


def test_load_refuses_a_missing_file_and_a_missing_sweep(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BENCH_DIR", str(tmp_path))
    with pytest.raises(AssertionError, match=r"does not exist: run `nox -s bench -- -k denormals`"):
        store.load("cpu", "denormals")
    (tmp_path / "bench-cpu.json").write_text(json.dumps({"schema": 1, "sweeps": {}}), encoding="utf-8")
    with pytest.raises(AssertionError, match="has no sweep 'denormals'"):
        store.load("cpu", "denormals")


def test_save_then_load_round_trips_and_a_changed_parameter_makes_it_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BENCH_DIR", str(tmp_path))
    store.save("cpu", "denormals", {"table": {"rows": [1]}})
    assert store.load("cpu", "denormals")["values"] == {"table": {"rows": [1]}}
    monkeypatch.setitem(store.SWEEPS, "denormals", {**store.SWEEPS["denormals"], "rounds": 1})
    with pytest.raises(AssertionError, match="ran on other code"):
        store.load("cpu", "denormals")


def notebook_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str = "", new: str = "") -> None:
    text = exercise_pair.NOTEBOOK.read_text(encoding="utf-8")
    assert old in text, old
    copy = tmp_path / "solution.py"
    copy.write_text(text.replace(old, new, 1), encoding="utf-8")
    monkeypatch.setattr(exercise_pair, "NOTEBOOK", copy)


def test_exercise_sweep_hash_follows_the_notebooks_code_not_its_prose(tmp_path, monkeypatch):
    before = store.code_hash("exercise_pair")
    notebook_copy(tmp_path, monkeypatch, "# ## Loss curves", "# ## The loss curves")
    assert store.code_hash("exercise_pair") == before  # a heading changed: the benchmark still holds
    notebook_copy(tmp_path, monkeypatch, "lr=lr, fused=True)", "lr=lr)")
    assert store.code_hash("exercise_pair") != before  # the code it timed changed: stale


def test_exercise_sweep_says_which_file_to_fix_when_the_notebook_moves_on(tmp_path, monkeypatch):
    notebook_copy(tmp_path, monkeypatch, "runs = {}\nfor seed", "all_runs = {}\nfor seed")
    with pytest.raises(ValueError, match=r"solution.py: no code cell starts with `runs = \{\}`"):
        exercise_pair.definition_cells()


def test_a_sweep_is_stale_when_a_snippet_it_imports_changes():
    hashed = [p.relative_to(store.ROOT).as_posix() for p in store.hashed_files("denormals")]
    assert hashed[0] == "snippets/costs/denormals.py"
    assert "snippets/costs/add_share.py" in hashed  # its timing helpers
    assert "snippets/gradient_highway/depth_sweep.py" in hashed  # the stack it times
