"""Does the suite kill the obvious bugs? Each mutant edits one snippet; count the claims that then fail.

    .nox/site/bin/python scripts/mutants.py                 # every mutant -> results/mutants-cpu.json
    .nox/site/bin/python scripts/mutants.py post-norm       # only the named ones (the record is not written)

A mutant is an exact edit of one snippet: the old text must occur there exactly once, else the script
stops (a snippet was edited: update the mutant). For each mutant, a scratch copy of the working tree
(tracked and untracked, not ignored, files; .nox linked to the shared environment) gets the current CPU
records (results/cpu.json) and the edit, and the claims run as `nox -s tests` runs them: with --reuse, so
only the claim files whose fingerprint the edit changed run again, on every core. A claim that then
fails or errors is a kill (a file that does not even collect fails all its claims). A first run without
any edit checks that nothing re-runs and nothing fails, so that every failure below is the mutant's.

Every listing a page includes has at least one mutant (tests/contract/test_mutants.py checks that each
edit applies inside its listing's section). Kills are counted apart by kind:

- `check`: a claim's own check failed on the mutant (what the mutant is there to show);
- `stale`: the pipeline's staleness guard refused a committed benchmark sweep that hashes the edited
  snippet (the mutant was caught, but not by a claim's check);
- `diagram`: a diagram's contract (tests/contract/test_figures.py) found the listing no longer matches
  the diagram drawn from it.

A mutant that no claim's own check kills is reported as a survivor: its listing's claims do not see
that bug. Not run by CI (minutes per mutant); run it after changing a core snippet or a claim's check.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "results" / "mutants-cpu.json"


@dataclass(frozen=True)
class Mutant:
    """One bug, as an exact edit of one file."""

    name: str
    description: str
    file: str
    old: str
    new: str
    listing: str = ""  # the section the edit is inside ("block" for `# --8<-- [start:block]`)


MUTANTS = (
    Mutant(
        "remove-shortcut",
        "the residual block returns F(x): its identity shortcut is gone",
        "snippets/residual_block/identity_shortcut.py",
        "return self.shortcut(x) + self.branch(x)  # (N, d)",
        "return self.branch(x)  # (N, d)",
        listing="block",
    ),
    Mutant(
        "remove-shortcut-transformer",
        "the transformer block's attention update replaces the stream instead of adding to it",
        "snippets/encyclopedia/transformer_block.py",
        "x = x + self.attn(self.norm1(x))  # (B, T, d)",
        "x = self.attn(self.norm1(x))  # (B, T, d)",
        listing="prenorm",
    ),
    Mutant(
        "post-norm",
        "the pre-norm block normalises after the addition (post-norm placement)",
        "snippets/residual_stream/prenorm.py",
        "return self.shortcut(x) + self.branch(self.norm(x))  # (N, d)",
        "return self.norm(self.shortcut(x) + self.branch(x))  # (N, d)",
        listing="blocks",
    ),
    Mutant(
        "post-norm-transformer",
        "the pre-norm transformer block normalises after each addition",
        "snippets/encyclopedia/transformer_block.py",
        "x = x + self.attn(self.norm1(x))  # (B, T, d)\n        x = x + self.mlp(self.norm2(x))  # (B, T, d)",
        "x = self.norm1(x + self.attn(x))  # (B, T, d)\n        x = self.norm2(x + self.mlp(x))  # (B, T, d)",
        listing="prenorm",
    ),
    Mutant(
        "skip-zero-init",
        "zero_branch leaves the branch's last layer (W2 and bias, or BN's γ and β) as initialised",
        "snippets/residual_block/pre_activation.py",
        "    for p in block.branch[-1].parameters():\n        nn.init.zeros_(p)\n    return block",
        "    return block",
        listing="zero",
    ),
    Mutant(
        "skip-zero-init-rezero",
        "ReZero's α starts at 1 instead of 0",
        "snippets/initialisation/rezero.py",
        "self.alpha = nn.Parameter(torch.zeros(()))",
        "self.alpha = nn.Parameter(torch.ones(()))",
        listing="block",
    ),
    Mutant(
        "skip-zero-init-transformer",
        "zero_output_projections leaves the transformer's output projections as initialised",
        "snippets/encyclopedia/transformer_block.py",
        "        nn.init.zeros_(layer.weight)\n        nn.init.zeros_(layer.bias)\n",
        "        pass\n",
    ),
    Mutant(
        "drop-projection",
        "the block that changes width gets an identity shortcut instead of its projection",
        "snippets/residual_block/projection_shortcut.py",
        "self.shortcut = nn.Linear(d_in, d_out, bias=False)  # (N, d_out)",
        "self.shortcut = nn.Identity()  # (N, d_out)",
        listing="block",
    ),
    Mutant(
        "drop-projection-resnet",
        "the ResNets' bottleneck keeps an identity shortcut where the shape changes (no 1×1 projection)",
        "snippets/depth_width/resnet.py",
        "self.shortcut = nn.Identity() if same else projection",
        "self.shortcut = nn.Identity()",
        listing="bottleneck",
    ),
)


def claim_dirs(tree: Path) -> list[str]:
    """tests/<topic> beside snippets/<topic>: the claims (as the noxfile's claim_dirs)."""
    tests = tree / "tests"
    return sorted(f"tests/{d.name}" for d in tests.iterdir() if d.is_dir() and (tree / "snippets" / d.name).is_dir())


def scratch_tree(dest: Path) -> Path:
    """The working tree's files that git tracks or would track, the CPU records, and .nox linked."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    shutil.copy2(ROOT / "results" / "cpu.json", dest / "results" / "cpu.json")
    if (ROOT / "results" / "build").is_dir():  # published outputs some claims need to be reused
        shutil.copytree(ROOT / "results" / "build", dest / "results" / "build")
    (dest / ".nox").symlink_to((ROOT / ".nox").resolve())
    return dest


def apply(tree: Path, mutant: Mutant) -> None:
    """Make the edit, or stop when the old text is not in the file exactly once."""
    target = tree / mutant.file
    text = target.read_text(encoding="utf-8")
    found = text.count(mutant.old)
    if found != 1:
        raise SystemExit(
            f"mutants: {mutant.name}: the old text occurs {found} times in {mutant.file} (expected once); "
            "the snippet changed: update the mutant in scripts/mutants.py"
        )
    mutated = text.replace(mutant.old, mutant.new)
    try:
        compile(mutated, str(target), "exec")
    except SyntaxError as e:
        raise SystemExit(f"mutants: {mutant.name} makes {mutant.file} invalid Python ({e}): fix the edit") from e
    target.write_text(mutated, encoding="utf-8")


def outcomes(junit: Path) -> tuple[list[str], dict[str, str]]:
    """Test ids that ran, and those that failed or errored with the first line of why, from JUnit XML."""
    ran, failed = set(), {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module, name = case.get("classname", ""), case.get("name", "")
        # a collection error names the file or folder that failed to collect, not a test
        test_id = module.replace(".", "/") + f".py::{name}" if module else name.replace(".", "/")
        if case.find("skipped") is not None:
            continue
        ran.add(test_id)
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        if problem is not None:
            failed[test_id] = (
                (problem.get("message") or "").strip().splitlines()[0][:200] if problem.get("message") else ""
            )
    return sorted(ran), dict(sorted(failed.items()))


DIAGRAMS = "tests/contract/test_figures.py::test_every_diagram_matches_the_module_it_depicts"


def run_claims(tree: Path, log: Path) -> dict[str, Any]:
    """The claims with reuse, on every core, as `nox -s tests` runs them; what ran and what failed."""
    junit = tree / "junit.xml"
    workers = os.environ.get("SITE_WORKERS", "auto")
    parallel = [] if workers == "0" else ["-n", workers, "--dist", "loadfile"]
    cmd = [
        sys.executable,
        *("-m", "pytest", "--device", "cpu", "--reuse", *parallel, "-q", "-p", "no:cacheprovider"),
        *("--continue-on-collection-errors", f"--junitxml={junit}", *claim_dirs(tree), DIAGRAMS),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "SITE_FRESH", "SITE_PUBLISH")}
    before = os.times()
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
    after = os.times()
    log.write_text(out.stdout + out.stderr, encoding="utf-8")
    if not junit.is_file():
        raise SystemExit(f"mutants: pytest wrote no report ({out.returncode}); see {log}")
    ran, failed = outcomes(junit)
    claims = {
        c["test"] for c in json.loads((ROOT / "results" / "cpu.json").read_text(encoding="utf-8"))["claims"].values()
    }
    for where, why in list(failed.items()):  # a file or folder that did not collect: each of its claims failed
        for test_id in claims:
            if "::" not in where and (test_id.startswith(where + "/") or test_id.startswith(where + ".py::")):
                failed.setdefault(test_id, why)
                ran.append(test_id)
    ran = sorted(set(ran))
    return {
        "returncode": out.returncode,
        "ran": [t for t in ran if t in claims],
        "failed": {t: why for t, why in failed.items() if t in claims},
        "other_failed": {t: why for t, why in failed.items() if t not in claims},  # helpers' own tests
        "cpu_seconds": round(
            after.children_user + after.children_system - before.children_user - before.children_system
        ),
        "wall_seconds": round(time.perf_counter() - start),
    }


def try_mutant(mutant: Mutant | None, logs: Path) -> dict[str, Any]:
    """One scratch tree, one edit (None: no edit), one run of the claims."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        tree = scratch_tree(Path(tmp))
        if mutant is not None:
            apply(tree, mutant)
        name = mutant.name if mutant else "none"
        return {"name": name, **run_claims(tree, logs / f"{name}.log")}


def kills(run: dict[str, Any]) -> dict[str, int]:
    """A run's kills by kind: a claim's own check, the staleness guard, a diagram's contract."""
    stale = sum("(stale)" in why for why in run["failed"].values())
    diagram = sum(t.startswith(DIAGRAMS.split("::")[0]) for t in run["other_failed"])
    return {"check": len(run["failed"]) - stale, "stale": stale, "diagram": diagram}


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'mutant':<34} {'re-run':>6} {'check':>5} {'stale':>5} {'diag':>4}  listing", "-" * 100]
    for r in rows:
        k = r["kills"]
        counts = f"{len(r['claims_rerun']):>6} {k['check']:>5} {k['stale']:>5} {k['diagram']:>4}"
        lines.append(f"{r['name']:<34} {counts}  {r['file']}:{r['listing']}")
    survivors = [r["name"] for r in rows if not r["kills"]["check"]]
    lines.append(f"{len(rows) - len(survivors)} of {len(rows)} mutants killed by a claim's own check")
    if survivors:
        lines.append(f"survivors (no claim's check sees the bug): {', '.join(survivors)}")
    return "\n".join(lines)


def main(names: list[str]) -> None:
    if not (ROOT / "results" / "cpu.json").is_file():
        raise SystemExit("mutants: results/cpu.json is missing: run `nox -s tests` first (the baseline)")
    unknown = set(names) - {m.name for m in MUTANTS}
    if unknown:
        raise SystemExit(f"mutants: no mutant named {sorted(unknown)}; known: {[m.name for m in MUTANTS]}")
    chosen = [m for m in MUTANTS if not names or m.name in names]
    logs = Path(tempfile.mkdtemp(prefix="mutant-logs-"))
    print(f"logs in {logs}", flush=True)
    baseline = try_mutant(None, logs)
    if baseline["ran"] or baseline["failed"] or baseline["other_failed"]:
        raise SystemExit(
            f"mutants: without any edit {len(baseline['ran'])} claims re-ran and {len(baseline['failed'])} failed "
            f"({list(baseline['failed'])[:5]}): bring results/cpu.json up to date (`nox -s tests`) first"
        )
    rows = []
    for mutant in chosen:
        run = try_mutant(mutant, logs)
        rows.append(
            {
                "name": mutant.name,
                "description": mutant.description,
                "file": mutant.file,
                "listing": mutant.listing,
                "old": mutant.old,
                "new": mutant.new,
                "claims_rerun": run["ran"],
                "failing": run["failed"],
                "kills": kills(run),
                "other_tests_failing": run["other_failed"],
                "cpu_seconds": run["cpu_seconds"],
                "wall_seconds": run["wall_seconds"],
            }
        )
        print(f"{mutant.name}: {len(run['ran'])} re-run, kills {kills(run)}", flush=True)
    print(table(rows))
    if names:
        return  # a partial run does not replace the record
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    import torch

    record = {
        "schema": 1,
        "provenance": {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": commit.stdout.strip(),
            "torch": torch.__version__,
            "python": platform.python_version(),
            "load_average": round(os.getloadavg()[0], 1),
        },
        "summary": {
            "mutants": len(rows),
            "killed_by_a_check": sum(1 for r in rows if r["kills"]["check"]),
            "only_stale_or_diagram": [r["name"] for r in rows if not r["kills"]["check"] and any(r["kills"].values())],
            "survivors": [r["name"] for r in rows if not any(r["kills"].values())],
        },
        "mutants": rows,
    }
    RECORD.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RECORD.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
