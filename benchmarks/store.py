"""Committed benchmark results: results/bench-<device>.json, with provenance and code hashes.

A sweep is slow and machine-specific, so it runs under `nox -s bench` (or scripts/gpu_verify.sh on
a GPU host) and its numbers are committed. The claims in tests/costs read them back through `load`,
which refuses a sweep whose snippet or parameters changed since it ran: the page then cannot show
numbers that the current code did not produce.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sitekit.claims import locked, with_imports
from sitekit.pytest_plugin import provenance as claim_provenance

ROOT = Path(__file__).resolve().parent.parent

# Parameters of each sweep; part of its hash, so changing one marks the committed result stale.
SWEEPS: dict[str, dict[str, Any]] = {
    "add_share": {
        "widths": (64, 128, 256, 512, 1024, 2048),
        "tokens": 256,
        "rounds": 7,
        "token_counts": (16, 64, 256, 1024, 4096),
        "width": 1024,
    },
    "depth_width": {"batches": (16, 64, 256, 1024), "rounds": 3},
    "denormals": {"rounds": 15, "depth": 100},
    "exercise_pair": {"rounds": 3},
    "resnet_latency": {"rounds": 5, "small_side": 32},
}


def _notebook_code() -> bytes:
    """The worked solution's code cells that the exercise_pair sweep runs (its prose is left out)."""
    from snippets.costs.exercise_pair import definition_cells

    return "\n".join(definition_cells()).encode()


# Code a sweep runs besides its own snippet; part of its hash too.
RUNS_ALSO: dict[str, Callable[[], bytes]] = {"exercise_pair": _notebook_code}


def path(device: str) -> Path:
    """results/bench-cpu.json or results/bench-cuda.json (SITE_BENCH_DIR overrides the folder)."""
    return Path(os.environ.get("SITE_BENCH_DIR", ROOT / "results")) / f"bench-{device}.json"


def hashed_files(name: str) -> list[Path]:
    """The sweep's snippet, then every snippet it imports, transitively."""
    snippet = ROOT / "snippets" / "costs" / f"{name}.py"
    return [snippet, *(p for p in with_imports(snippet) if p != snippet)]


def code_hash(name: str) -> str:
    """Hash of the sweep's snippet and the snippets it imports, the code it runs besides, its parameters."""
    digest = hashlib.sha256()
    for path in hashed_files(name):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    if name in RUNS_ALSO:
        digest.update(RUNS_ALSO[name]())
    digest.update(repr(sorted(SWEEPS[name].items())).encode())
    return digest.hexdigest()[:16]


def provenance(device: str) -> dict[str, Any]:
    """The claims' provenance (machine, software, GPU and driver), plus how busy the machine was."""
    return {**claim_provenance(device), "cores": os.cpu_count(), "load_average": round(os.getloadavg()[0], 1)}


def save(device: str, name: str, values: dict[str, Any]) -> Path:
    """Store one sweep's values with its provenance and code hash, keeping the other sweeps."""
    target = path(device)
    with locked(target):
        data: dict[str, Any] = {"schema": 1, "sweeps": {}}
        if target.is_file():
            data = json.loads(target.read_text(encoding="utf-8"))
        data["sweeps"][name] = {"hash": code_hash(name), "provenance": provenance(device), "values": values}
        data["sweeps"] = dict(sorted(data["sweeps"].items()))
        target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return target


def load(device: str, name: str) -> dict[str, Any]:
    """One sweep's record; AssertionError (a failing claim) when missing or stale."""
    target = path(device)
    fix = f"run `nox -s bench -- -k {name}` (on a GPU host: scripts/gpu_verify.sh) and commit {target.name}"
    shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
    assert target.is_file(), f"{shown} does not exist: {fix}"
    sweeps = json.loads(target.read_text(encoding="utf-8")).get("sweeps", {})
    assert name in sweeps, f"{target.name} has no sweep {name!r}: {fix}"
    record = sweeps[name]
    assert record["hash"] == code_hash(name), f"sweep {name!r} ran on other code (stale): {fix}"
    return record
