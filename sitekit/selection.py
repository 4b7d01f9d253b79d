"""Which claims a run runs: reuse of records that stand, the experiment tier's selection and rotation, and the
order the xdist workers take the files in. The plugin's collection hooks call these; nothing here records."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sitekit import claims as store
from sitekit import experiments
from sitekit.claim_marker import _describe, _is_experiment, _marker

SEED_SET = pytest.StashKey[str]()  # the run's seed set (tuned, held-out or a base), set by pytest_configure


# Reuse and parallel runs. `nox -s tests` passes --reuse: a test file whose claims all passed on the
# same fingerprint is not run again; its claims are deselected (not reported as passes) and marked
# `reused` in the results file, which keeps the time they last ran. Under pytest-xdist each worker
# makes the same decision on the same files; the controller prints it once and marks the records.
_REUSE: dict[str, Any] = {}
_FROM_WORKERS: list[dict[str, Any]] = []
_FILE_SECONDS: Counter[str] = Counter()
_SECONDS_KEY = "sitekit/file-seconds"


def _worker_count(config: pytest.Config) -> int:
    """How many pytest-xdist workers share this run (0 outside a worker)."""
    workerinput = getattr(config, "workerinput", None)
    return int(workerinput.get("workercount", 1)) if workerinput is not None else 0


def fresh_reason(config: pytest.Config | None = None) -> str | None:
    """Why this run must not reuse records (a flag or the environment), or None."""
    if config is not None and config.getoption("--fresh"):
        return "--fresh"
    for var in ("SITE_FRESH", "SITE_PUBLISH"):
        if os.environ.get(var) == "1":
            return f"{var}=1"
    if os.environ.get("CI", "").lower() == "true":
        return "CI=true"
    return None


def _recorded(config: pytest.Config) -> dict[str, store.Claim]:
    """This run's device's records as they were when the run started (read once)."""
    if "recorded" not in _LOADED:
        _LOADED["recorded"] = store.load(str(config.getoption("--device")))[0]
    return _LOADED["recorded"]


_LOADED: dict[str, dict[str, store.Claim]] = {}


def _reuse_file(config: pytest.Config, path: Path, ids: list[str], experiment: bool = False) -> str | None:
    """Decide for one claim file: None when its records stand (noted for the report), else why it runs.

    An experiment file is decided on its committed record alone (sitekit.experiments): a build shows what
    was committed, and a stale one is noted in _STALE, so its claims fail with the command that refreshes it.
    """
    device = str(config.getoption("--device"))
    rel = path.resolve().relative_to(store.ROOT).as_posix()
    if experiment:
        if fresh_reason(config) is not None and not _rests(config, rel):
            return store.FRESH
        why = experiments.stale_reason(path, ids, device, seed_set=config.stash[SEED_SET])
        if why is None:
            committed = experiments.load(device)
            _REUSE.setdefault("files", {})[rel] = {
                "ids": ids,
                "ran": min(committed[cid].recorded_at for cid in ids),
                "committed": True,
            }
            return None
        _STALE[rel] = why
        return why
    recorded = _recorded(config)
    why = store.rerun_reason(
        path, ids, recorded, device, fresh=fresh_reason(config) is not None, seed_set=config.stash[SEED_SET]
    )
    if why is None:
        _REUSE.setdefault("files", {})[rel] = {
            "ids": ids,
            "ran": min(recorded[cid].recorded_at for cid in ids),
        }
    return why


_STALE: dict[str, str] = {}  # experiment files (relative path) whose committed record does not stand: why


def parse_slot(text: str, option: str) -> tuple[int, int]:
    """`I/K` -> (I, K); `none` (CI's run that carries no group of this kind: sitekit/rotations.py) -> (0, 0)."""
    if text == "none":
        return 0, 0
    try:
        index, k = (int(x) for x in text.split("/"))
        assert 0 <= index < k
    except (ValueError, AssertionError):
        raise pytest.UsageError(f"{option} {text!r}: write I/K with 0 <= I < K, e.g. 1/3, or none") from None
    return index, k


def _rests(config: pytest.Config, rel: str) -> bool:
    """With --experiment-rotation I/K (CI): whether experiment file `rel` rests on its committed record this run,
    because it is outside slot I and its record stands reproduced (sitekit.experiments.due). Decided once."""
    text = config.getoption("--experiment-rotation")
    if not text:
        return False
    if "rotation" not in _ROTATION:
        index, k = parse_slot(str(text), "--experiment-rotation")
        device = str(config.getoption("--device"))
        committed = _committed(config)
        files = sorted({c.test.split("::")[0] for c in committed.values()})
        slot = set(experiments.rotation(files, index, k, experiments.file_seconds(committed))) if k else set()
        due = experiments.due(device)
        _ROTATION["rotation"] = {
            "slot": f"{index}/{k}" if k else "none",
            "fresh": sorted(slot | set(due)),
            "due": due,
            "rests": sorted(set(files) - slot - set(due)),
        }
        _REUSE["experiment_rotation"] = _ROTATION["rotation"]
    return rel in _ROTATION["rotation"]["rests"]


_ROTATION: dict[str, dict[str, Any]] = {}


def ignore_file(collection_path: Path, config: pytest.Config) -> bool | None:
    """With --reuse, a claim file whose records all stand is not even imported (the fast path).

    Its claims are the ones recorded from it: any claim added, removed or edited changes the file,
    hence its fingerprint. Files named on the command line are collected and deselected instead.
    An experiment file stands on its committed record (sitekit.experiments).
    """
    if not config.getoption("--reuse") or not collection_path.name.startswith("test_"):
        return None
    if config.getoption("--experiments"):
        return None
    if collection_path.suffix != ".py" or not collection_path.is_relative_to(store.ROOT / "tests"):
        return None
    rel = collection_path.relative_to(store.ROOT).as_posix()
    committed = _committed(config)
    exp_ids = [cid for cid, c in committed.items() if c.test.split("::")[0] == rel]
    recorded = {cid: c for cid, c in _recorded(config).items() if c.test.split("::")[0] == rel}
    if exp_ids or any(c.experiment for c in recorded.values()):
        ids = exp_ids or list(recorded)
        return True if _reuse_file(config, collection_path, ids, experiment=True) is None else None
    ids = list(recorded)
    if ids and _reuse_file(config, collection_path, ids) is None:
        return True
    return None


def _committed(config: pytest.Config) -> dict[str, store.Claim]:
    """The committed experiment records for this run's device (read once)."""
    if "committed" not in _LOADED:
        try:
            _LOADED["committed"] = experiments.load(str(config.getoption("--device")))
        except ValueError as e:
            raise pytest.UsageError(str(e)) from None
    return _LOADED["committed"]


def _select_experiments(config: pytest.Config, items: list[pytest.Item]) -> None:
    """--experiments keeps only the experiments; --experiment-slot I/K keeps one rotation slot of them."""
    drop: list[pytest.Item] = []
    if config.getoption("--experiments"):  # the unit is the file: an experiment file's other claims come along
        files = {Path(item.path) for item in items if _is_experiment(item)}
        drop = [item for item in items if Path(item.path) not in files or _marker(item) is None]
    elif config.getoption("--experiment-slot"):
        text = str(config.getoption("--experiment-slot"))
        index, k = parse_slot(text, "--experiment-slot")
        files = sorted({Path(item.path).relative_to(store.ROOT).as_posix() for item in items if _is_experiment(item)})
        seconds = experiments.file_seconds(_committed(config))  # balanced on the committed wall times
        keep = set(experiments.rotation(files, index, k, seconds)) if k else set()
        drop = [
            item
            for item in items
            if _is_experiment(item) and Path(item.path).relative_to(store.ROOT).as_posix() not in keep
        ]
        slot = f"{index}/{k}" if k else "none"
        _REUSE["rotation"] = {"slot": slot, "ran": sorted(keep), "skipped": sorted(set(files) - keep)}
    if drop:
        config.hook.pytest_deselected(items=drop)
        gone = set(map(id, drop))
        items[:] = [item for item in items if id(item) not in gone]


def _reuse_passing_records(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--reuse") or config.getoption("--experiments"):
        return
    by_file: dict[Path, list[pytest.Item]] = {}
    for item in items:
        if _marker(item) is not None:
            by_file.setdefault(Path(item.path), []).append(item)
    reused: list[pytest.Item] = []
    reasons: Counter[str] = Counter()
    for path, claim_items in by_file.items():
        ids = [_describe(item)[0] for item in claim_items]
        experiment = any(_is_experiment(item) for item in claim_items)
        why = _reuse_file(config, path, ids, experiment=experiment)
        if why is None:
            reused += claim_items
        else:
            reasons[why] += len(ids)
    _REUSE.setdefault("files", {})
    _REUSE.update(reasons=dict(reasons), fresh=fresh_reason(config), device=str(config.getoption("--device")))
    if reused:
        config.hook.pytest_deselected(items=reused)
        gone = set(map(id, reused))
        items[:] = [item for item in items if id(item) not in gone]


def reuse_summary(reuse: dict[str, Any]) -> list[str]:
    """The lines a run prints about what it reused and what it ran again, and why."""
    files, reasons = reuse.get("files", {}), reuse.get("reasons", {})
    n_reused = sum(len(f["ids"]) for f in files.values())
    why = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
    if reuse.get("fresh") and store.FRESH in reasons:
        why = why.replace(store.FRESH, f"{store.FRESH} ({reuse['fresh']})")
    lines = [
        f"claims: {n_reused} reused from their last run (same fingerprint, passed), "
        f"{sum(reasons.values())} re-run" + (f": {why}" if why else "")
    ]
    for path, info in sorted(files.items()):
        kind = "experiment, committed record" if info.get("committed") else "last ran"
        lines.append(f"  reused {path}: {len(info['ids'])} claims, {kind} {info['ran']} (not run now)")
    if files:
        lines.append("  (nox -s tests -- --fresh, or SITE_FRESH=1, runs every claim again)")
    rotation = reuse.get("rotation")
    if rotation:
        lines.append(
            f"experiments in rotation group {rotation['slot']}: {len(rotation['ran'])} run, "
            f"{len(rotation['skipped'])} left to the other slots ({', '.join(rotation['skipped']) or 'none'})"
        )
    ci = reuse.get("experiment_rotation")
    if ci:
        lines.append(
            f"experiments (rotation group {ci['slot']}): {len(ci['fresh'])} files run fresh, {len(ci['rests'])} rest "
            "on committed records that CI reproduced"
        )
        for path, why in sorted(ci["due"].items()):
            lines.append(f"  fresh out of turn: {path} ({why})")
    lines += experiments.out_of_date_summary(reuse.get("stale", {}))  # once, however many claims it covers
    return lines


def _file_seconds(config: pytest.Config) -> dict[str, float]:
    """Seconds each test file took last time: this checkout's pytest cache, else recorded durations."""
    seconds: Counter[str] = Counter()
    recorded, _ = store.load(str(config.getoption("--device")))
    for c in recorded.values():
        seconds[c.test.split("::")[0]] += c.duration_s
    cache = getattr(config, "cache", None)
    if cache is not None:
        seconds.update(cache.get(_SECONDS_KEY, {}))  # measured wall time per file wins where known
    return dict(seconds)


def _longest_first(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order test files for xdist's file scheduler so that the long ones start first.

    The scheduler hands each worker two files, then one more whenever it frees up: give each worker
    one of the longest files plus one of the shortest, then the rest longest first.
    """
    seconds = _file_seconds(config)
    files = list(dict.fromkeys(item.nodeid.split("::")[0] for item in items))
    ranked = sorted(files, key=lambda f: -seconds.get(f, 0.0))
    n = _worker_count(config)
    head, tail = ranked[:n], ranked[n:]
    order = head + tail[-n:] + tail[:-n] if len(tail) > n else head + tail
    rank = {f: i for i, f in enumerate(order)}
    items.sort(key=lambda item: rank[item.nodeid.split("::")[0]])
