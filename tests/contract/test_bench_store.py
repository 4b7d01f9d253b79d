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


QUIET = store.Start(load_average=0.5, cores=2)  # a reading taken before a sweep on an idle 2-core machine


def machine_reads(monkeypatch: pytest.MonkeyPatch, load_average: float, cores: int) -> None:
    """Fake the load the store reads (the machine itself is left alone)."""
    monkeypatch.setattr(store.os, "getloadavg", lambda: (load_average, load_average, load_average))
    monkeypatch.setattr(store.os, "cpu_count", lambda: cores)


def test_save_then_load_round_trips_and_a_changed_parameter_makes_it_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BENCH_DIR", str(tmp_path))
    store.save("cpu", "denormals", {"table": {"rows": [1]}}, QUIET)
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


def test_a_sweep_records_the_cpu_torch_lock_and_the_load_when_it_started(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BENCH_DIR", str(tmp_path))
    machine_reads(monkeypatch, load_average=0.7, cores=4)
    started = store.start()
    machine_reads(monkeypatch, load_average=1.3, cores=4)  # the sweep itself kept a core busy
    store.save("cpu", "denormals", {"table": {"rows": [1]}}, started)
    prov = store.load("cpu", "denormals")["provenance"]
    assert (prov["load_average_start"], prov["load_average_end"], prov["cores"]) == (0.7, 1.3, 4)
    assert prov["lock"] == store.lock_hash() != "none"
    assert prov["torch"] and "cpu" in prov


def test_a_sweep_started_on_a_loaded_machine_is_refused_and_not_written(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BENCH_DIR", str(tmp_path))
    machine_reads(monkeypatch, load_average=9.6, cores=2)  # the depth_width sweep's reading, at its end
    started = store.start()
    assert started.loaded
    message = (
        r"bench-cpu\.json: sweep 'depth_width' started with a one-minute load average of 9\.6 on 2 cores, above "
        r"the core count: .* Stop that work \(or wait until `uptime` shows a load below 2\) and run "
        r"`nox -s bench -- -k depth_width` again"
    )
    with pytest.raises(store.LoadedMachine, match=message):
        store.refuse_if_loaded("cpu", "depth_width", started)  # what `bench` does before the sweep runs
    with pytest.raises(store.LoadedMachine, match=message):
        store.save("cpu", "depth_width", {"table": {"rows": [1]}}, started)
    assert not (tmp_path / "bench-cpu.json").exists()
    machine_reads(monkeypatch, load_average=2.0, cores=2)  # as many runnable processes as cores: not loaded
    assert not store.start().loaded


def test_load_refuses_a_committed_sweep_whose_record_says_it_started_under_load(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BENCH_DIR", str(tmp_path))
    store.save("cpu", "denormals", {"table": {"rows": [1]}}, QUIET)
    target = tmp_path / "bench-cpu.json"
    data = json.loads(target.read_text(encoding="utf-8"))
    data["sweeps"]["denormals"]["provenance"]["load_average_start"] = 8.7  # written by hand, or by older code
    target.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(AssertionError, match=r"bench-cpu\.json: sweep 'denormals' started with a one-minute load"):
        store.load("cpu", "denormals")


def test_load_keeps_a_claim_to_the_machine_class_its_sentence_names(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BENCH_DIR", str(tmp_path))
    store.save("cpu", "denormals", {"table": {"rows": [1]}}, QUIET)
    ran_on = store.machine_class(store.load("cpu", "denormals")["provenance"]["cpu"])
    assert store.load("cpu", "denormals", machine=ran_on)
    with pytest.raises(AssertionError, match=r"but the claim's sentence is about the Other CPU it was measured on"):
        store.load("cpu", "denormals", machine="Other CPU")
    assert store.machine_class("Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz") == "Intel Xeon"
    assert store.machine_class("AMD EPYC 7763 64-Core Processor") == "AMD EPYC"


def test_a_sweep_recorded_on_another_torch_or_lock_is_stale_and_says_which(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BENCH_DIR", str(tmp_path))
    store.save("cpu", "denormals", {"table": {"rows": [1]}}, QUIET)
    assert store.load("cpu", "denormals")
    monkeypatch.setattr(store, "lock_hash", lambda: "0123456789abcdef")  # requirements/lock.txt changed
    with pytest.raises(AssertionError, match=r"ran on other software \(torch .*, lock .*; now torch .*, lock 0123"):
        store.load("cpu", "denormals")
    monkeypatch.undo()
    monkeypatch.setenv("SITE_BENCH_DIR", str(tmp_path))
    monkeypatch.setattr(store, "_torch", lambda: "9.9.9")  # another torch
    with pytest.raises(AssertionError, match=r"now torch 9\.9\.9"):
        store.load("cpu", "denormals")


def test_a_comment_does_not_stale_a_sweep_but_a_changed_line_of_code_does(tmp_path, monkeypatch):
    name = "denormals"
    snippet = store.hashed_files(name)[0]
    before = store.code_hash(name)
    text = snippet.read_text(encoding="utf-8")
    monkeypatch.setattr(store, "ROOT", tmp_path)
    copy = tmp_path / snippet.name
    monkeypatch.setattr(store, "hashed_files", lambda n: [copy])
    copy.write_text(text, encoding="utf-8")
    same = store.code_hash(name)
    copy.write_text(text + "\n# a comment a reader may reword\n", encoding="utf-8")
    assert store.code_hash(name) == same
    copy.write_text(text + "\nEXTRA = 1\n", encoding="utf-8")
    assert store.code_hash(name) != same
    assert before  # the real hash is a hash of the real files
