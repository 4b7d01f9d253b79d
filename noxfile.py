"""Sessions that verify and build the site.

    nox -s tests        every claim on CPU            -> results/cpu.json
    nox -s tests_cuda   every claim on CUDA           -> results/cuda.json (fails without a GPU)
    nox -s docs         tests, then mkdocs build --strict -> site/
    nox -s serve        live preview on http://127.0.0.1:8000 (reloads on page or snippet edits)
    nox -s lint         ruff format --check and ruff check
    nox -s check -- F   self-check a hands-on exercise file F (docs/module/exercise.md)
    nox -s browser      build the site, then test it in headless Chromium (browser_tests/)
    nox -s bench        benchmark sweeps on CPU       -> results/bench-cpu.json (commit it; minutes)

All CPU sessions share one environment, .nox/site, installed from requirements/lock.txt and
reinstalled only when that file changes (torch alone is ~700 MB; one copy, installed once).
Arguments after `--` go to the tool: `nox -s tests -- tests/gradient_highway -x`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
ENV = ROOT / ".nox" / "site"
LOCK = ROOT / "requirements" / "lock.txt"
PY = ENV / "bin" / "python"

nox.options.default_venv_backend = "none"
nox.options.sessions = ["tests", "lint"]
nox.options.error_on_external_run = False
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # Material's end-of-life banner, shown on every build


def _base_python() -> str:
    """A Python 3.11 or 3.12 to build the environment with (SITE_PYTHON overrides)."""
    for candidate in (os.environ.get("SITE_PYTHON"), "python3.11", "python3.12", sys.executable):
        if candidate and shutil.which(candidate):
            out = subprocess.run(
                [candidate, "-c", "import sys; print(sys.version_info[:2] in ((3, 11), (3, 12)))"],
                capture_output=True,
                text=True,
                check=False,
            )
            if out.stdout.strip() == "True":
                return candidate
    raise RuntimeError("no Python 3.11 or 3.12 found; set SITE_PYTHON to one")


def site_env(session: nox.Session) -> Path:
    """Create or refresh .nox/site from the lock file; return its python."""
    stamp = ENV / ".lock-sha256"
    want = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if PY.exists() and stamp.exists() and stamp.read_text() == want:
        return PY
    if not PY.exists():
        session.run(_base_python(), "-m", "venv", str(ENV), external=True)
    session.run(str(PY), "-m", "pip", "install", "-q", "pip==26.3", external=True)
    session.run(str(PY), "-m", "pip", "install", "-q", "-r", str(LOCK), external=True)
    stamp.write_text(want)
    return PY


@nox.session
def tests(session: nox.Session) -> None:
    """Run every claim on CPU and record results/cpu.json."""
    py = site_env(session)
    args = session.posargs or ["tests"]
    session.run(str(py), "-m", "pytest", "--device", "cpu", *args, external=True)


@nox.session
def tests_cuda(session: nox.Session) -> None:
    """Run every claim on CUDA in the current environment (GPU hosts: no venv, no network)."""
    probe = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.cuda.is_available(), torch.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    if not probe.stdout.startswith("True"):
        session.error(
            "tests_cuda needs a CUDA GPU visible to the torch of "
            f"{sys.executable} (got: {probe.stdout.strip() or probe.stderr.strip()[-300:]}). "
            "Run it on a GPU host (see CONTRIBUTING.md); CPU claims run with `nox -s tests`."
        )
    args = session.posargs or ["tests"]
    session.run(sys.executable, "-m", "pytest", "--device", "cuda", *args, external=True)


@nox.session(requires=["tests"])
def docs(session: nox.Session) -> None:
    """Build the verified site into site/ (strict); runs the CPU claims first."""
    py = site_env(session)
    session.run(str(py), "-m", "mkdocs", "build", "--strict", *session.posargs, external=True)


@nox.session
def serve(session: nox.Session) -> None:
    """Live preview; problems show on the page instead of stopping the server."""
    py = site_env(session)
    if not (ROOT / "results" / "cpu.json").exists():
        session.run(str(py), "-m", "pytest", "--device", "cpu", "tests", external=True)
    session.env["SITE_ALLOW_STALE"] = "1"
    args = session.posargs or ["-a", "127.0.0.1:8000"]
    session.run(str(py), "-m", "mkdocs", "serve", "--no-strict", *args, external=True)


@nox.session
def browser(session: nox.Session) -> None:
    """Build the site from the recorded claims, then drive it in Debian's Chromium (browser_tests/).

    Needs a `chromium` on PATH (or SITE_CHROMIUM); as root it runs `apt-get install chromium` itself.
    Runs `npm ci` (Lighthouse, pinned in package-lock.json) when node_modules/ is missing or older.
    SITE_DIR=<a built site> tests that build instead of making one. Screenshots go to screenshots/.
    """
    py = site_env(session)
    if not (os.environ.get("SITE_CHROMIUM") or shutil.which("chromium")):
        if os.geteuid() != 0 or not shutil.which("apt-get"):
            session.error(
                "the browser tests drive Debian's Chromium: `sudo apt-get install chromium`, "
                "or set SITE_CHROMIUM to a Chromium/Chrome binary (Playwright's own download is not used)."
            )
        session.env["DEBIAN_FRONTEND"] = "noninteractive"
        session.run("apt-get", "update", "-q", external=True)
        session.run("apt-get", "install", "-y", "-q", "chromium", external=True)
    npm_state = ROOT / "node_modules" / ".package-lock.json"  # written by npm ci
    if not npm_state.exists() or npm_state.stat().st_mtime < (ROOT / "package-lock.json").stat().st_mtime:
        if not shutil.which("npm"):
            session.error("the Lighthouse test needs Node.js 18.20+ with npm (Debian: `apt-get install nodejs npm`).")
        session.run("npm", "ci", "--no-audit", "--no-fund", external=True)  # Lighthouse, from package-lock.json
    site = os.environ.get("SITE_DIR")
    if not site:
        if not (ROOT / "results" / "cpu.json").exists():
            session.run(str(py), "-m", "pytest", "--device", "cpu", "tests", external=True)
        site = str(ROOT / ".nox" / "browser-site")
        shutil.rmtree(site, ignore_errors=True)
        session.run(str(py), "-m", "mkdocs", "build", "--strict", "-q", "-d", site, external=True)
    session.env["SITE_DIR"] = str(Path(site).resolve())
    session.run(str(py), "-m", "pytest", "browser_tests", *session.posargs, external=True)


@nox.session
def bench(session: nox.Session) -> None:
    """Run the benchmark sweeps (benchmarks/) on CPU; commit results/bench-cpu.json for the costs page."""
    py = site_env(session)
    args = session.posargs or ["benchmarks"]
    session.run(
        str(py), "-m", "pytest", "--device", "cpu", "--benchmark-enable", "--timeout", "1800", *args, external=True
    )


@nox.session
def check(session: nox.Session) -> None:
    """Self-check a learner's exercise file: `nox -s check -- path/to/exercise_residual.py`."""
    py = site_env(session)
    if not session.posargs:
        session.error("give your exercise file: nox -s check -- path/to/exercise_residual.py")
    path, *rest = session.posargs
    path = str(Path(session.invoked_from, path))  # relative to where nox was run, not to ROOT
    session.run(str(py), "-m", "snippets.exercise.check", path, *rest, external=True)


@nox.session
def lint(session: nox.Session) -> None:
    """Formatting and lint checks (ruff)."""
    py = site_env(session)
    session.run(str(py), "-m", "ruff", "format", "--check", ".", external=True)
    session.run(str(py), "-m", "ruff", "check", ".", *session.posargs, external=True)


@nox.session
def lock(session: nox.Session) -> None:
    """Re-resolve requirements/lock.txt from pyproject's dependency groups (needs the registry)."""
    tmp = ROOT / ".nox" / "lock-env"
    shutil.rmtree(tmp, ignore_errors=True)
    session.run(_base_python(), "-m", "venv", str(tmp), external=True)
    pip = [str(tmp / "bin" / "python"), "-m", "pip"]
    session.run(*pip, "install", "-q", "pip==26.3", external=True)
    groups = ["--group", "test", "--group", "docs", "--group", "lint", "--group", "nox", "--group", "browser"]
    session.run(*pip, "install", "-q", *groups, external=True)
    frozen = subprocess.run([*pip, "freeze"], capture_output=True, text=True, check=True).stdout
    lines = [line.replace("+cpu", "") for line in frozen.splitlines() if not line.startswith("-e")]
    header = LOCK.read_text().splitlines()[:2]
    LOCK.write_text("\n".join(header + lines) + "\n")
