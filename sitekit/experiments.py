"""The experiment tier: claims whose measurement takes minutes keep a committed record.

A claim marked `experiment="<what it runs>", tolerance=<relative drift>` is an experiment. Its test file is
the unit, as for reuse (its claims share one fingerprint and their module fixtures). The rules:

- `nox -s experiments` runs every experiment fresh on the tuned seeds and writes its records, with where and
  when it ran (`ran`: date, CPU model, cores, torch, commit, the file's wall time), to
  `results/experiments-<device>.json`, which is committed.
- A build that is not fresh (`nox -s tests`, `nox -s docs` on a newcomer's clone) reuses a committed record
  whose fingerprint (code, conftest files, lock, torch, device, data) matches; it never runs the experiment.
  An experiment whose code changed since its committed record is *stale*: its claims fail without running,
  with the command that refreshes it, so the build stops.
- A fresh run (CI, `--fresh`) runs every experiment and compares it with its committed record: the record
  must exist for this code, and the median of every asserted margin must lie within the claim's tolerance
  of the committed median (|fresh - committed| <= tolerance x |committed|, or within `spreads_allowed(n)` of
  the larger of the two runs' seed-to-seed spreads where that is larger: another processor acts like new
  seeds). Otherwise the claim fails, so a committed record cannot drift from what the code produces. A run
  that reproduces it says so (`reproduced`: when, on what machine), and the committed file keeps the last reproduction.

Nothing here imports pytest: the plugin calls it, and so can anything else.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sitekit.claims import NEW, OUTPUTS, ROOT, SCHEMA, Claim, _test_exists, locked, rerun_reason

COMMAND = "nox -s experiments"


def path(device: str) -> Path:
    """results/experiments-cpu.json (always the repository's results/: it is committed, never redirected)."""
    return ROOT / "results" / f"experiments-{device}.json"


def load_raw(device: str) -> dict[str, dict[str, Any]]:
    """The committed experiment records for `device`, as stored (claim id -> record)."""
    p = path(device)
    if not p.is_file():
        return {}
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(
            f"{p.relative_to(ROOT)} is not valid JSON ({e}); restore it with `git checkout {p.relative_to(ROOT)}` "
            f"or rebuild it with `{COMMAND}`"
        ) from None
    return dict(data.get("claims", {}))


def load(device: str) -> dict[str, Claim]:
    """The committed experiment records as Claim objects."""
    return {cid: Claim(**entry) for cid, entry in load_raw(device).items()}


def save(device: str, records: dict[str, dict[str, Any]]) -> Path:
    """Merge experiment records into the committed file (under a lock: xdist workers each write theirs)."""
    p = path(device)
    with locked(p):
        # A record whose test function is gone (a renamed claim) leaves, as in results/<device>.json.
        claims = {cid: r for cid, r in load_raw(device).items() if _test_exists(r["test"])}
        claims.update(records)
        data = {"schema": SCHEMA, "claims": dict(sorted(claims.items()))}
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        tmp.replace(p)
    return p


def mark_reproduced(device: str, reproduced: dict[str, dict[str, Any]]) -> None:
    """Note in the committed file that a fresh run reproduced these records (values unchanged)."""
    p = path(device)
    if not reproduced or not p.is_file():
        return
    with locked(p):
        data = json.loads(p.read_text(encoding="utf-8"))
        for cid, info in reproduced.items():
            if cid in data.get("claims", {}):
                data["claims"][cid]["reproduced"] = info
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        tmp.replace(p)


def commit() -> str:
    """HEAD's short hash, with `+dirty` when tracked files other than the run's own records (results/) differ from
    it; `unknown` outside a git checkout. A fresh run rewrites results/ as it goes, so results/ says nothing about
    which code ran."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def where(cpu: str | None, threads: int) -> dict[str, Any]:
    """When and where a run happens: the part of `ran` and `reproduced` that is not a timing."""
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cpu": cpu or "unknown CPU",
        "cores": os.cpu_count() or 1,
        "threads": threads,
        "commit": commit(),
    }


OUTPUT_COPIES = ROOT / "results" / "experiment-outputs"  # committed: the files an experiment writes for the build


def keep_outputs(test: str) -> None:
    """`nox -s experiments`: copy the files this experiment writes for the build beside its committed record."""
    for out in OUTPUTS.get(test, ()):
        if (ROOT / out).is_file():
            OUTPUT_COPIES.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / out, OUTPUT_COPIES / Path(out).name)


def restore_outputs(test_file: Path) -> None:
    """A build that reuses an experiment puts back the files it wrote (a fresh clone has none)."""
    rel = test_file.resolve().relative_to(ROOT).as_posix()
    for out in OUTPUTS.get(rel, ()):
        kept = OUTPUT_COPIES / Path(out).name
        if not (ROOT / out).is_file() and kept.is_file():
            (ROOT / out).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(kept, ROOT / out)


def stale_reason(test_file: Path, ids: list[str], device: str, seed_set: str = "tuned") -> str | None:
    """None when every claim of an experiment file has a committed passing record for the code as it is now;
    otherwise why not (the reuse rules of sitekit.claims, applied to the committed records)."""
    restore_outputs(test_file)
    return rerun_reason(test_file, ids, load(device), device, fresh=False, seed_set=seed_set)


NOT_RUN_BY_A_BUILD = "a build does not run experiments"  # in every stale claim's error: the preview says "out of date"


def stale_message(test_file: Path, why: str) -> str:
    """The failure of each claim of a stale experiment: short, since it repeats per claim; the run's summary
    (`out_of_date_summary`) names the edited files once, with the one command for them all."""
    rel = test_file.resolve().relative_to(ROOT).as_posix()
    state = "has no committed record yet" if why == NEW else f"is out of date ({why})"
    return (
        f"experiment {rel} {state}: {NOT_RUN_BY_A_BUILD}. The summary at the end of the run names the edited "
        f"file and the one command that re-verifies every out-of-date experiment"
    )


def is_out_of_date(error: str | None) -> bool:
    """Whether a failed record failed only because its experiment's committed record is of other code."""
    return bool(error) and NOT_RUN_BY_A_BUILD in str(error)


def out_of_date_summary(stale: dict[str, str]) -> list[str]:
    """Once per run: which edited files put which experiments out of date, and the one command for them all."""
    if not stale:
        return []
    from sitekit import deps

    committed = load("cpu")
    by_file: dict[str, list[Claim]] = {}
    for c in committed.values():
        by_file.setdefault(c.test.split("::")[0], []).append(c)
    edited: set[str] = set()
    seconds = 0.0
    n_claims = 0
    for path in stale:
        records = by_file.get(path, [])
        n_claims += len(records) or len(deps.claim_ids(ROOT / path))
        if records:
            edited.update(deps.edited_files(ROOT / path, records[0]))
            wall = (records[0].ran or {}).get("wall_s")
            seconds += wall if isinstance(wall, int | float) else 0.0
    reasons = ", ".join(sorted(set(stale.values())))
    because = f"{', '.join(sorted(edited))} changed since their committed runs" if edited else reasons
    took = f"about {deps.duration(seconds)} by their committed run times" if seconds else "minutes"
    return [
        f"OUT OF DATE: {n_claims} claim(s) in {len(stale)} experiment file(s), because {because}:",
        f"  {', '.join(sorted(stale))}",
        f"  re-verify them all ({took}): `{COMMAND} -- {' '.join(sorted(stale))}`, then commit "
        "results/experiments-cpu.json with the change (`nox -s deps -- FILE` says beforehand what an edit costs)",
    ]


def ran_text(record: Claim) -> str:
    """`2026-12-01 on AMD EPYC (2 cores), 312 s` for a committed record, from its `ran`."""
    ran = record.ran or {}
    if not ran:
        return "at an unknown time"
    wall = f", {ran['wall_s']:.0f} s" if isinstance(ran.get("wall_s"), (int, float)) else ""
    return f"{str(ran.get('date', '?'))[:10]} on {ran.get('cpu', '?')} ({ran.get('cores', '?')} cores){wall}"


# Another processor rounds differently, and a trained network amplifies rounding much as a new seed would. So a
# fresh run on another machine is, in effect, the experiment on new seeds: its median may differ from the committed
# one by the claim's tolerance (relative), or by what two draws of the same seeds' spread allow, whichever is larger.
# With few seeds that is a lot: two medians of 3 normal draws differ by more than 2 of the committed run's standard
# deviations 16 % of the time (2 of the larger of the two runs' deviations: 5 %), so a fixed "2 spreads" failed CI
# on processors that were merely different. SPREADS_ALLOWED[n] is how many of the larger of the two runs' spreads
# (standard deviations over a margin's n values) two such medians exceed at most 0.1 % of the time; the contract
# test re-simulates it (tests/contract/test_experiments.py). Beyond the table, DEFAULT_SPREADS.
SPREADS_ALLOWED = {2: 25.0, 3: 6.0, 4: 4.0, 5: 3.0, 6: 2.5, 7: 2.5}
DEFAULT_SPREADS = 2.0
FALSE_ALARMS = 0.001  # what SPREADS_ALLOWED is built for: the chance two runs of the same experiment disagree


def spreads_allowed(n: int) -> float:
    """How many seed-to-seed spreads two medians of n draws of the same experiment may differ by (see above)."""
    return SPREADS_ALLOWED.get(int(n), DEFAULT_SPREADS if n > max(SPREADS_ALLOWED) else max(SPREADS_ALLOWED.values()))


def drift(fresh_margins: list[dict[str, Any]], committed: Claim, tolerance: float) -> list[str]:
    """Each asserted margin whose fresh median lies outside `tolerance` (relative) of the committed median, and
    outside `spreads_allowed(n)` of the larger of the two runs' seed-to-seed spreads.

    Margins are matched by what they measure (`what`); a margin the committed record lacks, or one it has
    that the fresh run lacks, is a difference too (the check changed without a new record)."""
    before = {m["what"]: m for m in committed.margins or []}
    now = {m["what"]: m for m in fresh_margins}
    problems = []
    for what in sorted(set(before) | set(now)):
        if what not in before or what not in now:
            side = "the committed record" if what not in before else "the fresh run"
            problems.append(f"{what!r}: {side} has no such margin")
            continue
        old, new = float(before[what]["median"]), float(now[what]["median"])
        spreads = [float(m["spread"]) for m in (before[what], now[what]) if isinstance(m.get("spread"), (int, float))]
        k = spreads_allowed(int(before[what].get("n") or now[what].get("n") or 0))
        noise = k * max(spreads) if spreads else 0.0
        allowed = max(tolerance * abs(old), noise)
        if abs(new - old) > allowed:
            problems.append(
                f"{what!r}: fresh median {new:.4g}, committed {old:.4g} (ran {ran_text(committed)}); "
                f"|difference| {abs(new - old):.3g} > {tolerance:g} x {abs(old):.4g}"
                + (f" and > {k:g} seed-to-seed spreads ({noise:.3g}, the larger run's)" if noise else "")
            )
    return problems


def drift_message(nodeid: str, problems: list[str], tolerance: float) -> str:
    return (
        f"{nodeid}: the fresh run does not reproduce the committed experiment record within its tolerance "
        f"({tolerance:.0%}): " + "; ".join(problems) + f". Find why (the code, the seeds, the processor), then run "
        f"`{COMMAND}` and commit the record, or state a tolerance the evidence supports"
    )


def missing_message(nodeid: str, test_file: Path, why: str) -> str:
    rel = test_file.resolve().relative_to(ROOT).as_posix()
    return (
        f"{nodeid}: an experiment needs a committed record of the code that ran ({why}); run `{COMMAND} -- {rel}` "
        "and commit results/experiments-cpu.json, so that a newcomer's build shows what this code produces"
    )


def slot(count: int, k: int) -> int:
    """Which of `k` rotation slots a run with `count` commits behind it takes: the arithmetic the noxfile's
    `_rotation_slot` repeats for the notebooks' replays (the noxfile imports nothing of sitekit)."""
    return count % k


def rotation(files: list[str], index: int, k: int, seconds: dict[str, float] | None = None) -> list[str]:
    """The experiment files in slot `index` of `k`, balanced by each file's committed wall time.

    Longest first (then by name), each file goes to the slot with the least time so far, then the fewest
    files, then the lowest index: every file lands in exactly one slot, and no slot carries far more than
    its share (with no times known this is every k-th file of the sorted list, starting at `index`).
    """
    seconds = seconds or {}
    slots: list[list[str]] = [[] for _ in range(k)]
    load = [0.0] * k
    for f in sorted(files, key=lambda f: (-float(seconds.get(f, 0.0)), f)):
        i = min(range(k), key=lambda i: (load[i], len(slots[i]), i))
        slots[i].append(f)
        load[i] += float(seconds.get(f, 0.0))
    return sorted(slots[index])


def file_seconds(records: dict[str, Claim]) -> dict[str, float]:
    """Each experiment file's wall time in its committed run (the rotation balances on it)."""
    out: dict[str, float] = {}
    for r in records.values():
        ran = r.ran
        if isinstance(ran, dict) and isinstance(ran.get("wall_s"), (int, float)) and ran.get("file"):
            out[ran["file"]] = float(ran["wall_s"])
    return out


# CI's experiments: what a submission changed, fresh; the rest on a rotation (noxfile.py, `--experiment-rotation`).
# A committed record "rests" when CI's own procedure (.ci/run: SITE_PUBLISH=1, a clean clone) reproduced it and the
# record has not changed since: its `reproduced` says `published`, names a clean commit (no `+dirty`) that is in
# this history, and at that commit the file held the same record (same code hash, same values, same run). A record
# that `nox -s experiments` wrote has no reproduction (`reproduced: null`), and one edited since its reproduction
# differs from the record at that commit, so neither can rest: the CI run that lands it runs it fresh. A rehearsal
# of CI on a clean clone writes its reproductions into the clone's results/experiments-cpu.json; committing them
# lets later runs rest on them.
_SAME = ("hash", "values", "ran", "status")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)


def _records_at(commit_: str, device: str, root: Path) -> dict[str, dict[str, Any]] | None:
    """The committed experiment records as they stood at `commit_` (None when git cannot show them)."""
    key = (commit_, device, str(root))
    if key not in _AT:
        shown = _git(root, "show", f"{commit_}:results/experiments-{device}.json")
        try:
            _AT[key] = dict(json.loads(shown.stdout).get("claims", {})) if shown.returncode == 0 else None
        except json.JSONDecodeError:
            _AT[key] = None
    return _AT[key]


_AT: dict[tuple[str, str, str], dict[str, dict[str, Any]] | None] = {}


def unreproduced(cid: str, record: dict[str, Any], device: str, root: Path = ROOT) -> str | None:
    """None when the committed record `cid` rests on a reproduction (see above); otherwise why it does not."""
    again = record.get("reproduced")
    if not isinstance(again, dict) or not again.get("commit"):
        return "no fresh run has reproduced it since it was recorded"
    if again.get("published") is not True:
        return "its reproduction was not a publishing build's (SITE_PUBLISH=1, as .ci/run runs)"
    at = str(again["commit"])
    if not at or at.endswith("+dirty") or at == "unknown":
        return f"its reproduction ran on an uncommitted tree ({at})"
    if _git(root, "merge-base", "--is-ancestor", at, "HEAD").returncode != 0:
        return f"its reproduction's commit {at} is not in this history"
    then = (_records_at(at, device, root) or {}).get(cid)
    if then is None or any(then.get(k) != record.get(k) for k in _SAME):
        return f"the record changed after commit {at} reproduced it"
    return None


def due(device: str, root: Path = ROOT, records: dict[str, dict[str, Any]] | None = None) -> dict[str, str]:
    """Experiment files with a committed record that cannot rest on a reproduction: file -> why (one reason)."""
    out: dict[str, str] = {}
    for cid, record in sorted((load_raw(device) if records is None else records).items()):
        file = record.get("test", "").split("::")[0]
        if not record.get("experiment"):  # an identity or exact claim of an experiment file comes with its file
            continue
        if file and file not in out:
            why = unreproduced(cid, record, device, root)
            if why is not None:
                out[file] = f"{cid}: {why}"
    return out


def rests(cid: str, record: dict[str, Any], device: str, due_files: dict[str, str] | None = None) -> bool:
    """Whether a reused record may stand in a published build: it is the committed record of a claim in an
    experiment file that rests (no claim of the file is due), unchanged (the claims of a file share its fate).
    Pass `due_files` (due(device)) when asking about many records."""
    committed = load_raw(device).get(cid)
    if committed is None or any(committed.get(k) != record.get(k) for k in _SAME):
        return False
    return record.get("test", "").split("::")[0] not in (due(device) if due_files is None else due_files)
