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

import ast
import contextlib
import datetime as dt
import functools
import math
import platform
import sys
import time
import types
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sitekit import claims as store
from sitekit.claim_numbers import unbound

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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "claim(statement, page): a test that proves one sentence of a page (see sitekit)"
    )
    if config.getoption("--device") == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise pytest.UsageError(
                "--device cuda: no CUDA device is visible to torch "
                f"(torch {torch.__version__}, built for CUDA {torch.version.cuda}). "
                "Run `nox -s tests_cuda` on a GPU host; the CPU claims run with `nox -s tests`."
            )


def jsonable(value: Any) -> Any:
    """Turn tensors, numpy scalars, tuples and dataclasses into plain JSON values."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if hasattr(value, "__dataclass_fields__"):
        value = {k: getattr(value, k) for k in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    raise TypeError(f"cannot record {type(value).__name__}: record plain numbers, strings or lists")


def _is_literal(node: ast.AST) -> bool:
    """A constant, or an expression or container built only from constants (`False`, `4.0`, `[1, 2]`, `152 / 22`)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _is_literal(node.operand)
    if isinstance(node, ast.BinOp):
        return _is_literal(node.left) and _is_literal(node.right)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_literal(k) for k in node.keys) and all(_is_literal(v) for v in node.values)
    return False


@functools.cache
def _parsed(filename: str) -> ast.Module | None:
    try:
        return ast.parse(Path(filename).read_text(encoding="utf-8"), filename=filename)
    except (OSError, SyntaxError, ValueError):
        return None


def _literal_arguments(frame: types.FrameType) -> list[str]:
    """Source text of the literal arguments of the `rejects(...)` call that `frame` is executing."""
    tree = _parsed(frame.f_code.co_filename)
    if tree is None:
        return []
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    line, _, col, _ = positions[index] if index < len(positions) else (frame.f_lineno, None, None, None)
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "rejects"
        and node.lineno <= (line or frame.f_lineno) <= (node.end_lineno or node.lineno)
    ]
    exact = [c for c in calls if c.lineno == line and c.col_offset == col]
    chosen = exact or calls
    if not chosen:
        return []
    call = min(chosen, key=lambda c: (c.end_lineno or c.lineno) - c.lineno)
    args = call.args[1:] + [k.value for k in call.keywords if k.arg not in (None, "because")]
    return [ast.unparse(a) for a in args if _is_literal(a)]


class Claim:
    """Handle a claim test uses to apply its check, prove the check can fail, and record what it measured."""

    def __init__(self, item: pytest.Item) -> None:
        self.item = item
        self.values: dict[str, Any] = {}
        self.counterfactuals: list[str] = []
        self.applied: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []

    def record(self, **values: Any) -> None:
        """Store measured values; pages cite them as value("<id>", "<key>")."""
        self.values.update({k: jsonable(v) for k, v in values.items()})

    def check(self, check: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Apply `check`, the claim's assertion, to the measured values (and remember it for `rejects`)."""
        result = check(*args, **kwargs)
        self.applied.append((check, args, kwargs))
        return result

    def rejects(self, check: Callable[..., Any], *args: Any, because: str, **kwargs: Any) -> None:
        """Assert that `check`, already applied to the measured values, fails on a measured counterfactual."""
        name = getattr(check, "__qualname__", repr(check))
        where = f"{self.item.nodeid}: claim.rejects({name}, ..., because={because!r})"
        same = [(a, k) for fn, a, k in self.applied if fn is check]
        if not same:
            raise AssertionError(
                f"{where}: {name} was never applied to the measured values. A counterfactual goes through "
                f"the same check as the measured case: call claim.check({name}, <measured>...) first, "
                "then claim.rejects with that same function"
            )
        frame = sys._getframe(1)
        literals = _literal_arguments(frame)
        del frame
        if literals:
            raise AssertionError(
                f"{where}: the counterfactual {', '.join(literals)} is typed, not measured. Run the "
                "alternative (the plain stack, the post-norm block, the un-zeroed branch...) in the snippet "
                "and pass what it measured; bind the check's fixed parameters inside the check (a closure "
                "or functools.partial), not in the call"
            )
        if any(
            len(a) == len(args)
            and all(x is y for x, y in zip(a, args, strict=True))
            and k.keys() == kwargs.keys()
            and all(k[n] is kwargs[n] for n in k)
            for a, k in same
        ):
            raise AssertionError(
                f"{where}: the counterfactual is the measured value itself; pass what the alternative measured"
            )
        try:
            check(*args, **kwargs)
        except AssertionError:
            self.counterfactuals.append(because)
            return
        raise AssertionError(
            f"{self.item.nodeid}: the check accepted the counterfactual ({because}); "
            "a check that cannot fail proves nothing: tighten it"
        )


def _marker(item: pytest.Item) -> pytest.Mark | None:
    return item.get_closest_marker("claim")


def _describe(item: pytest.Item) -> tuple[str, str, str]:
    mark = _marker(item)
    assert mark is not None
    if len(mark.args) != 1 or not {"page"} <= set(mark.kwargs) <= {"page", "cpu_only", "device_independent"}:
        raise store.ClaimError(
            f'{item.nodeid}: write @pytest.mark.claim("<the sentence it proves>", page="<docs path>")'
            ' (optionally cpu_only="<why it cannot run on a GPU>",'
            ' device_independent="<why its outcome cannot depend on the device>")'
        )
    page = mark.kwargs["page"]
    if not (store.ROOT / "docs" / page).is_file():
        raise store.ClaimError(f"{item.nodeid}: page docs/{page} does not exist; fix page=...")
    return item.name.removeprefix("test_"), mark.args[0], page


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
    if status == "passed" and handle is not None and not handle.counterfactuals:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid}: claim never showed its check can fail; call "
            "claim.rejects(check, <counterfactual>, because=...)"
        )
        status = "failed"
    cid, statement, page = _describe(item)
    missing = unbound(statement, handle.values) if status == "passed" and handle is not None else []
    if missing:
        report.outcome = status = "failed"
        report.longrepr = (
            f"{item.nodeid}: the sentence states {', '.join(missing)}, which no recorded value shows at the "
            "precision written; claim.record(...) the threshold, setting or result it stands for (a bound "
            "like 'below 1e-20' too), or correct the sentence to what was measured"
        )
    device = str(item.config.getoption("--device"))
    import torch

    test_file = Path(item.path)
    _RECORDS[cid] = {
        "id": cid,
        "statement": statement,
        "page": page,
        "snippet": str(store.snippet_for_test(test_file).relative_to(store.ROOT)),
        "test": f"{test_file.relative_to(store.ROOT)}::{item.name}",
        "values": handle.values if handle else {},
        "status": status,
        "device": device,
        "torch": torch.__version__,
        "hash": store.code_hash(test_file),
        "recorded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - item.stash.get(_START, time.perf_counter()), 3),
        "counterfactuals": handle.counterfactuals if handle else [],
        "cpu_only": _cpu_only(item),
        "device_independent": _marker(item).kwargs.get("device_independent"),  # type: ignore[union-attr]
        "error": None if status == "passed" else str(report.longrepr)[-2000:],
    }
    return report


_START = pytest.StashKey[float]()


def provenance(device: str) -> dict[str, Any]:
    """Where and with what the claims ran."""
    import torch

    info: dict[str, Any] = {
        "device": device,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpu": _cpu_model(),
        "threads": torch.get_num_threads(),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    if device == "cuda":
        info.update(
            gpu=torch.cuda.get_device_name(0),
            cuda=torch.version.cuda,
            cudnn=torch.backends.cudnn.version(),
            capability=".".join(map(str, torch.cuda.get_device_capability(0))),
            driver=_nvidia_driver(),
        )
    return info


def _cpu_model() -> str | None:
    """The CPU's model name (platform.processor() is empty on Linux)."""
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), None)


def _nvidia_driver() -> str | None:
    """The NVIDIA driver version as nvidia-smi reports it, or None where it cannot be run."""
    import subprocess

    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    return out[0] if out else None


def _counted(module: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def measure(*args: Any, **kwargs: Any) -> Any:
        if _IN_CLAIM[0]:
            _CALLS[(module, f"{args!r} {sorted(kwargs.items())!r}")] += 1
        with compute_timer(module):
            return fn(*args, **kwargs)

    measure.__counted__ = True  # type: ignore[attr-defined]
    return measure


def pytest_collection_finish(session: pytest.Session) -> None:
    """Count calls of every snippet's measure(): an experiment runs once per test run."""
    for name, module in list(sys.modules.items()):
        fn = getattr(module, "measure", None)
        if name.startswith("snippets.") and callable(fn) and not hasattr(fn, "__counted__"):
            module.measure = _counted(name, fn)  # type: ignore[attr-defined]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    _IN_CLAIM[0] = _marker(item) is not None
    try:
        return (yield)
    finally:
        _IN_CLAIM[0] = False


def pytest_sessionfinish(session: pytest.Session) -> None:
    repeated = {key: n for key, n in _CALLS.items() if n > 1}
    if repeated:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        for (module, args), n in sorted(repeated.items()):
            message = (
                f"{module}.measure{args} ran {n} times in one test run: share one result between the claims "
                "with a module-scoped fixture (an experiment runs once per build)"
            )
            if reporter is not None:
                reporter.write_line(f"ERROR {message}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if _COMPUTE and reporter is not None:
        top = ", ".join(f"{name.removeprefix('snippets.')} {t:.1f}" for name, t in _COMPUTE.most_common(4))
        reporter.write_line(f"snippet compute: {sum(_COMPUTE.values()):.1f} s (largest: {top})")
    if not _RECORDS or session.config.getoption("--no-record"):
        return
    device = str(session.config.getoption("--device"))
    path = store.merge(device, dict(_RECORDS), provenance(device))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        failed = sum(r["status"] != "passed" for r in _RECORDS.values())
        reporter.write_line(f"recorded {len(_RECORDS)} claims ({failed} not passing) in {path.relative_to(store.ROOT)}")
