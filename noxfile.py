"""Sessions that verify and build the site.

    nox -s tests        contract tests and every claim on CPU -> results/cpu.json
    nox -s heldout      every claim again on held-out seeds, scalar kernels, one thread (CI's 2nd condition;
                        the experiments in rotation: sitekit/rotations.py)
    nox -s experiments  every experiment (claims marked experiment=..., minutes) fresh -> results/experiments-cpu.json
                        (commit it: builds that are not fresh reuse it while its fingerprint matches)
    nox -s tests_cuda   every claim on CUDA           -> results/cuda.json (fails without a GPU)
    nox -s render       every page, notebook and published file, rendered from the records -> build/rendered/
    nox -s docs         every claim on CPU, then render, then mkdocs build --strict (from build/rendered/) -> site/
    nox -s speed        time the environment, docs, tests and browser runs -> results/speed-cpu.json
    nox -s serve        live preview on http://127.0.0.1:8000 (reloads on page or snippet edits; a prose edit
                        re-renders that page alone)
    nox -s lint         ruff format --check and ruff check
    nox -s check -- F   self-check a hands-on exercise file F (docs/module/exercise.md)
    nox -s browser      build the site, then test it in headless Chromium (browser_tests/)
    nox -s lighthouse   Lighthouse performance budget on every page of a built site (serial)
    nox -s bench        benchmark sweeps on CPU       -> results/bench-cpu.json (commit it; minutes)

All CPU sessions share one environment, .nox/site, installed from requirements/lock.txt (with uv,
or pip where uv cannot be had) and reinstalled only when that file changes (torch alone is ~700 MB).
Arguments after `--` go to the tool: `nox -s tests -- tests/gradient_highway -x`.

tests and docs reuse a claim test file's passing records while its fingerprint (code and imports,
conftest files, lock, torch, device) is unchanged, and run the rest on every core (pytest-xdist).
An experiment is never run by them: its committed record is reused, or, if its code changed, its claims
fail with the command to run (`nox -s experiments -- tests/<topic>/test_<name>.py`).
`-- --fresh` or SITE_FRESH=1 runs every claim and experiment, and each experiment must reproduce its
committed record within its stated tolerance; CI=true and SITE_PUBLISH=1 always do, except that CI
(SITE_PUBLISH=1) lets an experiment outside this commit's rotation slot rest on a committed record that a
fresh run of a committed tree reproduced as it stands (_pytest_claims; SITE_ROTATION=all runs them all).
SITE_WORKERS=0 runs in one process (default: auto, one worker per core).
"""

from __future__ import annotations

import functools
import hashlib
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nox

ROOT = Path(__file__).resolve().parent
ENV = ROOT / ".nox" / "site"
LOCK = ROOT / "requirements" / "lock.txt"
# What the installers read: LOCK's pins (and PIP) with the sha256 of every file the registry has for each, so
# .nox/site holds exactly the files CI verified (uv and pip both run with --require-hashes). Written by
# `nox -s lock` from LOCK; tests/contract/test_lock_hashes.py holds the two to the same pins.
HASHED = ROOT / "requirements" / "lock-hashed.txt"
PY = ENV / "bin" / "python"
PIP = "pip==26.3"  # the pip inside .nox/site (the lock pins what it installs)

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


def _lock_pin(name: str) -> str:
    """`name==version` as requirements/lock.txt pins it."""
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if line.lower().startswith(f"{name}=="):
            return line.strip()
    raise RuntimeError(f"{name} is not pinned in {LOCK.relative_to(ROOT)}")


def _uv(session: nox.Session | None = None) -> list[str] | None:
    """A uv to build environments with: on PATH, else in nox's own Python, else pip-installed there
    (at the lock's pin). None where it cannot be had: the caller falls back to pip."""
    if os.environ.get("SITE_INSTALLER") == "pip":
        return None
    probe = [sys.executable, "-m", "uv", "--version"]
    if subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return [sys.executable, "-m", "uv"]
    if shutil.which("uv"):
        return ["uv"]
    pin = _lock_pin("uv")
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", pin], capture_output=True, text=True)
    if out.returncode == 0 and subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return [sys.executable, "-m", "uv"]
    if session is not None:
        session.warn(f"could not install {pin} ({out.stderr.strip()[-200:]}); building the environment with pip")
    return None


def _pip_sources(python: str) -> list[str]:
    """pip's configured indexes and find-links (pip.conf, PIP_* variables) as uv options: both installers
    must see the same wheels (a machine may keep its torch wheel in a local find-links folder)."""
    out = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False)
    options: list[str] = []
    for line in out.stdout.splitlines():
        key, _, value = line.partition("=")
        name = key.rsplit(".", 1)[-1]
        flag = {"index-url": "--index-url", "extra-index-url": "--extra-index-url", "find-links": "--find-links"}
        if name in flag:
            for item in value.strip("'\"").split():
                if [flag[name], item] != options[-2:] and item not in options:
                    options += [flag[name], item]
    return options


def build_env(env: Path, installer: str, run: Any, *, cache: bool = True) -> None:
    """Create `env` and install requirements/lock-hashed.txt into it with `installer` ("uv" or "pip"): the lock's
    pins and pip's, each file checked against its recorded sha256 (a file that differs stops the install)."""
    base = _base_python()
    py = str(env / "bin" / "python")
    if installer == "uv":
        uv = _uv()
        if uv is None:
            raise RuntimeError("uv is not available")
        no_cache = [] if cache else ["--no-cache"]
        if not Path(py).exists():  # an existing environment is updated in place (it may be in use)
            run(*uv, "venv", "-q", *no_cache, "--python", base, str(env))
        sources = [*_pip_sources(base), "--index-strategy", "unsafe-best-match"]  # pip's rule across indexes
        run(*uv, "pip", "install", "-q", *no_cache, "--python", py, *sources, "--require-hashes", "-r", str(HASHED))
    else:
        no_cache = [] if cache else ["--no-cache-dir"]
        if not Path(py).exists():
            run(base, "-m", "venv", str(env))
        run(py, "-m", "pip", "install", "-q", *no_cache, "--require-hashes", "-r", str(HASHED))


def site_env(session: nox.Session) -> Path:
    """Create or refresh .nox/site from the lock file (with uv where it can be had, else pip); return its python.

    One shared environment, reinstalled only when requirements/lock.txt changes.
    """
    stamp = ENV / ".lock-sha256"
    want = hashlib.sha256(LOCK.read_bytes() + HASHED.read_bytes()).hexdigest()
    if PY.exists() and stamp.exists() and stamp.read_text() == want:
        return PY
    installer = "uv" if _uv(session) else "pip"
    session.log(f"building {ENV.relative_to(ROOT)} from {LOCK.relative_to(ROOT)} with {installer}")
    build_env(ENV, installer, functools.partial(session.run_install, external=True))  # runs under --install-only too
    stamp.write_text(want)
    return PY


def _fresh(session: nox.Session) -> tuple[list[str], list[str]]:
    """Split `--fresh` off the session's arguments: (pytest flags it means, the other arguments)."""
    rest = [a for a in session.posargs if a != "--fresh"]
    return (["--fresh"] if len(rest) != len(session.posargs) else []), rest


def _pytest_claims(session: nox.Session, py: Path, args: list[str], fresh: list[str]) -> None:
    """Run claims with reuse (unless fresh) on every core (SITE_WORKERS=0 runs them in one process).

    CI (SITE_PUBLISH=1, .ci/run) runs every claim that is not an experiment fresh, and of the experiments those in
    this commit's slot of the rotation plus every one whose committed record no fresh run of a committed tree has
    reproduced as it stands (a record a submission adds or changes); the others rest on their committed records
    (sitekit.experiments.due). SITE_ROTATION=all runs every experiment fresh."""
    workers = os.environ.get("SITE_WORKERS", "auto")
    parallel = [] if workers == "0" else ["-n", workers, "--dist", "loadfile"]
    rotation = []
    if os.environ.get("SITE_PUBLISH") == "1" and os.environ.get("SITE_ROTATION") != "all":
        rotation = ["--experiment-rotation", _experiment_turn("fresh")]
    session.run(
        str(py), "-m", "pytest", "--device", "cpu", "--reuse", *fresh, *rotation, *parallel, *args, external=True
    )


_CLAIMS_RAN: list[bool] = []  # `nox -s tests docs` runs the claims once, in `tests`


def claim_dirs() -> list[str]:
    """The topics' test folders (tests/<topic>/ beside snippets/<topic>/): the claims, not the contract tests."""
    return sorted(
        f"tests/{d.name}" for d in (ROOT / "tests").iterdir() if d.is_dir() and (ROOT / "snippets" / d.name).is_dir()
    )


@nox.session
def tests(session: nox.Session) -> None:
    """Run the contract tests and the CPU claims whose fingerprint changed (all with `-- --fresh`)."""
    py = site_env(session)
    fresh, args = _fresh(session)
    try:
        _pytest_claims(session, py, args or ["tests"], fresh)
    finally:  # failed or not, they ran: `docs` builds from this run's records (and refuses failed ones) at once
        _CLAIMS_RAN.append(not args)


HELD_OUT = {  # CI's second condition: seeds no threshold was set against, torch's scalar kernels, one thread
    "SITE_SEEDS": "held-out",
    "ATEN_CPU_CAPABILITY": "default",
    "SITE_THREADS": "1",
}


# Commits per rotation (experiments fresh and held-out, notebook replays): sitekit/rotations.py says why.
_ROTATIONS = runpy.run_path(str(ROOT / "sitekit" / "rotations.py"))
NOTEBOOK_ROTATION: int = _ROTATIONS["NOTEBOOKS"]
GROUPS: int = _ROTATIONS["GROUPS"]


def _commit_count() -> int:
    out = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False)
    return int(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip().isdigit() else 0


def _rotation_slot(k: int) -> str:
    """`I/K`: slot I = commit count mod K of a K-slot rotation (the notebooks' replays)."""
    return f"{_commit_count() % k}/{k}"


def _experiment_turn(condition: str) -> str:
    """`G/GROUPS` when this commit's CI run carries experiment group G under `condition` ("fresh" or "heldout"),
    else `none` (sitekit/rotations.py: one group a run, fresh and held-out in alternate runs)."""
    taken, group = _ROTATIONS["turn"](_commit_count())
    return f"{group}/{GROUPS}" if taken == condition else "none"


@nox.session
def experiments(session: nox.Session) -> None:
    """Run every experiment fresh on the tuned seeds -> results/experiments-cpu.json (commit it).

    `-- tests/<topic>/test_<name>.py` runs one. Records also go to results/cpu.json, so the pages show them.
    """
    py = site_env(session)
    workers = os.environ.get("SITE_WORKERS", "auto")
    parallel = [] if workers == "0" else ["-n", workers, "--dist", "loadfile"]
    args = session.posargs or claim_dirs()
    session.run(str(py), "-m", "pytest", "--device", "cpu", "--experiments", *parallel, *args, external=True)


@nox.session
def heldout(session: nox.Session) -> None:
    """Every claim again, fresh, under a second condition: held-out seeds, scalar kernels, one thread.

    Its records go to .nox/heldout/ (never results/cpu.json, which the pages are built from), and it
    prints the thinnest margins. `-- --seeds 12345` tries another seed set; CI runs it after `docs`.
    The experiments (minutes each) run in rotation: a commit whose CI run carries its experiment group under this
    condition (sitekit/rotations.py: odd commit counts) runs that group, others run none, so every experiment file
    meets the held-out condition once in HELD_OUT commits (SITE_ROTATION=all runs them all;
    `-- --experiment-slot I/K` picks a group, `none` none).
    """
    py = site_env(session)
    out = ROOT / ".nox" / "heldout"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    session.env.update(HELD_OUT, SITE_RESULTS_DIR=str(out), SITE_FRESH="1")
    workers = os.environ.get("SITE_WORKERS", "auto")
    parallel = [] if workers == "0" else ["-n", workers, "--dist", "loadfile"]
    paths = [a for a in session.posargs if not a.startswith("-") and (ROOT / a.split("::")[0]).exists()]
    args = session.posargs if paths else [*claim_dirs(), *session.posargs]  # `-- --seeds 12345` keeps every topic
    if os.environ.get("SITE_ROTATION") != "all" and not any(a.startswith("--experiment-slot") for a in args):
        args = ["--experiment-slot", _experiment_turn("heldout"), *args]
    session.run(str(py), "-m", "pytest", "--device", "cpu", "-p", "no:cacheprovider", *parallel, *args, external=True)


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


@nox.session
def render(session: nox.Session) -> None:
    """Render the site from the recorded claims into build/rendered/ (sitekit/site_render.py): every page as plain
    Markdown + HTML, the figures, notebooks, listing sources, published and static files, after every check of
    the strict build (SITE_ALLOW_STALE=1: problems are warnings). MkDocs builds from that folder, its hook
    rendering nothing (`docs`); so does Zensical (`zensical`). Nothing to do when the inputs are those of the
    last complete render. Run `tests` first: it reads results/cpu.json.
    """
    py = site_env(session)
    session.run(str(py), "-m", "sitekit.site_render", external=True)


@nox.session
def docs(session: nox.Session) -> None:
    """Run the CPU claims whose fingerprint changed (`-- --fresh`: all), render the pages into build/rendered/,
    then build site/ from them strictly (MkDocs renders nothing again: the inputs are those just rendered)."""
    py = site_env(session)
    fresh, args = _fresh(session)
    if not any(_CLAIMS_RAN):  # after `nox -s tests` in the same call, the claims have just run
        _pytest_claims(session, py, claim_dirs(), fresh)
    session.run(str(py), "-m", "sitekit.site_render", external=True)
    session.run(str(py), "-m", "mkdocs", "build", "--strict", *args, external=True)
    hint = lint_hint(py)
    if hint:
        session.warn(hint)


def lint_hint(py: Path, root: Path = ROOT) -> str | None:
    """One line when `nox -s lint` would fail: the files, and the commands that fix them (None when clean).

    `docs` stays green for it (CI's first step, `nox -s lint`, fails instead); a contributor learns it here."""
    ruff = [str(py), "-m", "ruff"]
    files: set[str] = set()
    fmt = subprocess.run([*ruff, "format", "--check", "--quiet", "."], cwd=root, capture_output=True, text=True)
    for line in fmt.stdout.splitlines():  # "Would reformat: path"
        if line.startswith("Would reformat: "):
            files.add(line.removeprefix("Would reformat: ").strip())
    check = subprocess.run(
        [*ruff, "check", "--quiet", "--output-format", "concise", "."], cwd=root, capture_output=True, text=True
    )
    for line in check.stdout.splitlines():  # "path:line:col: CODE message"
        if ":" in line and not line.startswith(" "):
            files.add(line.split(":", 1)[0])
    if fmt.returncode == 0 and check.returncode == 0:
        return None
    named = ", ".join(sorted(files)) or "(ruff named none)"
    py = py.relative_to(ROOT) if py.is_relative_to(ROOT) else py
    return (
        f"lint would fail (CI's first step) in {named}; fix: "
        f"{py} -m ruff format . && {py} -m ruff check --fix . (then `nox -s lint`)"
    )


ZENSICAL = ROOT / "requirements" / "zensical.txt"


@nox.session
def zensical(session: nox.Session) -> None:
    """Build the rendered pages (build/rendered/, which `render` and `docs` write) with a pinned Zensical as well,
    and compare the two sites page by page: visible text, headings, figures, receipts (scripts/zensical_build.py).

    Zensical runs no MkDocs hooks or plugins, so it builds what the pipeline rendered; run `docs` first.
    """
    py = site_env(session)
    env = ROOT / ".nox" / "zensical"
    stamp, want = env / ".pins-sha256", hashlib.sha256(ZENSICAL.read_bytes()).hexdigest()
    if not (stamp.exists() and stamp.read_text() == want):
        shutil.rmtree(env, ignore_errors=True)
        session.run_install(_base_python(), "-m", "venv", str(env), external=True)
        session.run_install(str(env / "bin" / "python"), "-m", "pip", "install", "-q", PIP, external=True)
        session.run_install(
            str(env / "bin" / "python"), "-m", "pip", "install", "-q", "-r", str(ZENSICAL), external=True
        )
        stamp.write_text(want)
    site = os.environ.get("SITE_DIR", "site")
    session.run(
        str(py), "scripts/zensical_build.py", "--zensical", str(env / "bin" / "zensical"), "--site", site, external=True
    )


@nox.session
def notebooks(session: nox.Session) -> None:
    """Run every page's notebook script from the built site (`docs` first) as a reader would, and compare what
    it prints with the run that built the page (sitekit/notebook_check.py). The experiments' calls take their
    turn in the held-out rotation (SITE_ROTATION=all or `-- --all` runs every call)."""
    py = site_env(session)
    chosen = ["--all"] if os.environ.get("SITE_ROTATION") == "all" else ["--slot", _rotation_slot(NOTEBOOK_ROTATION)]
    site = os.environ.get("SITE_DIR", "site")
    session.run(str(py), "-m", "sitekit.notebook_check", "--site", site, *chosen, *session.posargs, external=True)


@nox.session
def serve(session: nox.Session) -> None:
    """Live preview; problems show on the page instead of stopping the server.

    `mkdocs serve --dirty` watches docs/ and what pages are rendered from; before each rebuild the hook renders
    into build/rendered/ what an edit touched (a prose edit: that page alone, so MkDocs rebuilds it alone;
    anything else: every page), sitekit/site_render.py and sitekit/preview.py.
    """
    py = site_env(session)
    if not (ROOT / "results" / "cpu.json").exists():
        _pytest_claims(session, py, ["tests"], [])
    session.env["SITE_ALLOW_STALE"] = "1"
    args = session.posargs or ["-a", "127.0.0.1:8000"]
    session.run(str(py), "-m", "mkdocs", "serve", "--no-strict", "--dirty", *args, external=True)


@nox.session
def browser(session: nox.Session) -> None:
    """Build the site from the recorded claims, then drive it in Debian's Chromium (browser_tests/).

    Needs a `chromium` on PATH (or SITE_CHROMIUM); as root it runs `apt-get install chromium` itself.
    The Lighthouse budget runs in its own session, `nox -s lighthouse` (serially: it times the main thread).
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
    site = os.environ.get("SITE_DIR")
    if not site:
        if not (ROOT / "results" / "cpu.json").exists():
            _pytest_claims(session, py, ["tests"], [])
        site = str(ROOT / ".nox" / "browser-site")
        shutil.rmtree(site, ignore_errors=True)
        session.run(str(py), "-m", "mkdocs", "build", "--strict", "-q", "-d", site, external=True)
    session.env["SITE_DIR"] = str(Path(site).resolve())
    workers = os.environ.get("SITE_WORKERS", "auto")  # one Chromium per worker; a page's tests stay together
    parallel = [] if workers == "0" else ["-n", workers]
    lighthouse = ["--ignore", "browser_tests/test_lighthouse.py"]
    session.run(str(py), "-m", "pytest", *parallel, *lighthouse, "browser_tests", *session.posargs, external=True)


@nox.session
def lighthouse(session: nox.Session) -> None:
    """Lighthouse 12 (mobile, simulated throttling) on every built page; fails below the budget.

    Needs Node.js 18.20+ with npm and Debian's chromium; runs `npm ci` (Lighthouse, pinned in
    package-lock.json) when node_modules/ is missing or older. SITE_DIR=<a built site>, else site/.
    Serial on purpose: a second Chromium on the same cores inflates the blocking time it measures.
    Not in CI: on a busy machine a page can miss all its audits by chance; run it before publishing.
    """
    py = site_env(session)
    npm_state = ROOT / "node_modules" / ".package-lock.json"  # written by npm ci
    if not npm_state.exists() or npm_state.stat().st_mtime < (ROOT / "package-lock.json").stat().st_mtime:
        if not shutil.which("npm"):
            session.error("the Lighthouse test needs Node.js 18.20+ with npm (Debian: `apt-get install nodejs npm`).")
        session.run("npm", "ci", "--no-audit", "--no-fund", external=True)  # Lighthouse, from package-lock.json
    site = Path(os.environ.get("SITE_DIR") or ROOT / "site")
    if not (site / "index.html").is_file():
        session.error(f"no built site at {site}: run `nox -s docs` first, or set SITE_DIR to a built site")
    session.env["SITE_DIR"] = str(site.resolve())
    session.run(str(py), "-m", "pytest", "browser_tests/test_lighthouse.py", *session.posargs, external=True)


@nox.session
def bench(session: nox.Session) -> None:
    """Run the benchmark sweeps (benchmarks/) on CPU; commit results/bench-cpu.json for the costs page."""
    py = site_env(session)
    args = session.posargs or ["benchmarks"]
    session.run(
        str(py), "-m", "pytest", "--device", "cpu", "--benchmark-enable", "--timeout", "1800", *args, external=True
    )


CHECK_SCRIPT = "snippets/exercise/check.py"  # the file the exercise page offers as check_exercise.py


@nox.session
def check(session: nox.Session) -> None:
    """Self-check a learner's exercise file: `nox -s check -- path/to/exercise_residual.py`."""
    py = site_env(session)
    if not session.posargs:
        session.error("give your exercise file: nox -s check -- path/to/exercise_residual.py")
    path, *rest = session.posargs
    path = str(Path(session.invoked_from, path))  # relative to where nox was run, not to ROOT
    session.run(str(py), str(ROOT / CHECK_SCRIPT), path, *rest, external=True)


@nox.session
def deps(session: nox.Session) -> None:
    """`-- FILE [FILE ...]`: the claims and experiments whose fingerprint covers each file, their recorded run
    times, and the one command that re-verifies them all (sitekit/deps.py; seconds, nothing is run)."""
    py = site_env(session)
    files = [str(Path(session.invoked_from, f)) for f in session.posargs]  # relative to where nox was run
    session.run(str(py), "-m", "sitekit.deps", *files, external=True)


@nox.session
def lint(session: nox.Session) -> None:
    """Formatting and lint checks (ruff)."""
    py = site_env(session)
    session.run(str(py), "-m", "ruff", "format", "--check", ".", external=True)
    session.run(str(py), "-m", "ruff", "check", ".", *session.posargs, external=True)


@nox.session
def lock(session: nox.Session) -> None:
    """Re-resolve requirements/lock.txt from pyproject's dependency groups, then hash it into
    requirements/lock-hashed.txt (needs the registry and uv). `-- --hashes` only hashes the lock as it stands."""
    if "--hashes" in session.posargs:
        uv = _uv(session)
        if uv is None:
            session.error("hashing the lock needs uv (pip install uv, or the lock's pin of it)")
        hash_lock(session, uv)
        return
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
    uv = _uv(session)
    if uv is None:
        session.error("hashing the lock needs uv (pip install uv, or the lock's pin of it)")
    hash_lock(session, uv)


def hash_lock(session: nox.Session, uv: list[str]) -> None:
    """Write HASHED: LOCK's pins and PIP, each with the sha256 of every file the registry has for that release."""
    pins = ROOT / ".nox" / "lock-pins.txt"
    pins.write_text(LOCK.read_text(encoding="utf-8") + PIP + "\n", encoding="utf-8")
    version = subprocess.run(
        [_base_python(), "-c", "import platform; print(platform.python_version())"], capture_output=True, text=True
    ).stdout.strip()
    # The registry itself (every file of each release, so any machine's pick is covered; a mirror pip.conf names
    # may hold only this machine's wheel) and the machine's find-links folders, where torch's CPU wheel lies.
    found = _pip_sources(_base_python())
    local = [found[i + 1] for i in range(0, len(found) - 1, 2) if found[i] == "--find-links"]
    sources = [*(x for path in local for x in ("--find-links", path)), "--index-strategy", "unsafe-best-match"]
    head = "# requirements/lock.txt's pins with each file's sha256, from `nox -s lock`; installed with --require-hashes"
    session.run(
        *uv, "pip", "compile", "-q", str(pins), "--generate-hashes", "--no-annotate", "--no-header",
        "--python-version", version, *sources, "-o", str(HASHED), external=True,
    )  # fmt: skip
    HASHED.write_text(head + "\n" + HASHED.read_text(encoding="utf-8"), encoding="utf-8")


@nox.session
def speed(session: nox.Session) -> None:
    """Time a contributor's waits side by side on this machine -> results/speed-cpu.json (about half an hour).

    Cold environment with uv against pip; `nox -s docs` fresh, warm, after a prose edit and after a snippet
    edit; `nox -s tests` and the browser suite in one process against every core. Then CONTRIBUTING.md's
    table is rewritten from the record (`-- --table` rewrites only the table).
    """
    py = site_env(session)
    session.run(str(py), "scripts/speed.py", *session.posargs, external=True)
