"""Where claims live, how their code is fingerprinted, and how results are read and written.

This module knows nothing about pytest or MkDocs: the pytest plugin writes results through it and the
MkDocs hook reads them through it, so moving the site to another generator touches neither.
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "results"
DEVICES = ("cpu", "cuda")
SCHEMA = 1


class ClaimError(Exception):
    """A page, snippet or test breaks the verified-site contract; the message says how to fix it."""


def results_path(device: str) -> Path:
    """`results/cpu.json` or `results/cuda.json` (overridable for tests of the pipeline itself)."""
    base = Path(os.environ.get("SITE_RESULTS_DIR", RESULTS_DIR))
    return base / f"{device}.json"


def snippet_for_test(test_file: Path) -> Path:
    """tests/<topic>/test_<name>.py -> snippets/<topic>/<name>.py (the enforced mapping)."""
    rel = test_file.resolve().relative_to(ROOT)
    if len(rel.parts) != 3 or rel.parts[0] != "tests" or not rel.name.startswith("test_"):
        raise ClaimError(f"{rel}: claim tests live at tests/<topic>/test_<name>.py")
    return ROOT / "snippets" / rel.parts[1] / rel.name.removeprefix("test_")


HASHED_PACKAGES = ("snippets", "tests", "benchmarks")  # what a claim's outcome can depend on; sitekit is the harness


# The module names a file imports, by path, with the (mtime, size) they were parsed at: parsing every snippet and
# test is most of what a preview rebuild spends on staleness, and a file that did not change imports the same.
_IMPORTED: dict[Path, tuple[tuple[int, int], list[str]]] = {}


def _imported_names(path: Path) -> list[str]:
    stat = path.stat()
    when = (stat.st_mtime_ns, stat.st_size)
    hit = _IMPORTED.get(path)
    if hit is not None and hit[0] == when:
        return hit[1]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    _IMPORTED[path] = (when, names)
    return names


def _local_imports(path: Path) -> set[Path]:
    """Files under snippets/ or tests/ that `path` imports (`import snippets.x.y`, `from tests.x import y`)."""
    found: set[Path] = set()
    for name in _imported_names(path):
        if name.split(".")[0] not in HASHED_PACKAGES:
            continue
        candidate = ROOT.joinpath(*name.split("."))
        if candidate.with_suffix(".py").is_file():  # checked every time: a module may appear or go
            found.add(candidate.with_suffix(".py"))
    return found


def code_files(test_file: Path) -> list[Path]:
    """The test, its snippet and every snippets/ or tests/ module they import, transitively, sorted."""
    return with_imports(test_file.resolve(), snippet_for_test(test_file))


def with_imports(*files: Path) -> list[Path]:
    """`files` and every snippets/ or tests/ module they import, transitively, sorted."""
    seen: set[Path] = set()
    todo = list(files)
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        todo.extend(_local_imports(path))
    return sorted(seen)


LOCK = ROOT / "requirements" / "lock.txt"
_HASHES: dict[tuple[Path, str, str], str] = {}
_PARTS: dict[Path, str] = {}


def clear_cache() -> None:
    """Forget computed hashes (a long-running preview calls this before each rebuild)."""
    _HASHES.clear()
    _PARTS.clear()


def conftest_files(test_file: Path) -> list[Path]:
    """The conftest.py files pytest loads for `test_file` (tests/ and tests/<topic>/), with their imports."""
    test_file = test_file.resolve()
    found = [d / "conftest.py" for d in test_file.parents if d.is_relative_to(ROOT / "tests")]
    return with_imports(*(p for p in found if p.is_file()))


def torch_version() -> str:
    """The installed torch's version, read without importing it (as torch.__version__ says it)."""
    import importlib.metadata

    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "none"


def _digest(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


FACTS = ROOT / "facts" / "facts.toml"
BENCH_RECORDS = "results/bench-*.json"  # the committed sweeps that benchmarks.store serves to claims


def _data_digest(files: list[Path]) -> str:
    """What a claim reads besides code: the committed sweeps (when it imports benchmarks/), SITE_URL (when its
    code reads it) and facts/facts.toml (when it reads sourced facts). A re-benchmark, a build for another
    address or a corrected fact re-runs those claims."""
    digest = hashlib.sha256()
    if any(p.is_relative_to(ROOT / "benchmarks") for p in files):
        for path in sorted(ROOT.glob(BENCH_RECORDS)):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    texts = [p.read_text(encoding="utf-8") for p in files]
    if any("SITE_URL" in t for t in texts):
        digest.update(b"SITE_URL=" + os.environ.get("SITE_URL", "").encode())
    if any(re.search(r"\bfrom sitekit import (?:[\w, ]*\b)?facts\b|\bsitekit\.facts\b", t) for t in texts):
        digest.update(b"facts\0" + FACTS.read_bytes())  # a claim that reads a sourced fact re-runs when it changes
    return digest.hexdigest()[:16]


def fingerprint(test_file: Path, device: str, torch: str | None = None) -> dict[str, str]:
    """What a claim's outcome depends on, part by part (the reuse decision says which part changed).

    code: the test, its snippet and every snippets/, tests/ or benchmarks/ module they import, transitively;
    conftest: the conftest.py files pytest loads for the test (and their imports);
    data: the committed sweeps a claim that imports benchmarks/ reads, and SITE_URL where its code reads it;
    lock: requirements/lock.txt; torch: the torch that ran it; device: cpu or cuda.
    """
    test_file = test_file.resolve()
    if test_file not in _PARTS:
        files = code_files(test_file)
        _PARTS[test_file] = _digest(files) + _digest(conftest_files(test_file)) + _data_digest(files)
    if LOCK not in _PARTS:
        _PARTS[LOCK] = hashlib.sha256(LOCK.read_bytes()).hexdigest()[:16] if LOCK.is_file() else "none"
    both = _PARTS[test_file]
    return {
        "code": both[:16],
        "conftest": both[16:32],
        "data": both[32:],
        "lock": _PARTS[LOCK],
        "torch": torch or torch_version(),
        "device": device,
    }


def code_hash(test_file: Path, device: str = "cpu", torch: str | None = None) -> str:
    """Hash of everything a claim's outcome depends on (see `fingerprint`); memoised per process.

    `torch` defaults to the installed one; a record is checked against the torch it ran on (a GPU
    host's torch is not this machine's), so a torch upgrade on the same lock is caught by the lock.
    """
    key = (test_file.resolve(), device, torch or "")
    if key not in _HASHES:
        parts = fingerprint(test_file, device, torch)
        _HASHES[key] = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]
    return _HASHES[key]


@dataclass(frozen=True)
class Claim:
    """One recorded claim as stored in a results file."""

    id: str
    statement: str
    page: str
    snippet: str
    test: str
    values: dict[str, Any]
    status: str
    device: str
    torch: str
    hash: str
    recorded_at: str
    duration_s: float
    counterfactuals: list[str]
    error: str | None = None
    cpu_only: str | None = None  # why the claim has no CUDA run (e.g. it checks a learner's CPU file)
    cuda_only: str | None = None  # what it asserts about CUDA: a CPU run records it as not run yet
    # True when the last run reused this passing record (same fingerprint) instead of running the test;
    # recorded_at stays the time the test last actually ran. A published build refuses reused records.
    reused: bool = False
    fingerprint: dict[str, str] | None = None  # the parts of `hash` (see claims.fingerprint)
    device_independent: str | None = None  # why its outcome cannot depend on the device (not a CUDA verification)
    exact: str | None = None  # what it asserts exactly (an identity, shape or equality): no margin floor
    margins: list[dict[str, Any]] | None = None  # how far each asserted threshold was cleared (sitekit.margins)
    missed: list[dict[str, Any]] | None = None  # how far each counterfactual missed
    seed_set: str = "tuned"  # the seed set it ran on
    identity: str | None = None  # why it holds by construction (the code does what the algebra says): not evidence
    alternatives: list[dict[str, Any]] | None = None  # the runs each counterfactual came from (sitekit.runs)
    asserted_keys: list[str] | None = None  # recorded values the check asserted; the rest are readings
    experiment: str | None = None  # what it trains or sweeps (minutes): its record is committed (sitekit.experiments)
    tolerance: float | None = None  # the relative drift a fresh run may show against the committed record
    ran: dict[str, Any] | None = None  # an experiment's run: when, on what machine, torch, wall time, commit
    reproduced: dict[str, Any] | None = None  # the last fresh run that matched the committed record (when, where)

    @property
    def test_file(self) -> Path:
        return ROOT / self.test.split("::")[0]

    def current_hash(self) -> str | None:
        """The hash the claim's code has now, or None where its test file is gone."""
        if not self.test_file.is_file():
            return None
        return code_hash(self.test_file, self.device, self.torch)

    @property
    def stale(self) -> bool:
        return self.current_hash() != self.hash


def load(device: str) -> tuple[dict[str, Claim], dict[str, Any]]:
    """All claims recorded for `device` and the run's provenance; empty where never run."""
    path = results_path(device)
    if not path.is_file():
        return {}, {}
    data = json.loads(path.read_text(encoding="utf-8"))
    claims = {cid: Claim(**entry) for cid, entry in data.get("claims", {}).items()}
    return claims, data.get("provenance", {})


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock beside `path` (concurrent runs merge, never clobber)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _test_exists(nodeid: str) -> bool:
    """Whether `tests/x/test_y.py::test_name` still names a test function in that file."""
    file, _, name = nodeid.partition("::")
    path = ROOT / file
    if not path.is_file():
        return False
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return any(isinstance(node, ast.FunctionDef) and node.name == name.split("[")[0] for node in tree.body)


def merge(device: str, records: dict[str, dict[str, Any]], provenance: dict[str, Any]) -> Path:
    """Fold one test run's records into `results/<device>.json`.

    A partial run (one topic) replaces only the claims it ran; claims whose test file or test function
    has gone (a renamed claim) are dropped, so the file never vouches for code that no longer exists.
    """
    path = results_path(device)
    with locked(path):
        data: dict[str, Any] = {"schema": SCHEMA, "claims": {}}
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
        claims = {cid: entry for cid, entry in data.get("claims", {}).items() if _test_exists(entry["test"])}
        claims.update(records)
        data = {"schema": SCHEMA, "provenance": provenance, "claims": dict(sorted(claims.items()))}
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        tmp.replace(path)
    return path


# Why a claim test runs again instead of reusing its record (the run prints a count of each).
FRESH, NEW, FAILED, CODE, DATA, ENVIRONMENT, OUTPUT, SEEDS = (
    "fresh run requested",
    "new",
    "failed before",
    "code changed",
    "committed sweeps or SITE_URL changed",
    "torch or lock changed",
    "an output it writes is missing",
    "another seed set",
)
# Files a test writes that the build publishes: its record cannot stand in for them once they are gone.
OUTPUTS = {"tests/exercise/test_solution.py": ("results/build/exercise-solution.ipynb",)}


def rerun_reason(
    test_file: Path,
    claim_ids: list[str],
    recorded: dict[str, Claim],
    device: str,
    fresh: bool = False,
    seed_set: str = "tuned",
) -> str | None:
    """None when every claim of `test_file` may reuse its record; otherwise why the file runs again.

    The unit is the test file: its claims share one fingerprint and, through module fixtures, one
    experiment, so they run (and are recorded) together or not at all. Reuse needs, for every claim,
    a passing record whose fingerprint equals the current one (code, conftest files, lock, torch,
    device) and the file's published outputs in place.
    """
    if fresh:
        return FRESH
    records = [recorded.get(cid) for cid in claim_ids]
    if not records or any(r is None for r in records):
        return NEW
    if any(r.status != "passed" and not r.cuda_only for r in records if r is not None):
        return FAILED
    if any(r.seed_set != seed_set for r in records if r is not None):
        return SEEDS
    now = fingerprint(test_file, device)
    for r in records:
        assert r is not None
        before = r.fingerprint or {}
        if (before.get("code"), before.get("conftest")) != (now["code"], now["conftest"]):
            return CODE
        if before.get("data") != now["data"]:
            return DATA
        if (before.get("lock"), before.get("torch"), before.get("device")) != (now["lock"], now["torch"], device):
            return ENVIRONMENT
        if r.hash != code_hash(test_file, device):
            return CODE
    rel = test_file.resolve().relative_to(ROOT).as_posix()
    if any(not (ROOT / out).is_file() for out in OUTPUTS.get(rel, ())):
        return OUTPUT
    experiment = any(r is not None and r.tolerance is not None for r in records)
    if not experiment and not calls_path(rel, device).is_file():  # its page's notebook replays these calls
        return OUTPUT
    return None


def calls_folder(device: str) -> Path:
    """Where a run logs its measure() calls (sitekit.call_log): results/build/calls-cpu/ (moves with the records)."""
    return results_path(device).parent / "build" / f"calls-{device}"


def calls_path(test_file: str, device: str) -> Path:
    """One test file's call log: tests/<topic>/test_<name>.py -> <calls_folder>/<topic>__test_<name>.json"""
    return calls_folder(device) / "__".join(Path(test_file).with_suffix(".json").parts[1:])


def mark_reused(device: str, ids: list[str]) -> None:
    """Mark records a run kept instead of re-running (their recorded_at stays the time they ran)."""
    path = results_path(device)
    with locked(path):
        if not path.is_file():
            return
        data = json.loads(path.read_text(encoding="utf-8"))
        for cid in ids:
            if cid in data.get("claims", {}):
                data["claims"][cid]["reused"] = True
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        tmp.replace(path)
