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
import functools
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sitekit import call_log, experiments, recording, runs, selection
from sitekit import claims as store
from sitekit import margins as margins_mod
from sitekit.claim_handle import Claim
from sitekit.claim_marker import _cpu_only, _cuda_only, _describe, _is_experiment, _marker
from sitekit.claim_numbers import unbound
from sitekit.provenance import provenance
from sitekit.recording import (
    _CALLS,
    _COMPUTE,
    _FILE_SECONDS,
    _FROM_WORKERS,
    _LINES,
    _RECORDS,
    _experiment_problem,
    _margin_problem,
    _record,
    _record_not_run,
    asserted_keys,
)
from sitekit.selection import _STALE, _longest_first, _reuse_passing_records, _select_experiments, _worker_count

__all__ = ["Claim", "compute_timer", "provenance"]  # tests and benchmarks import these from the plugin

_IN_CLAIM = [False]
_CURRENT: list[pytest.Item | None] = [None]  # the claim test running now (its module fixtures run for it)
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
        "--experiment-rotation",
        default=None,
        help="I/K or none, with a fresh run (CI): run fresh every claim that is not an experiment, every experiment "
        "file in rotation group I of K (none: no group) and every one whose committed record CI has not "
        "reproduced as it stands; the other experiments rest on their committed records (sitekit.experiments.due)",
    )
    parser.addoption(
        "--experiment-slot",
        default=None,
        help="I/K or none: run only the experiment files in rotation group I of K (balanced on committed wall "
        "times; none: no experiment) and every claim that is not an experiment (CI's held-out condition "
        "rotates the experiments: sitekit/rotations.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "claim(statement, page): a test that proves one sentence of a page (see sitekit)"
    )
    try:
        config.stash[selection.SEED_SET] = margins_mod.chosen_seed_set(config.getoption("--seeds"))
    except margins_mod.SeedSetError as e:
        raise pytest.UsageError(str(e)) from None
    if config.getoption("--experiments") and config.stash[selection.SEED_SET] != "tuned":
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
    return margins_mod.Seeds(pytestconfig.stash[selection.SEED_SET])


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


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With --reuse, a claim file whose records all stand is not even imported (sitekit.selection.ignore_file)."""
    return selection.ignore_file(collection_path, config)


def _test_file(item: pytest.Item) -> str:
    """The test file a claim lives in, relative to the repository: the key of its records and call log."""
    return Path(item.path).resolve().relative_to(store.ROOT).as_posix()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A stale experiment's claims fail at once, with the command that refreshes the committed record."""
    rel = _test_file(item)
    if rel in _STALE and _is_experiment(item):
        pytest.fail(experiments.stale_message(Path(item.path), _STALE[rel]), pytrace=False)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Wall time per test file (the controller sees every worker's reports)."""
    _FILE_SECONDS[report.nodeid.split("::")[0]] += report.duration


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


def _counted(module: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def measure(*args: Any, **kwargs: Any) -> Any:
        if _IN_CLAIM[0]:
            _CALLS[(module, f"{args!r} {sorted(kwargs.items())!r}")] += 1
        start = time.perf_counter()
        with compute_timer(module):
            result = fn(*args, **kwargs)
        item = _CURRENT[0]
        if item is not None and _DEPTH[0] == 0:  # the page's notebook replays it (sitekit.call_log)
            import torch

            mark = _marker(item)
            assert mark is not None
            call_log.add(
                _test_file(item),
                str(mark.kwargs["page"]),
                module,
                args,
                kwargs,
                threads=torch.get_num_threads(),
                seconds=time.perf_counter() - start,
                result=result,
                tolerance=mark.kwargs.get("tolerance"),
            )
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
    _CURRENT[0] = item if _IN_CLAIM[0] else None
    if _IN_CLAIM[0]:
        call_log.ran(_test_file(item))
    try:
        return (yield)
    finally:
        _IN_CLAIM[0] = False
        _CURRENT[0] = None


def pytest_sessionfinish(session: pytest.Session) -> None:
    recording.finish(session)
