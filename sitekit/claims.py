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


HASHED_PACKAGES = ("snippets", "tests")  # what a claim's outcome can depend on; sitekit is the harness


def _local_imports(path: Path) -> set[Path]:
    """Files under snippets/ or tests/ that `path` imports (`import snippets.x.y`, `from tests.x import y`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[Path] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            if name.split(".")[0] not in HASHED_PACKAGES:
                continue
            candidate = ROOT.joinpath(*name.split("."))
            if candidate.with_suffix(".py").is_file():
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


_HASHES: dict[tuple[Path, int], str] = {}


def clear_cache() -> None:
    """Forget computed hashes (a long-running preview calls this before each rebuild)."""
    _HASHES.clear()


def code_hash(test_file: Path) -> str:
    """Content hash of everything a claim's outcome depends on in this repository (memoised)."""
    key = (test_file.resolve(), test_file.stat().st_mtime_ns)
    if key not in _HASHES:
        _HASHES[key] = _code_hash(test_file)
    return _HASHES[key]


def _code_hash(test_file: Path) -> str:
    digest = hashlib.sha256()
    for path in code_files(test_file):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


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
    device_independent: str | None = None  # why its outcome cannot depend on the device (not a CUDA verification)

    @property
    def test_file(self) -> Path:
        return ROOT / self.test.split("::")[0]

    def current_hash(self) -> str | None:
        """The hash the claim's code has now, or None where its test file is gone."""
        if not self.test_file.is_file():
            return None
        return code_hash(self.test_file)

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


def merge(device: str, records: dict[str, dict[str, Any]], provenance: dict[str, Any]) -> Path:
    """Fold one test run's records into `results/<device>.json`.

    A partial run (one topic) replaces only the claims it ran; claims whose test file has gone are
    dropped, so the file never vouches for code that no longer exists.
    """
    path = results_path(device)
    with locked(path):
        data: dict[str, Any] = {"schema": SCHEMA, "claims": {}}
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
        claims = {
            cid: entry
            for cid, entry in data.get("claims", {}).items()
            if (ROOT / entry["test"].split("::")[0]).is_file()
        }
        claims.update(records)
        data = {"schema": SCHEMA, "provenance": provenance, "claims": dict(sorted(claims.items()))}
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        tmp.replace(path)
    return path
