"""Run every page's published notebook script and compare what it prints with the run that built the page.

`python -m sitekit.notebook_check --site site` (nox -s notebooks, after `nox -s docs`): each page's
`notebooks/<slug>.py` from the built site runs in a fresh Python process, in an empty working folder, with the
environment's torch and nothing of the repository on its path; every result it prints must match the logged
result of the same call (sitekit.call_log) within the claim's tolerance, or the check fails, naming the call
and the field. The experiments' calls (minutes each) run in rotation, one slot per commit (`--slot I/K`,
noxfile's NOTEBOOK_ROTATION; `--all` runs every call).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sitekit import claims as store
from sitekit import experiments, notebooks, watch
from sitekit.provenance import _cpu_model


def experiment_slot(index: int, k: int) -> set[str]:
    """The experiment test files whose notebook calls run in rotation slot `index` of `k`."""
    committed = experiments.load("cpu")
    files = sorted({str((c.ran or {}).get("file")) for c in committed.values() if isinstance(c.ran, dict)})
    return set(experiments.rotation(files, index, k, experiments.file_seconds(committed)))


def recorded_elsewhere(records: dict[str, store.Claim], here: str | None) -> dict[str, str]:
    """Experiment files this build did not run (their records rest, committed) whose committed run was on another
    processor: file -> that processor. Their calls are not replayed: a trained model's values differ from processor
    to processor by more than a per-value tolerance allows (the experiment's reproduction, judged on its margins,
    is CI's rotation's job), so a replay here could only compare one processor with another."""
    out: dict[str, str] = {}
    for c in records.values():
        ran = c.ran if isinstance(c.ran, dict) else {}
        if c.reused and ran.get("file") and ran.get("cpu") and ran.get("cpu") != here:
            out[str(ran["file"])] = str(ran["cpu"])
    return out


def chosen(book: notebooks.Notebook, slot_files: set[str] | None) -> set[int]:
    """The calls to run: every call that is not an experiment, and the experiments of this slot (None: all)."""
    return {
        i
        for i, c in enumerate(book.calls, start=1)
        if c.get("tolerance") is None or slot_files is None or c["test"] in slot_files
    }


def _expected_seconds(book: notebooks.Notebook, calls: set[int]) -> float:
    """The logged seconds of the calls a replay makes (the longest replay starts first)."""
    return sum(float(c.get("seconds") or 0.0) for i, c in enumerate(book.calls, start=1) if i in calls)


def run(script: Path, calls: set[int], timeout: float) -> tuple[str, float]:
    """Run a notebook script as a reader would (python <slug>.py, in an empty folder, watched by
    sitekit.watch): its output and seconds. A network connection or a write outside the folder is an error."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("SITE_") and k not in ("PYTHONPATH", "PYTHONSTARTUP")
    }
    env["NOTEBOOK_CALLS"] = ",".join(str(i) for i in sorted(calls)) or "0"  # "0": none (calls count from 1)
    with tempfile.TemporaryDirectory(prefix="notebook-") as here:
        start = time.perf_counter()
        seen, out = watch.watched(Path(here), str(script.resolve()), timeout=timeout, env=env)
        seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{script}: exited with {out.returncode}:\n{out.stderr[-3000:]}")
    if seen["network"] or seen["writes"]:
        raise RuntimeError(
            f"{script}: opened the network {seen['network']} or wrote outside its folder {seen['writes']}"
        )
    return out.stdout, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", default="site", help="the built site (its notebooks/ folder)")
    parser.add_argument("--slot", default=None, help="I/K: the experiments' rotation slot (default: none run)")
    parser.add_argument("--all", action="store_true", help="run every call, the experiments' too")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds one notebook may take")
    args = parser.parse_args(argv)
    books = notebooks.plan("cpu")
    if not books:
        print("notebooks: no call log (results/build/calls-cpu/): run `nox -s docs` first", file=sys.stderr)
        return 2
    slot_files: set[str] | None = None
    if not args.all:
        index, k = (int(x) for x in args.slot.split("/")) if args.slot else (0, 0)
        slot_files = experiment_slot(index, k) if k else set()
    elsewhere = recorded_elsewhere(store.load("cpu")[0], _cpu_model())
    for file, cpu in sorted(elsewhere.items()):
        if slot_files is None or file in slot_files:
            print(f"notebooks: {file}: not replayed; this build shows its committed run, made on {cpu}")
    slot_files = (
        {f for f in slot_files if f not in elsewhere}
        if slot_files is not None
        else experiment_slot(0, 1) - set(elsewhere)
    )
    problems = [
        f"docs/{page} shows listings but has no notebook: none of its claims' tests logged a snippet's measure() "
        "call (run `nox -s docs`; a page whose claims call no measure() needs one that does)"
        for page in notebooks.uncovered(books)
    ]
    jobs: list[tuple[str, notebooks.Notebook, Path, set[int]]] = []
    for page, book in sorted(books.items()):
        script = Path(args.site) / notebooks.FOLDER / f"{book.slug}.py"
        if not script.is_file():
            problems.append(f"{script}: missing from the built site; run `nox -s docs`")
            continue
        jobs.append((page, book, script, chosen(book, slot_files)))

    def replay(job: tuple[str, notebooks.Notebook, Path, set[int]]) -> tuple[str, float] | str:
        try:
            return run(job[2], job[3], args.timeout)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            return str(e)

    # Each call runs on the threads its logged run used (one, for every claim run under xdist), so the notebooks
    # share the cores out, one process per core, longest first; what each printed is reported in page order.
    workers = max(1, int(os.environ.get("SITE_WORKERS") or 0) or os.cpu_count() or 1)
    order = sorted(jobs, key=lambda j: -_expected_seconds(j[1], j[3]))
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        done = dict(zip([j[0] for j in order], pool.map(replay, order), strict=True))
    total = 0.0
    for page, book, _, calls in jobs:
        outcome = done[page]
        if isinstance(outcome, str):
            problems.append(outcome)
            continue
        output, seconds = outcome
        total += seconds
        found = notebooks.check_output(book, output, calls)
        problems += found
        print(
            f"notebooks: {page}: {len(calls)} of {len(book.calls)} calls in {seconds:.1f} s "
            f"({'ok' if not found else f'{len(found)} differ'})"
        )
    print(f"notebooks: {len(jobs)} notebooks run in {time.perf_counter() - start:.0f} s on {workers} processes")
    print(f"notebooks: {len(books)} notebooks, {total:.0f} s of notebook time")
    for p in problems:
        print(f"notebooks: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    os.chdir(store.ROOT)
    raise SystemExit(main())
