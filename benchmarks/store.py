"""Committed benchmark results: results/bench-<device>.json, with provenance and code hashes.

A sweep is slow and machine-specific, so it runs under `nox -s bench` (or scripts/gpu_verify.sh on
a GPU host) and its numbers are committed. The claims in tests/costs read them back through `load`,
which refuses a sweep whose snippet or parameters changed since it ran: the page then cannot show
numbers that the current code did not produce.

Each sweep records where it ran: the CPU model, its cores, torch, a hash of the lock's pins of torch, numpy
and pytest-benchmark (BENCH_PINS),
and the one-minute load average when it started and when it ended. A sweep started on a loaded
machine (load average above the core count: other work was competing for the cores it times) is
refused, by `start` before it runs, by `save` and by `load`. Sweeps committed before these fields
existed record only `load_average`, read when the sweep was saved, at its end; they carry
no start load and no lock hash, and the claims say so rather than fill them in.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitekit.claims import LOCK, locked, with_imports
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
    "stacked_seeds": {"stacks": (1, 2, 4, 8, 12), "depth": 6, "steps_timed": 40, "rounds": 7},
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


def _code(path: Path) -> bytes:
    """A module's code as Python parses it: a comment does not change what a sweep runs, so it does not
    make the sweep stale (a docstring, a name or a literal does)."""
    return ast.dump(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))).encode()


def code_hash(name: str, torch_version: str | None = None, lock: str | None = None) -> str:
    """Hash of what a sweep's timings depend on: its snippet and the snippets it imports (as parsed), the code
    it runs besides, its parameters, the torch that ran it and the lock's pins of the packages its timings run
    through (BENCH_PINS; honesty audit 6.4)."""
    digest = hashlib.sha256()
    for path in hashed_files(name):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + _code(path) + b"\0")
    if name in RUNS_ALSO:
        digest.update(RUNS_ALSO[name]())
    digest.update(repr(sorted(SWEEPS[name].items())).encode())
    digest.update(b"torch=" + (torch_version or _torch()).encode() + b"\0lock=" + (lock or lock_hash()).encode())
    return digest.hexdigest()[:16]


def _torch() -> str:
    import torch

    return str(torch.__version__)


# The packages a sweep's timings run through: their pins in requirements/lock.txt are part of a sweep's hash.
# Another package added to the lock (scikit-learn, for a data set no sweep reads) leaves every sweep as it was;
# a new torch, numpy or pytest-benchmark makes them all stale. (Claims' fingerprints hash the whole lock.)
BENCH_PINS = ("torch", "numpy", "pytest-benchmark")


def lock_pins(text: str) -> str:
    """The lock's lines pinning BENCH_PINS, in order (a KeyError-style message when one is missing)."""
    pins = {line.split("==")[0].strip().lower(): line.strip() for line in text.splitlines() if "==" in line}
    missing = [name for name in BENCH_PINS if name not in pins]
    if missing:
        raise ValueError(f"requirements/lock.txt pins none of {', '.join(missing)}: a sweep cannot say what it ran on")
    return "\n".join(pins[name] for name in BENCH_PINS)


def lock_hash(text: str | None = None) -> str:
    """The hash of the lock's pins of the packages a sweep runs through (BENCH_PINS; sha256, 16 hex digits)."""
    if text is None:
        if not LOCK.is_file():
            return "none"
        text = LOCK.read_text(encoding="utf-8")
    return hashlib.sha256(lock_pins(text).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Start:
    """How busy the machine was when a sweep started: the one-minute load average and the core count."""

    load_average: float
    cores: int

    @property
    def loaded(self) -> bool:
        """More processes wanted a core than there are cores: other work competed with the sweep."""
        return self.load_average > self.cores


def start() -> Start:
    """Read the load now, before a sweep runs (`bench` does; pass it on to `save`)."""
    return Start(round(os.getloadavg()[0], 2), os.cpu_count() or 1)


class LoadedMachine(RuntimeError):
    """A sweep started on a machine busy with other work: its timings are not recorded."""


def _shown(target: Path) -> Path:
    return target.relative_to(ROOT) if target.is_relative_to(ROOT) else target


def _loaded_message(target: Path, name: str, load_average: float, cores: int) -> str:
    return (
        f"{_shown(target)}: sweep {name!r} started with a one-minute load average of {load_average:g} on "
        f"{cores} cores, above the core count: other work was competing for the cores it times, so its "
        f"numbers are not committed. Stop that work (or wait until `uptime` shows a load below {cores}) and "
        f"run `nox -s bench -- -k {name}` again"
    )


def refuse_if_loaded(device: str, name: str, started: Start) -> None:
    """LoadedMachine, naming the results file and what to do, when the sweep started under load."""
    if started.loaded:
        raise LoadedMachine(_loaded_message(path(device), name, started.load_average, started.cores))


def provenance(device: str, started: Start) -> dict[str, Any]:
    """The claims' provenance (CPU model, software, GPU and driver), the lock, and how busy the machine was."""
    return {
        **claim_provenance(device),
        "cores": started.cores,
        "lock": lock_hash(),
        "load_average_start": started.load_average,
        "load_average_end": round(os.getloadavg()[0], 2),
    }


def save(device: str, name: str, values: dict[str, Any], started: Start) -> Path:
    """Store one sweep's values with its provenance and code hash, keeping the other sweeps.

    `started` is `start()` read before the sweep ran; a sweep started under load is refused.
    """
    refuse_if_loaded(device, name, started)
    target = path(device)
    with locked(target):
        data: dict[str, Any] = {"schema": 1, "sweeps": {}}
        if target.is_file():
            data = json.loads(target.read_text(encoding="utf-8"))
        data["sweeps"][name] = {
            "hash": code_hash(name),
            "provenance": provenance(device, started),
            "values": values,
        }
        data["sweeps"] = dict(sorted(data["sweeps"].items()))
        target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return target


def machine_class(cpu: str | None) -> str:
    """The vendor and family of a CPU model name: 'Intel(R) Xeon(R) Platinum 8370C CPU' -> 'Intel Xeon'."""
    words = re.sub(r"\((?:R|TM|tm)\)", " ", cpu or "").split()
    return " ".join(words[:2]) if words else "unknown"


def load(device: str, name: str, machine: str | None = None) -> dict[str, Any]:
    """One sweep's record; AssertionError (a failing claim) when missing, stale, started under load, or
    (with `machine`, the class a claim's sentence names, such as 'Intel Xeon') from another class of CPU."""
    target = path(device)
    fix = f"run `nox -s bench -- -k {name}` (on a GPU host: scripts/gpu_verify.sh) and commit {target.name}"
    shown = _shown(target)
    assert target.is_file(), f"{shown} does not exist: {fix}"
    sweeps = json.loads(target.read_text(encoding="utf-8")).get("sweeps", {})
    assert name in sweeps, f"{target.name} has no sweep {name!r}: {fix}"
    record = sweeps[name]
    prov = record.get("provenance", {})
    if record["hash"] != code_hash(name):
        ran = f"torch {prov.get('torch')}, lock {prov.get('lock')}"
        now = f"torch {_torch()}, lock {lock_hash()}"
        why = f"ran on other software ({ran}; now {now})" if ran != now else "ran on other code"
        raise AssertionError(f"sweep {name!r} {why} (stale): {fix}")
    started, cores = prov.get("load_average_start"), prov.get("cores")
    assert started is None or cores is None or started <= cores, _loaded_message(target, name, started, cores)
    if machine is not None:
        ran_on = machine_class(prov.get("cpu"))
        assert ran_on == machine, (
            f"{shown}: sweep {name!r} ran on {prov.get('cpu')!r} ({ran_on}), but the claim's sentence is about "
            f"the {machine} it was measured on: re-state the sentence (and the page) for {ran_on}, or run "
            f"`nox -s bench -- -k {name}` on an {machine} and commit {target.name}"
        )
    return record
