"""The wheels a GPU host needs for `scripts/gpu_verify.sh`, pinned from requirements/lock.txt.

A GPU host brings its own CUDA torch, numpy and matplotlib and has no network. Everything else the
test suite imports travels as wheels in `.whl/` (scripts/fetch_gpu_wheels.sh downloads them). The
set is computed, not listed by hand: the requirement closure of the test dependencies, read from the installed
metadata of this environment (.nox/site), minus whatever the host's own packages already pull in.

    python scripts/gpu_wheels.py          # prints NAME==VERSION, one per line
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "lock.txt"

# What the test suite needs: the `test` dependency group of pyproject.toml (read below, so a new
# test dependency travels without an edit here), and the Markdown extensions and YAML reader the
# contract tests use from the `docs` group.
EXTRA_ROOTS = ("pymdown-extensions", "PyYAML")
# The host's CUDA image provides these (and what they require); a second copy could shadow them.
HOST = ("torch", "numpy", "matplotlib")
# Python the GPU image runs (its wheels must match it, not this machine's Python).
TARGET = {"python_version": "3.12", "python_full_version": "3.12.3", "sys_platform": "linux"}


def roots() -> tuple[str, ...]:
    """Names in the `test` dependency group, plus EXTRA_ROOTS."""
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["dependency-groups"]
    return tuple(Requirement(spec).name for spec in groups["test"]) + EXTRA_ROOTS


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requires(name: str) -> list[str]:
    """Direct requirements of an installed distribution that apply on the target (no extras)."""
    env = {**TARGET, "extra": ""}
    out = []
    try:
        specs = metadata.requires(name) or []
    except metadata.PackageNotFoundError:  # not installed here: nothing more to follow
        return []
    for spec in specs:
        req = Requirement(spec)
        if req.marker is None or req.marker.evaluate(env):
            out.append(canonical(req.name))
    return out


def closure(roots: tuple[str, ...]) -> set[str]:
    """Every distribution reachable from `roots` through requirements."""
    seen: set[str] = set()
    todo = [canonical(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(requires(name))
    return seen


def pins() -> dict[str, str]:
    """canonical name -> version, from the lock file."""
    out = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.strip().split("==", 1)
            out[canonical(name)] = version
    return out


def wheels() -> dict[str, str]:
    """The distributions to carry, each pinned as in the lock file."""
    locked = pins()
    needed = sorted(closure(roots()) - closure(HOST))
    missing = [n for n in needed if n not in locked]
    if missing:
        raise SystemExit(f"not pinned in {LOCK.name}: {missing}; add them (nox -s lock)")
    return {n: locked[n] for n in needed}


if __name__ == "__main__":
    sys.stdout.write("".join(f"{n}=={v}\n" for n, v in wheels().items()))
