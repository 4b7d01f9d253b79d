"""Every snippet `measure()` call a claim run makes, kept so each page's notebook can replay and check it.

While claims run, the plugin hands each call here: the test file and page it ran for, its arguments, the CPU
threads, how long it took and the result summarised (sitekit.notebook_runtime.summary, what the notebook
prints too). At the end each process writes one file per test file under `<results>/build/calls-<device>/`;
`nox -s experiments` also keeps the experiments' logs beside their committed records
(results/experiment-outputs/calls-<device>/), so a build that reuses an experiment still knows its calls.
Nothing here imports pytest or MkDocs.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path
from typing import Any

from sitekit import claims as store
from sitekit.notebook_runtime import summary

_LOG: dict[str, list[dict[str, Any]]] = {}  # test file (relative) -> its calls, in the order they ran
KEPT = store.ROOT / "results" / "experiment-outputs"


def folder(device: str) -> Path:
    """Where this run's logs go: results/build/calls-cpu/ (SITE_RESULTS_DIR moves it with the records)."""
    return store.calls_folder(device)


def kept_folder(device: str) -> Path:
    return KEPT / f"calls-{device}"


def name(test_file: str) -> str:
    """tests/lab_paths/test_paths.py -> lab_paths__test_paths.json"""
    return store.calls_path(test_file, "cpu").name


def literal(value: Any) -> str | None:
    """`value` as Python source that evaluates back to it (numbers, strings, tuples, lists, dicts), or None."""
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value and type(ast.literal_eval(text)) is type(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text if same else None


def ran(test_file: str) -> None:
    """A claim of `test_file` ran: its log is written even if it calls no measure() (a claim that reads a
    committed sweep, or checks a published file), so that its record can be reused like any other."""
    _LOG.setdefault(test_file, [])


def add(
    test_file: str,
    page: str,
    module: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    threads: int,
    seconds: float,
    result: Any,
    tolerance: float | None,
) -> None:
    """One call, as it ran, its arguments as Python literals; one a notebook cannot write down (a function, a
    tensor) leaves them None: the call is listed, not replayed."""
    written = [literal(a) for a in args]
    named = {k: literal(v) for k, v in kwargs.items()}
    replayable = all(w is not None for w in [*written, *named.values()])
    _LOG.setdefault(test_file, []).append(
        {
            "page": page,
            "module": module,
            "args": written if replayable else None,
            "kwargs": named if replayable else None,
            "shown": ", ".join([repr(a)[:60] for a in args] + [f"{k}={v!r}"[:60] for k, v in kwargs.items()]),
            "threads": threads,
            "seconds": round(seconds, 3),
            "tolerance": tolerance,
            "result": summary(result),
        }
    )


def write(device: str, *, keep_experiments: set[str] | None = None) -> None:
    """Write this process's logs (one file per test file); with `keep_experiments`, copy those files' logs to
    the committed folder beside the experiment records."""
    out = folder(device)
    for test_file, calls in _LOG.items():
        out.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"file": test_file, "calls": calls}, indent=1) + "\n"
        (out / name(test_file)).write_text(text, encoding="utf-8")
        if keep_experiments is not None and test_file in keep_experiments:
            kept_folder(device).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(out / name(test_file), kept_folder(device) / name(test_file))


def read(device: str) -> dict[str, list[dict[str, Any]]]:
    """Every test file's calls: this build's log where it ran, else the committed log of a reused experiment."""
    found: dict[str, list[dict[str, Any]]] = {}
    for where in (kept_folder(device), folder(device)):  # this build's own log wins
        for path in sorted(where.glob("*.json")) if where.is_dir() else []:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except json.JSONDecodeError as e:
                raise ValueError(
                    f"{path}: not valid JSON ({e}); delete it and run `nox -s tests` (or, under "
                    "results/experiment-outputs/, `nox -s experiments -- <its test file>`) to write it again"
                ) from None
            found[data["file"]] = data["calls"]
    return found
