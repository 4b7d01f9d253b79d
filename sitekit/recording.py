"""What a run writes and says: each claim's record (with the contract's margin and experiment checks), the
committed experiment records, and the report printed after the summary. The plugin's hooks call these."""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sitekit import call_log, experiments
from sitekit import claims as store
from sitekit import margins as margins_mod
from sitekit.claim_handle import Claim
from sitekit.claim_marker import NOT_RUN_CUDA, _describe, _marker
from sitekit.provenance import _cpu_model, _provenance_kept, provenance
from sitekit.selection import _REUSE, _SECONDS_KEY, _STALE, SEED_SET, _committed, fresh_reason, reuse_summary

_RECORDS: dict[str, dict[str, Any]] = {}
_CALLS: Counter[tuple[str, str]] = Counter()
_COMPUTE: Counter[str] = Counter()  # seconds spent in each snippet's measure() (or compute_timer)
_FROM_WORKERS: list[dict[str, Any]] = []
_FILE_SECONDS: Counter[str] = Counter()
_LINES: list[tuple[str, dict[str, bool]]] = []
_REPRODUCED: dict[str, dict[str, Any]] = {}  # experiments this fresh run reproduced: where and when


def _experiment_problem(item: pytest.Item, handle: Claim, cid: str) -> tuple[str | None, dict[str, Any]]:
    """A fresh run of an experiment on the tuned seeds must reproduce its committed record (sitekit.experiments).

    Returns the problem (or None) and the fields the record adds: `ran` (the committed run it stands beside)
    and `reproduced` (this run) when it matched. `nox -s experiments` writes the record instead; a trial run
    (not fresh) or another seed set has nothing to compare with.
    """
    config = item.config
    if config.getoption("--experiments"):
        return None, {}
    if fresh_reason(config) is None or config.stash[SEED_SET] != "tuned":
        return None, {}
    device = str(config.getoption("--device"))
    test_file = Path(item.path)
    committed = _committed(config).get(cid)
    if committed is None:
        return experiments.missing_message(item.nodeid, test_file, "none is committed"), {}
    if committed.status != "passed":
        return experiments.missing_message(item.nodeid, test_file, f"the committed one {committed.status}"), {}
    if committed.hash != store.code_hash(test_file, device):
        why = store.rerun_reason(test_file, [cid], {cid: committed}, device) or store.CODE
        return experiments.missing_message(item.nodeid, test_file, f"the committed one is stale: {why}"), {}
    tolerance = float(_marker(item).kwargs["tolerance"])  # type: ignore[union-attr]
    problems = experiments.drift([m.as_record() for m in handle.margins], committed, tolerance)
    if problems:
        return experiments.drift_message(item.nodeid, problems, tolerance), {"ran": committed.ran}
    import torch

    reproduced = experiments.where(_cpu_model(), torch.get_num_threads())
    reproduced["published"] = os.environ.get("SITE_PUBLISH") == "1"  # CI's build (.ci/run), or a rehearsal of it
    _REPRODUCED[cid] = reproduced
    return None, {"ran": committed.ran, "reproduced": reproduced}


def asserted_keys(statement: str, handle: Claim) -> list[str]:
    """The recorded values the check asserted: each of their numbers was checked through sitekit.margins
    (a value or a threshold) or is stated by the sentence, which the binder holds to its printed precision.
    A page shows any other recorded value as a reading of the run, not as an asserted result."""
    from sitekit.claim_numbers import recorded_numbers, sentence_quantities

    checked = {v for m in handle.margins for v in (*m.values, m.threshold)}
    stated = list(sentence_quantities(statement))
    out = []
    for key, value in handle.values.items():
        numbers = list(recorded_numbers(value))
        if numbers and all(v in checked or any(q.match(v) for q in stated) for v in numbers):
            out.append(key)
    return out


def _record(item: pytest.Item, status: str, device: str, torch_version: str) -> dict[str, Any]:
    """The parts of a claim's record that come from its marker and its files (the run adds what it saw)."""
    cid, statement, page = _describe(item)
    mark = _marker(item)
    assert mark is not None
    test_file = Path(item.path)
    return {
        "id": cid,
        "statement": statement,
        "page": page,
        "snippet": str(store.snippet_for_test(test_file).relative_to(store.ROOT)),
        "test": f"{test_file.relative_to(store.ROOT)}::{item.name}",
        "values": {},
        "status": status,
        "device": device,
        "torch": torch_version,
        "hash": store.code_hash(test_file, device, torch_version),
        "recorded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "duration_s": 0.0,
        "counterfactuals": [],
        "cpu_only": mark.kwargs.get("cpu_only"),
        "cuda_only": mark.kwargs.get("cuda_only"),
        "device_independent": mark.kwargs.get("device_independent"),
        "exact": mark.kwargs.get("exact"),
        "identity": mark.kwargs.get("identity"),
        "experiment": mark.kwargs.get("experiment"),
        "tolerance": mark.kwargs.get("tolerance"),
        "margins": [],
        "missed": [],
        "seed_set": item.config.stash[SEED_SET],
        "error": None,
        "reused": False,
        "fingerprint": store.fingerprint(test_file, device, torch_version),
    }


def _record_not_run(item: pytest.Item) -> None:
    """The CPU record of a CUDA-only claim: what it would assert, and that no GPU has run it here."""
    cid = _describe(item)[0]
    _RECORDS[cid] = _record(item, NOT_RUN_CUDA, "cpu", store.torch_version())


def _margin_problem(item: pytest.Item, handle: Claim) -> str | None:
    """Why a passing claim's margins (or its device) do not meet the contract, or None (see sitekit.margins)."""
    where = item.nodeid
    mark = _marker(item)
    assert mark is not None
    if "device" not in getattr(item, "fixturenames", ()) and not mark.kwargs.get("device_independent"):
        return (
            f"{where}: the claim never asks for the `device` fixture, so its outcome cannot depend on the device; "
            'mark it device_independent="<why>" (a GPU run must not count it as verified there), or run its '
            "measurement on `device`"
        )
    if mark.kwargs.get("exact") or mark.kwargs.get("identity"):
        return None
    if not handle.margins:
        return (
            f"{where}: its check reports no margin. Assert thresholds through sitekit.margins (above, below, "
            "between) inside the check so the record says how far the values cleared them, or, if it is an "
            'identity, shape or bit-for-bit equality, mark the claim exact="<what it asserts exactly>"'
        )
    thin = [m for m in handle.margins if not m.clears_floor]
    if thin:
        lines = "; ".join(
            f"{m.what}: worst {m.worst:.4g} against {m.op} {m.threshold:.4g} ({margins_mod.describe(m.as_record())})"
            for m in thin
        )
        return (
            f"{where}: a statistical claim must clear each threshold by {margins_mod.FLOOR_RELATIVE:.0%} of it or "
            f"by {margins_mod.FLOOR_SPREADS:g} seed-to-seed spreads on its worst value; {lines}. Find better "
            "evidence (more seeds, a longer run, a paired comparison) or a truer sentence; never move the "
            "threshold to the value seen (CONTRIBUTING, 'Margins')"
        )
    return None


def _save_experiments(device: str) -> None:
    """`nox -s experiments`: this run's experiment records go to the committed file, with where they ran."""
    import torch

    wall: Counter[str] = Counter()
    for r in _RECORDS.values():
        wall[r["test"].split("::")[0]] += float(r["duration_s"])
    here = experiments.where(_cpu_model(), torch.get_num_threads())
    out = {}
    for cid, r in _RECORDS.items():  # every claim of an experiment file (--experiments collected only those)
        if r["status"] == NOT_RUN_CUDA:
            continue
        test = r["test"].split("::")[0]
        ran = here | {"torch": torch.__version__, "wall_s": round(wall[test], 1), "file": test}
        out[cid] = r | {"ran": ran, "reproduced": None, "reused": False}
    if out:
        experiments.save(device, out)
        for test in {r["test"].split("::")[0] for r in out.values() if r["status"] == "passed"}:
            experiments.keep_outputs(test)


def finish(session: pytest.Session) -> None:
    """End of the run: write the records (a worker hands them to the controller), then report once."""
    config = session.config
    device = str(config.getoption("--device"))
    record = bool(_RECORDS) and not config.getoption("--no-record")
    if record and config.getoption("--experiments"):
        _save_experiments(device)
        for r in _RECORDS.values():
            r["ran"] = experiments.load_raw(device).get(r["id"], {}).get("ran")
    if record and _REPRODUCED:
        experiments.mark_reproduced(device, dict(_REPRODUCED))
    path = store.merge(device, dict(_RECORDS), provenance(device, config.stash[SEED_SET])) if record else None
    if record:  # the calls each page's notebook replays, beside the records they produced
        passed = {r["test"].split("::")[0] for r in _RECORDS.values() if r["status"] == "passed"}
        call_log.write(device, keep_experiments=passed if config.getoption("--experiments") else None)
    if hasattr(config, "workerinput"):  # an xdist worker: hand the controller what it saw
        config.workeroutput["sitekit"] = {
            "calls": [[module, args, n] for (module, args), n in _CALLS.items()],
            "compute": dict(_COMPUTE),
            "recorded": {cid: r["status"] for cid, r in _RECORDS.items()} if record else {},
            "margins": _thinnest_by_claim(),
            "reuse": dict(_REUSE) | ({"stale": dict(_STALE)} if _STALE else {}),
        }
        return
    calls, compute = Counter(_CALLS), Counter(_COMPUTE)
    recorded = {cid: r["status"] for cid, r in _RECORDS.items()} if record else {}
    reuse = dict(_REUSE) | ({"stale": dict(_STALE)} if _STALE else {})
    thinnest = _thinnest_by_claim()
    for out in _FROM_WORKERS:
        calls.update({(module, args): n for module, args, n in out["calls"]})
        compute.update(out["compute"])
        recorded.update(out["recorded"])
        thinnest.update(out.get("margins", {}))
        reuse = reuse or out["reuse"]
    _report(session, calls, compute, recorded, reuse, path)
    _report_margins(thinnest, config.stash[SEED_SET])


def _thinnest_by_claim() -> dict[str, dict[str, Any]]:
    """Each statistical claim run here: its thinnest margin (exact claims need none)."""
    out = {}
    for cid, r in _RECORDS.items():
        m = margins_mod.thinnest(r.get("margins") or [])
        if m is not None and not r.get("exact") and not r.get("identity"):
            out[cid] = m
    return out


def _report_margins(thinnest: dict[str, dict[str, Any]], seed_set: str, count: int = 10) -> None:
    """The run's ten thinnest margins, printed after the summary (CONTRIBUTING, 'Margins')."""
    if not thinnest:
        return

    ranked = sorted(thinnest.items(), key=lambda kv: margins_mod.relative(kv[1]))[:count]
    _LINES.append((f"thinnest margins of {len(thinnest)} statistical claims (seed set {seed_set}):", {}))
    for cid, m in ranked:
        line = f"  {100 * margins_mod.relative(m):8.1f} %  {cid}: {m['what']} {m['op']} {m['threshold']:.4g}"
        line += f", worst {m['worst']:.4g}"
        line += f", {m['spreads']:.3g} spreads" if isinstance(m.get("spreads"), float) else ""
        _LINES.append((line, {}))


def _report(
    session: pytest.Session,
    calls: Counter[tuple[str, str]],
    compute: Counter[str],
    recorded: dict[str, str],
    reuse: dict[str, Any],
    path: Path | None,
) -> None:
    """Printed once per run (by the controller under xdist): repeats, compute, reuse, what was recorded."""
    config = session.config

    def say(line: str, **markup: bool) -> None:
        _LINES.append((line, markup))  # printed in the terminal summary, after the progress line

    repeated = {key: n for key, n in calls.items() if n > 1}
    for (module, args), n in sorted(repeated.items()):
        say(
            f"ERROR {module}.measure{args} ran {n} times in one test run: share one result between the claims "
            "with a module-scoped fixture (an experiment runs once per build)",
            red=True,
        )
    if repeated:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if compute:
        top = ", ".join(f"{name.removeprefix('snippets.')} {t:.1f}" for name, t in compute.most_common(4))
        say(f"snippet compute: {sum(compute.values()):.1f} s (largest: {top})")
    if reuse:
        for line in reuse_summary(reuse):
            say(line)
        files = reuse.get("files", {})
        ids = [cid for info in files.values() for cid in info["ids"]]
        if ids and not config.getoption("--no-record"):
            committed = [cid for info in files.values() if info.get("committed") for cid in info["ids"]]
            if committed:  # a newcomer's build shows the committed experiment records
                raw = experiments.load_raw(reuse["device"])
                kept = _provenance_kept(reuse["device"])
                store.merge(reuse["device"], {cid: raw[cid] for cid in committed}, kept)
            store.mark_reused(reuse["device"], ids)
        if ids and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            session.exitstatus = pytest.ExitCode.OK  # everything selected was reused: nothing to run
    if recorded:
        failed = sum(status not in ("passed", NOT_RUN_CUDA) for status in recorded.values())
        cuda = sum(status == NOT_RUN_CUDA for status in recorded.values())
        where = path or store.results_path(str(config.getoption("--device")))
        shown = where.relative_to(store.ROOT) if where.is_relative_to(store.ROOT) else where
        also = f", {cuda} CUDA-only claims recorded as not run" if cuda else ""
        say(f"recorded {len(recorded)} claims ({failed} not passing{also}) in {shown}")
    cache = getattr(config, "cache", None)
    if cache is not None and _FILE_SECONDS:
        cache.set(_SECONDS_KEY, {**cache.get(_SECONDS_KEY, {}), **{k: round(v, 2) for k, v in _FILE_SECONDS.items()}})
