"""`nox -s deps -- FILE`: which claims and experiments an edit of FILE puts out of date, and what re-verifies them.

A claim test file's fingerprint (sitekit.claims.fingerprint) covers its test, its snippet and every snippets/,
tests/ or benchmarks/ module they import, transitively; the conftest.py files pytest loads for it; the committed
sweeps (for code that imports benchmarks/), facts/facts.toml (for code that reads sourced facts); and
requirements/lock.txt. This module asks the same code which test files cover FILE, never hashing anything, so it
answers in seconds and cannot disagree with the staleness check. Times come from the records: an experiment's
committed run (`ran.wall_s` in results/experiments-cpu.json), another claim's last `duration_s` in results/cpu.json.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitekit import claims, experiments

_READS_FACTS = re.compile(r"\bfrom sitekit import (?:[\w, ]*\b)?facts\b|\bsitekit\.facts\b")


def claim_test_files() -> list[Path]:
    """Every claim test file: tests/<topic>/test_*.py beside a snippets/<topic>/ (the contract tests are not claims)."""
    out: list[Path] = []
    for d in sorted((claims.ROOT / "tests").iterdir()):
        if d.is_dir() and (claims.ROOT / "snippets" / d.name).is_dir():
            out += sorted(d.glob("test_*.py"))
    return out


def covers(test_file: Path, target: Path) -> bool:
    """Whether `target` is part of what `test_file`'s fingerprint hashes (the parts of claims.fingerprint)."""
    code = claims.code_files(test_file)
    if target in code or target in claims.conftest_files(test_file):
        return True
    rel = target.relative_to(claims.ROOT).as_posix()
    if target == claims.LOCK:
        return True
    if fnmatch.fnmatch(rel, claims.BENCH_RECORDS):
        return any(p.is_relative_to(claims.ROOT / "benchmarks") for p in code)
    if target == claims.FACTS:
        return any(_READS_FACTS.search(p.read_text(encoding="utf-8")) for p in code)
    return False


def claim_ids(test_file: Path) -> list[str]:
    """The claims a test file declares: its `test_*` functions marked `@pytest.mark.claim`, named without `test_`."""
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    return sorted(
        node.name.removeprefix("test_")
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("test_")
        and any("claim" in ast.unparse(d) for d in node.decorator_list)
    )


@dataclass
class Dependent:
    """One claim test file whose fingerprint covers the file asked about."""

    test: str  # tests/<topic>/test_<name>.py
    ids: list[str] = field(default_factory=list)
    experiment: bool = False
    seconds: float | None = None  # an experiment's committed wall time, else its claims' last durations
    ran: str = ""  # for an experiment: when and where its committed record ran


def dependents(target: Path) -> list[Dependent]:
    """The claim test files whose fingerprint covers `target`, with their claims and recorded times."""
    target = target.resolve()
    cpu, _ = claims.load("cpu")
    committed = experiments.load("cpu")
    out = []
    for test_file in claim_test_files():
        if not covers(test_file.resolve(), target):
            continue
        rel = test_file.relative_to(claims.ROOT).as_posix()
        exp = {cid: c for cid, c in committed.items() if c.test.split("::")[0] == rel}
        dep = Dependent(rel, experiment=bool(exp))
        if exp:
            dep.ids = sorted(exp)
            walls = [c.ran["wall_s"] for c in exp.values() if c.ran and isinstance(c.ran.get("wall_s"), int | float)]
            dep.seconds = max(walls) if walls else None  # `ran` is the file's run, repeated on each of its claims
            dep.ran = experiments.ran_text(next(iter(exp.values())))
        else:
            mine = [c for c in cpu.values() if c.test.split("::")[0] == rel]
            dep.ids = claim_ids(test_file)  # from the file: a fresh clone has no results/cpu.json yet
            dep.seconds = sum(c.duration_s for c in mine) if mine else None
        out.append(dep)
    return out


def command(deps: list[Dependent]) -> str:
    """The one command line that re-verifies every dependent: experiments first (minutes), then the claims."""
    exp = [d.test for d in deps if d.experiment]
    rest = [d.test for d in deps if not d.experiment]
    committed = {c.test.split("::")[0] for c in experiments.load("cpu").values()}
    every = {p.relative_to(claims.ROOT).as_posix() for p in claim_test_files()}
    parts = []
    if exp:  # every experiment: the bare session, not a list of them all
        parts.append(experiments.COMMAND if set(exp) >= committed else f"{experiments.COMMAND} -- {' '.join(exp)}")
    if rest:
        parts.append("nox -s tests" if set(rest) >= every - committed else f"nox -s tests -- {' '.join(rest)}")
    return " && ".join(parts)


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    return f"{seconds / 60:.0f} min"


def expected_seconds(deps: list[Dependent]) -> float:
    """Their recorded times added up (one process; more cores take less), plus a few seconds of start-up."""
    return sum(d.seconds or 0.0 for d in deps) + 10.0


def report(target: Path) -> list[str]:
    """What `nox -s deps -- FILE` prints."""
    target = target.resolve()
    rel = target.relative_to(claims.ROOT).as_posix() if target.is_relative_to(claims.ROOT) else str(target)
    if not target.is_relative_to(claims.ROOT) or not target.exists():
        return [f"{rel}: no such file in this repository"]
    deps = dependents(target)
    if not deps:
        return [f"{rel}: no claim's fingerprint covers it; editing it puts no claim or experiment out of date"]
    n_exp = sum(1 for d in deps if d.experiment)
    n_claims = sum(len(d.ids) for d in deps)
    lines = [
        f"{rel} is covered by the fingerprint of {len(deps)} claim test file(s): "
        f"{n_claims} claim(s), {n_exp} of the files experiments. Editing it puts them out of date:"
    ]
    for d in deps:
        took = duration(d.seconds) if d.seconds is not None else "not recorded yet"
        if d.experiment:
            lines.append(f"  {d.test}  experiment, {len(d.ids)} claim(s); committed run {d.ran}")
        else:
            lines.append(f"  {d.test}  {len(d.ids)} claim(s), last run {took}")
        lines += [f"      {cid}" for cid in d.ids]
    took = duration(expected_seconds(deps))
    lines.append(f"Re-verify them all (about {took} by their recorded run times, in one process): {command(deps)}")
    if n_exp:
        lines.append("  then commit results/experiments-cpu.json and results/experiment-outputs/ with the change")
    return lines


def changed_since(commit: str, files: list[Path]) -> list[str]:
    """Which of `files` differ from `commit` in the working tree (git), relative paths; [] where git cannot say."""
    base = commit.split("+", 1)[0]
    if not base or base == "unknown":
        return []
    rels = [p.relative_to(claims.ROOT).as_posix() for p in files if p.is_relative_to(claims.ROOT)]
    try:
        if commit.endswith("+dirty"):  # run on uncommitted code: compare with the commit that committed the record
            later = subprocess.run(
                ["git", "log", "--reverse", "--format=%H", f"{base}..HEAD", "--", "results/experiments-cpu.json"],
                cwd=claims.ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            base = later[0] if later else base
        out = subprocess.run(
            ["git", "diff", "--name-only", base, "--", *rels],
            cwd=claims.ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return sorted(set(out.split()))


def edited_files(test_file: Path, record: Any) -> list[str]:
    """The covered files edited since an experiment's committed record ran (its `ran.commit`)."""
    ran = getattr(record, "ran", None) or {}
    test_file = test_file.resolve()
    files = [*claims.code_files(test_file), *claims.conftest_files(test_file), claims.LOCK, claims.FACTS]
    return changed_since(str(ran.get("commit", "")), [p for p in files if covers(test_file, p)])


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: nox -s deps -- FILE [FILE ...]   (a snippet, a test, a conftest, a data file)")
        return 2
    for i, name in enumerate(argv):
        if i:
            print()
        print("\n".join(report(Path(name))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
