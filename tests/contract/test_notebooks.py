"""Each page's notebook (sitekit/notebooks.py) runs with Python and torch alone and prints what the page was
built from; its check (sitekit/notebook_check.py, `nox -s notebooks`) fails a notebook whose output drifts.

These tests build a notebook from a real snippet and a call measured here, run it as a reader would (a fresh
process in an empty folder, watched for network use and writes), and hold the check to its word: the output
of the run passes, the same output with one number moved past the tolerance fails, and so does a missing one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sitekit import call_log, notebook_check, notebook_runtime, notebooks
from snippets.residual_block import identity_shortcut

MODULE = "snippets.residual_block.identity_shortcut"


def book_for(result: object, tolerance: float | None = None) -> notebooks.Notebook:
    """A notebook of one page with one call, as the build plans it from the call log."""
    call = {
        "page": "module/residual-block.md",
        "module": MODULE,
        "args": ["'cpu'"],
        "kwargs": {"seed": "0"},
        "shown": "'cpu', seed=0",
        "threads": 1,
        "seconds": 0.1,
        "tolerance": tolerance,
        "result": notebook_runtime.summary(result),
        "test": "tests/residual_block/test_identity_shortcut.py",
    }
    book = notebooks.Notebook("module/residual-block.md", "The residual block", calls=[call])
    book.modules, packages = notebooks.closure([MODULE])
    book.needs = sorted(packages)
    return book


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[notebooks.Notebook, str]:
    book = book_for(identity_shortcut.measure("cpu", seed=0))
    script = tmp_path_factory.mktemp("site") / f"{book.slug}.py"
    script.write_text(notebooks.script(book), encoding="utf-8")
    output, _ = notebook_check.run(script, {1}, timeout=300)
    return book, output


def test_a_notebook_run_as_a_reader_would_reproduces_the_measurement(ran):
    book, output = ran
    assert notebooks.check_output(book, output) == []
    assert "result 1 " in output


def test_a_drifted_number_fails_the_check(ran):
    book, output = ran
    line = next(x for x in output.splitlines() if x.startswith("result 1 "))
    printed = json.loads(line.removeprefix("result 1 "))
    printed["parameters"]["4"] += 1  # 33088 -> 33089: far past the 1e-6 a repeated run may differ by
    drifted = output.replace(line, "result 1 " + json.dumps(printed))
    problems = notebooks.check_output(book, drifted)
    assert len(problems) == 1 and ".parameters.4" in problems[0], problems


def test_a_missing_result_fails_the_check(ran):
    book, output = ran
    silent = "\n".join(x for x in output.splitlines() if not x.startswith("result "))
    expected = f"{book.slug} [1] {MODULE}.measure('cpu', seed=0): printed no result"
    assert notebooks.check_output(book, silent) == [expected]


def test_an_experiment_is_compared_within_its_tolerance():
    book = book_for({"loss": 2.0}, tolerance=0.1)
    near, far = "result 1 " + json.dumps({"loss": 2.1}), "result 1 " + json.dumps({"loss": 2.3})
    assert notebooks.check_output(book, near) == []
    assert notebooks.check_output(book, far) != []


def test_the_ipynb_holds_the_script_cells():
    import nbformat

    text = notebooks.script(book_for(identity_shortcut.measure("cpu", seed=0)))
    notebook = nbformat.reads(notebooks.ipynb(text), as_version=4)
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert code[0].strip() == notebooks.RUNTIME.read_text(encoding="utf-8").strip()
    assert Path(identity_shortcut.__file__).read_text(encoding="utf-8").strip() in code[1]
    assert code[-1].startswith(f'run(1, "{MODULE}", [\'cpu\'], {{"seed": 0}}, threads=1)')
    assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")


def test_load_makes_a_snippet_importable_as_its_package_would(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # load() writes the file where the module's would be, under the working folder
    for name in [n for n in sys.modules if n == "nbtest" or n.startswith("nbtest.")]:
        monkeypatch.delitem(sys.modules, name)
    notebook_runtime.load("nbtest.topic.first", "\nVALUE = 3\n")  # as a notebook passes it: r''' and a newline
    second = notebook_runtime.load("nbtest.topic.second", "from nbtest.topic import first\nDOUBLE = 2 * first.VALUE\n")
    assert second.DOUBLE == 6
    assert (tmp_path / "nbtest" / "topic" / "second.py").read_text(encoding="utf-8").startswith("from nbtest")
    first = (tmp_path / "nbtest" / "topic" / "first.py").read_text(encoding="utf-8")
    assert first == "VALUE = 3\n"  # the file, exactly: no leading newline
    for name in ("nbtest.topic.second", "nbtest.topic.first", "nbtest.topic", "nbtest"):
        monkeypatch.delitem(sys.modules, name)


def test_a_snippet_with_triple_single_quotes_is_refused_with_the_file_named(tmp_path, monkeypatch):
    bad = tmp_path / "snippets" / "x" / "quoted.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("TEXT = '''no'''\n", encoding="utf-8")
    monkeypatch.setattr(notebooks.store, "ROOT", tmp_path)
    with pytest.raises(notebooks.NotebookError, match=r"snippets/x/quoted.py: .*'''"):
        notebooks._embedded("snippets.x.quoted")


def test_a_notebook_that_writes_elsewhere_is_stopped(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(f"open({str(tmp_path / 'elsewhere.txt')!r}, 'w').write('x')\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"elsewhere\.txt"):
        notebook_check.run(script, set(), timeout=60)


def test_timings_are_printed_not_compared_but_their_exact_fields_are():
    book = book_for({"width": 1024, "add_s": 1.2e-4})
    book.calls[0]["module"] = "snippets.costs.add_share"  # declares TIMED = True
    assert notebooks.check_output(book, "result 1 " + json.dumps({"width": 1024, "add_s": 3.0e-4})) == []
    assert notebooks.check_output(book, "result 1 " + json.dumps({"width": 512, "add_s": 1.2e-4})) != []


def test_summary_keeps_short_values_and_summarises_long_ones():
    import torch

    s = notebook_runtime.summary({"curve": list(range(100)), "t": torch.tensor([1.5, 2.5]), "x": float("inf")})
    assert s == {"curve": {"length": 100, "first": 0, "last": 99, "mean": 49.5}, "t": [1.5, 2.5], "x": "inf"}


def test_a_call_is_written_down_as_python_literals_or_not_at_all():
    assert call_log.literal((1024,)) == "(1024,)"
    assert call_log.literal({"depth": 2.5e-3}) == "{'depth': 0.0025}"
    assert call_log.literal(print) is None  # a function: the call is listed, not replayed
    assert call_log.literal(float("nan")) is None  # nan != nan: it would not come back the same


def test_a_timing_inside_a_result_is_not_compared_by_name():
    book = book_for({"loss": 2.0, "cpu_seconds": 10.0}, tolerance=0.1)
    assert notebooks.check_output(book, "result 1 " + json.dumps({"loss": 2.0, "cpu_seconds": 30.0})) == []
    assert notebooks.check_output(book, "result 1 " + json.dumps({"loss": 3.0, "cpu_seconds": 10.0})) != []


def test_an_experiment_this_build_did_not_run_is_not_replayed_against_another_processors_run():
    from types import SimpleNamespace

    def rec(reused: bool, cpu: str, file: str = "tests/t/test_e.py") -> SimpleNamespace:
        return SimpleNamespace(reused=reused, ran={"file": file, "cpu": cpu})

    records = {
        "rests": rec(True, "Intel Xeon"),
        "fresh": rec(False, "Intel Xeon", "tests/t/test_f.py"),  # ran in this build: its log is this machine's
        "same": rec(True, "AMD EPYC", "tests/t/test_g.py"),  # committed on this processor: replayed
    }
    assert notebook_check.recorded_elsewhere(records, "AMD EPYC") == {"tests/t/test_e.py": "Intel Xeon"}
