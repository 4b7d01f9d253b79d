"""The environment is installed from requirements/lock-hashed.txt with --require-hashes: the lock's pins, each
with the sha256 of its files, so .nox/site holds exactly the files CI verified (noxfile.py `build_env`).

requirements/lock.txt stays the list of pins that claims' fingerprints hash; `nox -s lock` writes both, and
these tests hold them to the same releases, so a pin bumped in one file alone fails here, not on CI's install.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.contract.noxfile_once import noxfile

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements" / "lock.txt"
HASHED = ROOT / "requirements" / "lock-hashed.txt"
# In the hashed file but not the lock: the pip inside .nox/site (noxfile.PIP), and setuptools, which
# `pip freeze` leaves out of the lock but a fresh venv gets anyway (with hashes it must be named).
INSTALLER_ONLY = {"pip", "setuptools"}
ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:[ \t]*\\\n[ \t]+--hash=sha256:[0-9a-f]{64})*)", re.M)


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str) -> dict[str, str]:
    """canonical name -> version (a local label such as +cpu dropped), from a requirements file."""
    return {_name(m[1]): m[2].split("+")[0] for m in ENTRY.finditer(text)}


def hashes(text: str) -> dict[str, list[str]]:
    """canonical name -> the sha256 digests a hashed requirements file gives it."""
    return {_name(m[1]): re.findall(r"sha256:([0-9a-f]{64})", m[3]) for m in ENTRY.finditer(text)}


def disagreements(lock: str, hashed: str) -> list[str]:
    """Where the hashed file does not pin exactly the lock's releases (and pip's installer packages)."""
    want, have = pins(lock), pins(hashed)
    out = [
        f"{n}: lock.txt pins {v}, lock-hashed.txt {have.get(n, 'nothing')}" for n, v in want.items() if have.get(n) != v
    ]
    out += [f"{n}: in lock-hashed.txt only" for n in sorted(set(have) - set(want) - INSTALLER_ONLY)]
    out += [f"{n}: no sha256" for n, h in hashes(hashed).items() if not h]
    return out


def test_the_hashed_lock_pins_the_locks_releases_each_with_a_hash() -> None:
    problems = disagreements(LOCK.read_text(encoding="utf-8"), HASHED.read_text(encoding="utf-8"))
    assert not problems, "requirements/lock-hashed.txt is out of step (run `nox -s lock -- --hashes`): " + "; ".join(
        problems
    )
    assert len(pins(HASHED.read_text(encoding="utf-8"))) == len(pins(LOCK.read_text(encoding="utf-8"))) + 2


def test_a_pin_bumped_in_the_lock_alone_or_a_missing_hash_is_caught() -> None:
    lock, hashed = LOCK.read_text(encoding="utf-8"), HASHED.read_text(encoding="utf-8")
    bumped = re.sub(r"^(numpy)==\S+", r"\1==0.0.1", lock, flags=re.M)
    assert any(p.startswith("numpy: lock.txt pins 0.0.1") for p in disagreements(bumped, hashed))
    unhashed = re.sub(r"^(webencodings==\S+)[ \t]*\\\n[ \t]+--hash=sha256:[0-9a-f]{64}", r"\1", hashed, flags=re.M)
    assert "webencodings: no sha256" in disagreements(lock, unhashed)
    extra = hashed + "leftpad==2.0.0 \\\n    --hash=sha256:" + "0" * 64 + "\n"
    assert "leftpad: in lock-hashed.txt only" in disagreements(lock, extra)


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_both_installers_read_the_hashed_lock_and_require_hashes(installer, tmp_path, monkeypatch) -> None:
    nf = noxfile()
    monkeypatch.setattr(nf, "_uv", lambda session=None: ["uv"])
    monkeypatch.setattr(nf, "_pip_sources", lambda python: [])
    calls: list[tuple[str, ...]] = []
    nf.build_env(tmp_path / "env", installer, lambda *args: calls.append(args))
    installs = [c for c in calls if "install" in c]
    assert installs, f"{installer}: build_env installed nothing"
    for call in installs:
        assert "--require-hashes" in call and str(nf.HASHED) in call, (
            f"{installer}: an install that does not check hashes against requirements/lock-hashed.txt: {call}"
        )
