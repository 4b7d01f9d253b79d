"""pytest side of the pipeline: the `claim` marker, the `claim` and `device` fixtures, recording.

A claim test looks like this::

    @pytest.mark.claim("The + node hands the upstream gradient to both operands unchanged.",
                       page="module/gradient-highway.md")
    def test_add_node_copies_upstream_gradient(claim, device):
        r = add_node.measure(device, seed=0)
        claim.check(check, r.measured)             # asserts the claim
        claim.rejects(check, r.mul_node, because="a * node scales the gradient")  # measured too
        claim.record(grad_a=r.grad_a)

Its id is the test name without `test_`; its snippet is fixed by the file's path; every run writes
`results/<device>.json` with the measured values, status and a hash of the code behind it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sitekit import claims as store
from sitekit import experiments, runs
from sitekit import margins as margins_mod
from sitekit.claim_handle import Claim
from sitekit.claim_numbers import unbound
from sitekit.provenance import _cpu_model, _provenance_kept, provenance

_RECORDS: dict[str, dict[str, Any]] = {}
_CALLS: Counter[tuple[str, str]] = Counter()
_IN_CLAIM = [False]
_COMPUTE: Counter[str] = Counter()  # seconds spent in each snippet's measure() (or compute_timer)
_DEPTH = [0]


@contextlib.contextmanager
def compute_timer(name: str) -> Iterator[None]:
    """Count the enclosed work as snippet compute (reported at the end of the run)."""
    _DEPTH[0] += 1
    start = time.perf_counter()
    try:
        yield
    finally:
        _DEPTH[0] -= 1
        if _DEPTH[0] == 0:  # nested measure() calls count once
            _COMPUTE[name] += time.perf_counter() - start


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--device",
        default="cpu",
        choices=store.DEVICES,
        help="device every claim runs on; results go to results/<device>.json",
    )
    parser.addoption("--no-record", action="store_true", help="run claims without writing results/<device>.json")
    parser.addoption(
        "--reuse",
        action="store_true",
        help="keep a claim's passing record instead of running its test file again when the file's whole "
        "fingerprint (code, conftest files, lock, torch, device) is unchanged (nox -s tests passes it)",
    )
    parser.addoption(
        "--seeds",
        default=None,
        help="the seed set claims run on: 'tuned' (default), 'held-out' (CI's second condition) or an integer "
        f"base (seed i is base + i); also {margins_mod.SEEDS_ENV}",
    )
    parser.addoption(
        "--fresh",
        action="store_true",
        help="run every claim even with --reuse (also SITE_FRESH=1, CI=true and SITE_PUBLISH=1)",
    )
    parser.addoption(
        "--experiments",
        action="store_true",
        help="run only the experiments (claims marked experiment=...), fresh, and write their records to the "
        "committed results/experiments-<device>.json (nox -s experiments)",
    )
    parser.addoption(
        "--experiment-slot",
        default=None,
        help="I/K: run only the experiment files in rotation slot I of K (every K-th file, sorted by path) and "
        "every claim that is not an experiment (CI's held-out condition rotates the experiments)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "claim(statement, page): a test that proves one sentence of a page (see sitekit)"
    )
    try:
        config.stash[_SEED_SET] = margins_mod.chosen_seed_set(config.getoption("--seeds"))
    except margins_mod.SeedSetError as e:
        raise pytest.UsageError(str(e)) from None
    if config.getoption("--experiments") and config.stash[_SEED_SET] != "tuned":
        raise pytest.UsageError(
            "--experiments writes the committed experiment records, which are taken on the tuned seeds; "
            "run held-out seeds without --experiments (nox -s heldout)"
        )
    if os.environ.get("SITE_THREADS"):  # CI's second condition: a fixed thread count
        import torch

        torch.set_num_threads(int(os.environ["SITE_THREADS"]))
    if getattr(config.option, "dist", "no") in ("loadfile", "loadscope", "loadgroup"):
        config.option.loadscopereorder = False  # keep the longest-first order the workers collect in
    if config.getoption("--device") == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise pytest.UsageError(
                "--device cuda: no CUDA device is visible to torch "
                f"(torch {torch.__version__}, built for CUDA {torch.version.cuda}). "
                "Run `nox -s tests_cuda` on a GPU host; the CPU claims run with `nox -s tests`."
            )


def _marker(item: pytest.Item) -> pytest.Mark | None:
    return item.get_closest_marker("claim")


def _describe(item: pytest.Item) -> tuple[str, str, str]:
    mark = _marker(item)
    assert mark is not None
    allowed = {"page", "cpu_only", "cuda_only", "device_independent", "exact", "identity", "experiment", "tolerance"}
    if len(mark.args) != 1 or not {"page"} <= set(mark.kwargs) <= allowed:
        raise store.ClaimError(
            f'{item.nodeid}: write @pytest.mark.claim("<the sentence it proves>", page="<docs path>")'
            ' (optionally cpu_only="<why it cannot run on a GPU>",'
            ' cuda_only="<what it asserts about CUDA>",'
            ' device_independent="<why its outcome cannot depend on the device>",'
            ' exact="<the measured equality it asserts exactly>",'
            ' identity="<why it holds by construction: the code does what the algebra says>",'
            ' experiment="<what it trains or sweeps, that takes minutes>", tolerance=<relative drift allowed'
            " between a fresh run and the committed record>)"
        )
    if bool(mark.kwargs.get("experiment")) != ("tolerance" in mark.kwargs):
        raise store.ClaimError(
            f"{item.nodeid}: an experiment states the tolerance a fresh run may differ by from its committed record "
            '(experiment="<what it runs>", tolerance=0.1 for 10 %); tolerance= goes only with experiment='
        )
    if mark.kwargs.get("exact") and mark.kwargs.get("identity"):
        raise store.ClaimError(
            f"{item.nodeid}: a claim is an identity (it holds by construction) or an exact finding (it could have "
            "come out otherwise), not both"
        )
    page = mark.kwargs["page"]
    if CUDA_WORDS.search(mark.args[0]) and not mark.kwargs.get("cuda_only"):
        raise store.ClaimError(
            f"{item.nodeid}: the sentence speaks of CUDA or a GPU, which a CPU run cannot verify. Say what the CPU "
            'run shows, and put the CUDA statement in its own claim marked cuda_only="<what it asserts about '
            'CUDA>" (a CPU run records it as not run yet; `nox -s tests_cuda` verifies it)'
        )
    if mark.kwargs.get("cuda_only") and mark.kwargs.get("cpu_only"):
        raise store.ClaimError(f"{item.nodeid}: a claim is cpu_only or cuda_only, not both")
    if not (store.ROOT / "docs" / page).is_file():
        raise store.ClaimError(f"{item.nodeid}: page docs/{page} does not exist; fix page=...")
    return item.name.removeprefix("test_"), mark.args[0], page


CUDA_WORDS = re.compile(r"\b(?:CUDA|GPUs?|cuDNN|cuBLAS)\b")
NOT_RUN_CUDA = "not run: CUDA only"  # the status a CPU run records for a CUDA-only claim


def _cuda_only(item: pytest.Item) -> str | None:
    mark = _marker(item)
    return None if mark is None else mark.kwargs.get("cuda_only")


def _cpu_only(item: pytest.Item) -> str | None:
    mark = _marker(item)
    return None if mark is None else mark.kwargs.get("cpu_only")


@pytest.fixture
def claim(request: pytest.FixtureRequest) -> Claim:
    """The running claim (only for tests marked @pytest.mark.claim)."""
    if _marker(request.node) is None:
        raise store.ClaimError(f"{request.node.nodeid}: the claim fixture needs @pytest.mark.claim")
    handle = Claim(request.node)
    request.node.stash[_HANDLE] = handle
    return handle


@pytest.fixture(scope="session")
def seeds(pytestconfig: pytest.Config) -> margins_mod.Seeds:
    """The seed set of this run: `seeds(5)` gives a claim its five seeds (`--seeds`, SITE_SEEDS).

    A claim never picks its own seeds: the tuned set is the default, CI also runs the held-out set, and
    anyone can run another (`nox -s tests -- --seeds 12345`).
    """
    return margins_mod.Seeds(pytestconfig.stash[_SEED_SET])


_SEED_SET = pytest.StashKey[str]()


@pytest.fixture(scope="session")
def device(pytestconfig: pytest.Config) -> str:
    """The device every claim runs on (`--device`); session-scoped so module fixtures can share work."""
    return str(pytestconfig.getoption("--device"))


@pytest.fixture(scope="module")
def one_cpu_thread() -> Iterator[None]:
    """Run a module's claims on one CPU thread, then restore the setting.

    For topics whose tensors are tiny: handing such ops to several threads costs more than it saves,
    and on a busy machine the waiting threads made them many times slower. Request it from a topic's
    conftest.py with an autouse fixture.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


_HANDLE = pytest.StashKey[Claim]()
EXPERIMENT_TIMEOUT_S = 3600  # an experiment file's first claim runs its shared training (CI's held-out run is slower)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seen: dict[str, str] = {}
    for item in items:
        if _marker(item) is None:
            continue
        cid, _, _ = _describe(item)
        if cid in seen:
            raise store.ClaimError(f"claim id {cid!r} is used by {seen[cid]} and {item.nodeid}")
        seen[cid] = item.nodeid
        snippet = store.snippet_for_test(Path(item.path))
        if not snippet.is_file():
            raise store.ClaimError(
                f"{item.nodeid}: its snippet {snippet.relative_to(store.ROOT)} does not exist "
                "(tests/<topic>/test_<name>.py proves snippets/<topic>/<name>.py)"
            )
        if "claim" not in getattr(item, "fixturenames", ()):
            raise store.ClaimError(f"{item.nodeid}: a claim test must take the `claim` fixture")
    if config.getoption("--device") != "cpu":
        # Claims about a learner's CPU-only files do not run here; the ledger says so (not a pass).
        off = [item for item in items if _cpu_only(item)]
        if off:
            config.hook.pytest_deselected(items=off)
            items[:] = [item for item in items if not _cpu_only(item)]
    else:
        # CUDA-only claims cannot run here: recorded as not run yet (never a pass, never cited as verified).
        off = [item for item in items if _cuda_only(item)]
        if off:
            config.hook.pytest_deselected(items=off)
            items[:] = [item for item in items if not _cuda_only(item)]
            for item in off:
                _record_not_run(item)
    _select_experiments(config, items)
    _reuse_passing_records(config, items)
    for item in items:  # an experiment runs for minutes: pytest-timeout's default (pyproject) is for claims
        if _is_experiment(item) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(EXPERIMENT_TIMEOUT_S))
    workers = _worker_count(config)
    if workers > 1 and items:
        _longest_first(config, items)
        import torch  # only where tests will run: a worker left with nothing starts fast

        shared = max(1, (os.cpu_count() or 1) // workers)  # the cores are shared, not each one's
        torch.set_num_threads(int(os.environ.get("SITE_THREADS") or shared))


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


def _is_controller(config: pytest.Config) -> bool:
    return config.pluginmanager.has_plugin("dsession")


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
        if fresh_reason(config) is not None:
            return store.FRESH
        why = experiments.stale_reason(path, ids, device, seed_set=config.stash[_SEED_SET])
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
        path, ids, recorded, device, fresh=fresh_reason(config) is not None, seed_set=config.stash[_SEED_SET]
    )
    if why is None:
        _REUSE.setdefault("files", {})[rel] = {
            "ids": ids,
            "ran": min(recorded[cid].recorded_at for cid in ids),
        }
    return why


_STALE: dict[str, str] = {}  # experiment files (relative path) whose committed record does not stand: why


def _is_experiment(item: pytest.Item) -> bool:
    mark = _marker(item)
    return bool(mark is not None and mark.kwargs.get("experiment"))


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
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
        try:
            index, k = (int(x) for x in text.split("/"))
            assert 0 <= index < k
        except (ValueError, AssertionError):
            raise pytest.UsageError(f"--experiment-slot {text!r}: write I/K with 0 <= I < K, e.g. 1/3") from None
        files = sorted({Path(item.path).relative_to(store.ROOT).as_posix() for item in items if _is_experiment(item)})
        seconds = experiments.file_seconds(_committed(config))  # balanced on the committed wall times
        keep = set(experiments.rotation(files, index, k, seconds))
        drop = [
            item
            for item in items
            if _is_experiment(item) and Path(item.path).relative_to(store.ROOT).as_posix() not in keep
        ]
        _REUSE["rotation"] = {"slot": f"{index}/{k}", "ran": sorted(keep), "skipped": sorted(set(files) - keep)}
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


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A stale experiment's claims fail at once, with the command that refreshes the committed record."""
    rel = Path(item.path).resolve().relative_to(store.ROOT).as_posix()
    if rel in _STALE and _is_experiment(item):
        pytest.fail(experiments.stale_message(Path(item.path), _STALE[rel]), pytrace=False)


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
            f"experiments in rotation slot {rotation['slot']}: {len(rotation['ran'])} run, "
            f"{len(rotation['skipped'])} left to the other slots ({', '.join(rotation['skipped']) or 'none'})"
        )
    for path, why in sorted(reuse.get("stale", {}).items()):
        lines.append(f"  STALE experiment {path} ({why}): run `{experiments.COMMAND} -- {path}` and commit the record")
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


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Wall time per test file (the controller sees every worker's reports)."""
    _FILE_SECONDS[report.nodeid.split("::")[0]] += report.duration


_LINES: list[tuple[str, dict[str, bool]]] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line, markup in _LINES:
        terminalreporter.write_line(line, **markup)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object | None) -> None:
    """pytest-xdist: a worker finished; keep what it measured for the controller's report."""
    out = getattr(node, "workeroutput", {}).get("sitekit")
    if out is not None:
        _FROM_WORKERS.append(out)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    if _marker(item) is None or report.when not in ("setup", "call"):
        return report
    if report.when == "setup" and report.passed:
        item.stash[_START] = time.perf_counter() - report.duration  # includes shared fixtures' work
        return report
    handle = item.stash.get(_HANDLE, None)
    status = report.outcome
    identity = bool(_marker(item).kwargs.get("identity"))  # type: ignore[union-attr]
    if status == "passed" and handle is not None and not handle.counterfactuals and not identity:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid}: claim never showed its check can fail; call "
            "claim.rejects(check, <counterfactual>, because=...) with what an alternative run measured, or, if the "
            'claim holds by construction, mark it identity="<why>"'
        )
        status = "failed"
    cid, statement, _ = _describe(item)
    problem = _margin_problem(item, handle) if status == "passed" and handle is not None else None
    if problem:
        report.outcome = status = "failed"
        report.longrepr = problem
    # A threshold a check asserted through sitekit.margins is a number the sentence may state: it is bound
    # to what was asserted, so loosening the check changes the number and fails the sentence.
    thresholds = [m.threshold for m in handle.margins] if handle is not None else []
    missing = unbound(statement, handle.values, thresholds) if status == "passed" and handle is not None else []
    if missing:
        report.outcome = status = "failed"
        report.longrepr = (
            f"{item.nodeid}: the sentence states {', '.join(missing)}, which no recorded value shows at the "
            "precision written; claim.record(...) the threshold, setting or result it stands for (a bound "
            "like 'below 1e-20' too), or correct the sentence to what was measured"
        )
    extra: dict[str, Any] = {}
    if status == "passed" and handle is not None and _is_experiment(item):
        problem, extra = _experiment_problem(item, handle, cid)
        if problem:
            report.outcome = status = "failed"
            report.longrepr = problem
    import torch

    _RECORDS[cid] = (
        _record(item, status, str(item.config.getoption("--device")), torch.__version__)
        | extra
        | {
            "values": handle.values if handle else {},
            "duration_s": round(time.perf_counter() - item.stash.get(_START, time.perf_counter()), 3),
            "counterfactuals": handle.counterfactuals if handle else [],
            "margins": [m.as_record() for m in handle.margins] if handle else [],
            "missed": handle.missed if handle else [],
            "alternatives": handle.alternatives if handle else [],
            "asserted_keys": asserted_keys(statement, handle) if handle else [],
            "error": None if status == "passed" else str(report.longrepr)[-2000:],
        }
    )
    return report


_START = pytest.StashKey[float]()
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
    if fresh_reason(config) is None or config.stash[_SEED_SET] != "tuned":
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
        "seed_set": item.config.stash[_SEED_SET],
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


def _counted(module: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def measure(*args: Any, **kwargs: Any) -> Any:
        if _IN_CLAIM[0]:
            _CALLS[(module, f"{args!r} {sorted(kwargs.items())!r}")] += 1
        with compute_timer(module):
            result = fn(*args, **kwargs)
        return runs.register(result, runs.describe_call(f"{module}.measure", args, kwargs))

    measure.__counted__ = True  # type: ignore[attr-defined]
    return measure


def pytest_collection_finish(session: pytest.Session) -> None:
    """Count calls of every snippet's measure(): an experiment runs once per test run."""
    for name, module in list(sys.modules.items()):
        fn = getattr(module, "measure", None)
        if name.startswith("snippets.") and callable(fn) and not hasattr(fn, "__counted__"):
            module.measure = _counted(name, fn)  # type: ignore[attr-defined]
    bench = sys.modules.get("benchmarks.store")
    if bench is not None and not hasattr(bench.load, "__registered__"):
        bench.load = _registered("benchmarks.store.load", bench.load)  # a committed sweep is a run too


def _registered(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` whose results count as produced by a run (sitekit.runs), like a snippet's measure()."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return runs.register(fn(*args, **kwargs), runs.describe_call(name, args, kwargs))

    wrapper.__registered__ = True  # type: ignore[attr-defined]
    return wrapper


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    _IN_CLAIM[0] = _marker(item) is not None
    try:
        return (yield)
    finally:
        _IN_CLAIM[0] = False


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


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    device = str(config.getoption("--device"))
    record = bool(_RECORDS) and not config.getoption("--no-record")
    if record and config.getoption("--experiments"):
        _save_experiments(device)
        for r in _RECORDS.values():
            r["ran"] = experiments.load_raw(device).get(r["id"], {}).get("ran")
    if record and _REPRODUCED:
        experiments.mark_reproduced(device, dict(_REPRODUCED))
    path = store.merge(device, dict(_RECORDS), provenance(device, config.stash[_SEED_SET])) if record else None
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
    _report_margins(thinnest, config.stash[_SEED_SET])


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
