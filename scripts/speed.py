"""How long a contributor waits, measured side by side on this machine -> results/speed-cpu.json.

`nox -s speed` runs this (minutes: it builds two environments and runs the suites several times). On
a scratch copy of the tree (the real one is never edited), it times:

- the environment: requirements/lock.txt installed into an empty folder by uv and by pip, no caches;
- a newcomer's first `nox -s docs` on a copy of the tree without CPU records: every claim runs except the
  experiments, whose committed records (results/experiments-cpu.json) are reused;
- `nox -s docs`: fresh (every claim and every experiment), again with nothing changed, after a prose-only
  page edit, and after editing one snippet (and checks that only the claims depending on it ran again);
- `nox -s experiments`: every experiment, fresh (written to a scratch copy of the committed records; with
  `-- --only=experiments --in-place` in the tree itself, so the timed run also writes the committed records);
- `.ci/run` as a whole, read from a CI log (`-- --ci-log=FILE`: its `ci: all steps took N s` line);
- the live preview (`nox -s serve`, which is `mkdocs serve --dirty`): from saving a one-sentence edit of a page
  to the served page showing it, five edits, the median (the samples are kept);
- `nox -s tests -- --fresh` in one process and on every core;
- the browser suite against the built site in one process and on every core.

`python scripts/speed.py --table` rewrites the table in CONTRIBUTING.md from the record; the
contract tests check that the two agree, so the table is never typed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitekit import claims  # noqa: E402

RECORD = ROOT / "results" / "speed-cpu.json"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
START = "<!-- speed-table:start (scripts/speed.py writes it from results/speed-cpu.json) -->"
END = "<!-- speed-table:end -->"
PROSE_PAGE = "docs/module/index.md"
SNIPPET = "snippets/gradient_highway/add_node.py"
TARGETS = {  # ratio: at most
    "docs after a prose-only edit / fresh docs": ("docs_prose", "docs_fresh", 0.10),
    "parallel tests / serial tests": ("tests_parallel", "tests_serial", 0.65),
    "parallel browser suite / serial": ("browser_parallel", "browser_serial", 0.60),
    "uv environment / pip environment": ("env_uv", "env_pip", 0.40),
}
BUDGETS = {  # step: at most (seconds, on 2 cores), the budgets the project promises
    "docs_first": 150,
    "preview_prose": 2,
    "experiments": 25 * 60,
    "ci_run": 45 * 60,
}
CI_PART = re.compile(r"^ci: (.+?) took (\d+) s$", re.M)
CI_TOTAL = re.compile(r"ci: all steps took (\d+) s")
SUMMARY = re.compile(r"claims: (\d+) reused from their last run[^,]*, passed\), (\d+) re-run(?:: (.*))?")
PASSED = re.compile(r"(\d+) passed")


def say(message: str) -> None:
    print(f"speed: {message}", flush=True)


def cpu_ticks() -> tuple[int, int] | None:
    """(busy, all) CPU ticks of the whole machine since boot, from /proc/stat (None off Linux)."""
    stat = Path("/proc/stat")
    if not stat.is_file():
        return None
    user, nice, system, idle, iowait, irq, softirq, steal = map(int, stat.read_text().split()[1:9])
    return user + nice + system + irq + softirq + steal, user + nice + system + idle + iowait + irq + softirq + steal


@contextlib.contextmanager
def clock() -> Iterator[dict[str, Any]]:
    """Time the block: the dict it yields gets `seconds` (wall) and `busy_cores` (the machine's average
    number of busy cores meanwhile; None off Linux) when the block ends."""
    ticks, start = cpu_ticks(), time.perf_counter()
    took: dict[str, Any] = {}
    yield took
    took["seconds"] = round(time.perf_counter() - start, 1)
    after = cpu_ticks()
    took["busy_cores"] = (
        round((os.cpu_count() or 1) * (after[0] - ticks[0]) / (after[1] - ticks[1]), 2)
        if ticks and after and after[1] > ticks[1]
        else None
    )


def run(cmd: list[str], cwd: Path, **env: str) -> tuple[dict[str, Any], str]:
    """Run `cmd`; return its clock() reading and its log. Stop with the log's tail if it fails."""
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "SITE_FRESH", "SITE_PUBLISH", "SITE_WORKERS")}
    with clock() as took:
        out = subprocess.run(cmd, cwd=cwd, env={**base, **env}, capture_output=True, text=True, check=False)
    log = out.stdout + out.stderr
    if out.returncode != 0:
        raise SystemExit(f"speed: `{' '.join(cmd)}` failed ({out.returncode}) in {cwd}:\n{log[-6000:]}")
    return took, log


def copy_tree(dest: Path) -> Path:
    """The repository without git, environments, builds or CPU records; .nox links to the shared one."""
    skip = shutil.ignore_patterns(".git", ".nox", "site", "screenshots", "__pycache__", ".*_cache", "build", "cpu.json")
    shutil.copytree(ROOT, dest, ignore=skip, symlinks=True)
    (dest / ".nox").symlink_to(ROOT / ".nox")
    return dest


def claims_line(log: str) -> dict[str, Any]:
    """What the run said it reused and re-ran (the plugin's `claims:` line)."""
    found = SUMMARY.findall(log)
    if not found:
        return {}
    reused, rerun, why = found[-1]
    return {"claims_reused": int(reused), "claims_rerun": int(rerun), "why": why or ""}


def step(name: str, took: dict[str, Any], command: str, log: str = "") -> dict[str, Any]:
    passed = PASSED.findall(log)
    entry = {**took, "command": command, **claims_line(log)}
    if passed:
        entry["tests_passed"] = int(passed[-1])
    say(f"{name}: {took['seconds']} s ({command})")
    return entry


def dependents(snippet: str, results: Path) -> int:
    """How many claims recorded in `results` depend on `snippet` (their fingerprint's code includes it)."""
    before = os.environ.get("SITE_RESULTS_DIR")
    os.environ["SITE_RESULTS_DIR"] = str(results)
    try:
        recorded, _ = claims.load("cpu")
    finally:
        if before is None:
            del os.environ["SITE_RESULTS_DIR"]
        else:
            os.environ["SITE_RESULTS_DIR"] = before
    target = ROOT / snippet
    files = {c.test.split("::")[0] for c in recorded.values()}
    hit = {f for f in files if (ROOT / f).is_file() and target in claims.code_files(ROOT / f)}
    return sum(c.test.split("::")[0] in hit for c in recorded.values())


# The order they run in; `-- --only=docs,env` runs some.
GROUPS = ("env", "first", "experiments", "docs", "preview", "browser", "tests")


def load_record() -> dict[str, Any]:
    if RECORD.is_file():
        return json.loads(RECORD.read_text(encoding="utf-8"))
    return {"schema": 1, "steps": {}}


def save(name: str, entry: dict[str, Any], began: dict[str, Any]) -> None:
    """Add one measured step to the record at once (a long session that stops keeps what it measured)."""
    record = load_record()
    entry["when"] = {**began, "load_average_after": [round(x, 2) for x in os.getloadavg()]}
    record["steps"][name] = entry
    record["machine"] = machine()
    record["ratios"] = ratios(record["steps"], record["machine"]["cores"])
    RECORD.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def measure(groups: list[str]) -> None:
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="site-speed-") as scratch:
        tmp = Path(scratch)
        tree = copy_tree(tmp / "tree")
        nox = [py, "-m", "nox", "-f", str(tree / "noxfile.py")]

        def timed(name: str, cmd: list[str], shown: str, cwd: Path = tree, **env: str) -> None:
            began = started()
            took, log = run(cmd, cwd, **env)
            save(name, step(name, took, shown, log), began)

        if "env" in groups:
            import noxfile  # the same code that builds .nox/site

            def quiet(*cmd: str) -> None:
                run(list(cmd), tmp)

            for installer in ("uv", "pip"):
                began = started()
                with clock() as took:
                    noxfile.build_env(tmp / f"env-{installer}", installer, quiet, cache=False)
                shown = f"requirements/lock.txt into an empty folder with {installer}, no cache"
                save(f"env_{installer}", step(f"env_{installer}", took, shown), began)
                shutil.rmtree(tmp / f"env-{installer}")

        if "first" in groups:  # before anything else writes CPU records into the copy
            timed("docs_first", [*nox, "-s", "docs"], "nox -s docs on a fresh clone (experiments reused)")
        if "experiments" in groups:
            if IN_PLACE[0]:  # `-- --in-place`: the real tree, so the run also writes the committed records
                here = [py, "-m", "nox", "-f", str(ROOT / "noxfile.py")]
                timed("experiments", [*here, "-s", "experiments"], "nox -s experiments (every experiment, fresh)", ROOT)
            else:
                timed("experiments", [*nox, "-s", "experiments"], "nox -s experiments (every experiment, fresh)")
        if "docs" in groups or "browser" in groups:
            timed("docs_fresh", [*nox, "-s", "docs", "--", "--fresh"], "nox -s docs -- --fresh")
        if "docs" in groups:
            timed("docs_warm", [*nox, "-s", "docs"], "nox -s docs (nothing changed)")
            with open(tree / PROSE_PAGE, "a", encoding="utf-8") as f:
                f.write("\nA sentence added to time a rebuild after a prose edit.\n")
            timed("docs_prose", [*nox, "-s", "docs"], f"nox -s docs after editing {PROSE_PAGE}")
            with open(tree / SNIPPET, "a", encoding="utf-8") as f:
                f.write("# edited to time a rebuild after a snippet edit\n")
            expected = dependents(SNIPPET, tree / "results")
            began = started()
            took, log = run([*nox, "-s", "docs"], tree)
            entry = step("docs_snippet", took, f"nox -s docs after editing {SNIPPET}", log)
            save("docs_snippet", {**entry, "claims_depending": expected}, began)

        if "preview" in groups:
            began = started()
            samples, shown = preview_edits(tree, py)
            took = {"seconds": round(sorted(samples)[len(samples) // 2], 2), "samples": samples, "busy_cores": None}
            save("preview_prose", step("preview_prose", took, shown), began)

        if "browser" in groups:
            site = str(tree / "site")
            shown = "SITE_WORKERS=0 nox -s browser"
            timed("browser_serial", [*nox, "-s", "browser"], shown, SITE_DIR=site, SITE_WORKERS="0")
            timed("browser_parallel", [*nox, "-s", "browser"], "nox -s browser", SITE_DIR=site)

        if "tests" in groups:
            tests = ["--fresh"]
            if not (tree / "results" / "speed-cpu.json").is_file():  # the first measurement has no record yet
                tests += ["--ignore", "tests/contract/test_speed_record.py"]
            shown = f"nox -s tests -- {' '.join(tests)}"
            timed("tests_serial", [*nox, "-s", "tests", "--", *tests], f"SITE_WORKERS=0 {shown}", SITE_WORKERS="0")
            timed("tests_parallel", [*nox, "-s", "tests", "--", *tests], shown)


PREVIEW_EDITS = 5
PREVIEW_URL = "module/"  # where PROSE_PAGE is served


def preview_edits(tree: Path, py: str) -> tuple[list[float], str]:
    """Seconds from saving a one-sentence edit of PROSE_PAGE to `mkdocs serve --dirty` serving it, per edit.

    The server runs as `nox -s serve` runs it, on the copy, from this tree's CPU records (no claim runs);
    each edit adds a sentence with a new word, and the page is fetched every 50 ms until the word is there.
    """
    import socket
    import urllib.request

    records = ROOT / "results" / "cpu.json"
    if records.is_file():
        shutil.copyfile(records, tree / "results" / "cpu.json")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "SITE_ALLOW_STALE": "1", "NO_MKDOCS_2_WARNING": "1", "PYTHONUNBUFFERED": "1"}
    cmd = [str(ROOT / ".nox" / "site" / "bin" / "python"), "-m", "mkdocs", "serve", "--no-strict", "--dirty"]
    cmd += ["-a", f"127.0.0.1:{port}"]
    server = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []

    def wait_for(text: str, timeout: float) -> str:
        end = time.monotonic() + timeout
        assert server.stdout is not None
        while time.monotonic() < end:
            line = server.stdout.readline()
            if not line:
                break
            lines.append(line)
            if text in line:
                return line
        raise SystemExit(f"speed: no {text!r} from mkdocs serve:\n{''.join(lines[-30:])}")

    samples: list[float] = []
    try:
        base = wait_for("Serving on", 600).split("Serving on ", 1)[1].strip().rstrip("/")
        threading.Thread(target=lambda: [lines.append(x) for x in server.stdout], daemon=True).start()  # type: ignore[union-attr]
        page = tree / PROSE_PAGE
        for i in range(PREVIEW_EDITS):
            time.sleep(3)  # let the server settle after the last build
            word = f"previewmark{i}x{os.getpid()}"
            saved = time.perf_counter()
            with open(page, "a", encoding="utf-8") as f:
                f.write(f"\nA sentence with the word {word}.\n")
            while word not in urllib.request.urlopen(f"{base}/{PREVIEW_URL}", timeout=30).read().decode():
                if time.perf_counter() - saved > 120:
                    raise SystemExit(f"speed: the preview did not show an edit in 120 s:\n{''.join(lines[-30:])}")
                time.sleep(0.05)
            samples.append(round(time.perf_counter() - saved, 2))
            say(f"preview: edit {i + 1} shown after {samples[-1]} s")
    finally:
        server.terminate()
        server.wait(timeout=30)
    return samples, f"mkdocs serve --dirty: a prose edit of {PROSE_PAGE} until served (median of {PREVIEW_EDITS})"


def started() -> dict[str, Any]:
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
        or None,
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }


def machine() -> dict[str, Any]:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
            if line.startswith("model name")
        ),
        platform.machine(),
    )
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(), "torch": claims.torch_version()}


PARALLEL = {"tests_parallel": "tests_serial", "browser_parallel": "browser_serial"}


def floor(serial: dict[str, Any], cores: int) -> float | None:
    """The least parallel/serial ratio the same work allows on `cores` cores: the serial run's busy
    core-seconds spread over every core (a serial run that already keeps more than one core busy, as
    Chromium does, leaves less to gain). Machine-wide: other jobs count as busy too."""
    busy = serial.get("busy_cores")
    return None if busy is None else round(min(busy, cores) / cores, 3)


def ratios(steps: dict[str, dict[str, Any]], cores: int) -> dict[str, dict[str, Any]]:
    """The targets' ratios, for the pairs measured so far (with the floor for parallel/serial pairs)."""
    out: dict[str, dict[str, Any]] = {}
    for name, (num, den, limit) in TARGETS.items():
        if num in steps and den in steps:
            ratio = round(steps[num]["seconds"] / steps[den]["seconds"], 3)
            out[name] = {"ratio": ratio, "target": limit, "met": ratio <= limit}
            if PARALLEL.get(num) == den and (least := floor(steps[den], cores)) is not None:
                out[name]["floor"] = least
    for name, limit in BUDGETS.items():
        if name in steps:
            out[f"{name} seconds / budget"] = {
                "ratio": round(steps[name]["seconds"] / limit, 3),
                "target": 1.0,
                "met": steps[name]["seconds"] <= limit,
            }
    snippet = steps.get("docs_snippet")
    if snippet is not None:
        out["claims re-run after one snippet edit / claims depending on it"] = {
            "ratio": f"{snippet.get('claims_rerun')}/{snippet['claims_depending']}",
            "target": "equal",
            "met": snippet.get("claims_rerun") == snippet["claims_depending"],
        }
    return out


ROWS = [  # step, label
    ("env_uv", "environment from the lock with uv (no cache)"),
    ("env_pip", "environment from the lock with pip (no cache)"),
    ("docs_first", "a newcomer's first `nox -s docs` (a fresh clone: every claim but the experiments, then the build)"),
    ("experiments", "`nox -s experiments` (every experiment, fresh)"),
    ("ci_run", "`.ci/run` on a clean clone (every claim and experiment fresh, held-out, build, browser)"),
    ("docs_fresh", "`nox -s docs -- --fresh` (every claim and experiment, then the build)"),
    ("docs_warm", "`nox -s docs`, nothing changed"),
    ("docs_prose", "`nox -s docs` after a prose-only page edit"),
    ("docs_snippet", f"`nox -s docs` after editing `{SNIPPET}`"),
    ("preview_prose", "`nox -s serve`: a prose edit until the page shows it (median of 5)"),
    ("tests_serial", "`nox -s tests -- --fresh` in one process"),
    ("tests_parallel", "`nox -s tests -- --fresh` on every core"),
    ("browser_serial", "browser suite in one process"),
    ("browser_parallel", "browser suite on every core"),
]
COMPARED = {"env_uv": "env_pip", "docs_warm": "docs_fresh", "docs_prose": "docs_fresh", "docs_snippet": "docs_fresh"}
COMPARED |= PARALLEL


def table(record: dict[str, Any]) -> str:
    """CONTRIBUTING's table, from the record (steps not measured yet say so)."""
    s, m = record["steps"], record["machine"]
    rows = [
        "| step | wall time | cores busy | claims run / reused | compared | when (load average at the start) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for key, label in ROWS:
        e = s.get(key)
        if e is None:
            rows.append(f"| {label} | not measured yet | | | | |")
            continue
        ran = f"{e['claims_rerun']} / {e['claims_reused']}" if "claims_rerun" in e else ""
        if key == "docs_snippet":
            ran += f" ({e['claims_depending']} depend{'s' if e['claims_depending'] == 1 else ''} on the snippet)"
        other = COMPARED.get(key)
        share = f"{e['seconds'] / s[other]['seconds']:.0%} of {other}" if other in s else ""
        if PARALLEL.get(key) == other and other in s and (least := floor(s[other], m["cores"])) is not None:
            share += f" (floor {least:.0%})"
        busy = "" if e.get("busy_cores") is None else f"{e['busy_cores']:g}"
        when = e["when"]
        load = ", ".join(f"{x:g}" for x in when["load_average_before"])
        rows.append(f"| {label} | {e['seconds']:g} s | {busy} | {ran} | {share} | {when['date'][:16]} ({load}) |")
    head = (
        f"Measured by `nox -s speed` on {m['cpu']} ({m['cores']} cores, torch {m['torch']}), one run of each "
        "step, on a machine shared with other jobs: the load average (runnable processes, here on "
        f'{m["cores"]} cores) says how crowded it was, and parallel speed-ups need idle cores. "Cores busy" is '
        "the machine's average over the step (from /proc/stat, other jobs included). A parallel run's floor is "
        "its serial run's busy cores spread over every core: the least share of the serial time the same work "
        "can take here."
    )
    return head + "\n\n" + "\n".join(rows)


def write_table(record: dict[str, Any]) -> None:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{CONTRIBUTING.name}: put {START} and {END} where the table goes")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    CONTRIBUTING.write_text(f"{before}{START}\n{table(record)}\n{END}{after}", encoding="utf-8")


def record_ci(log: Path) -> None:
    """Add `.ci/run`'s total from its log (a clean-clone run takes most of an hour: it is not re-run here)."""
    text = log.read_text(encoding="utf-8", errors="replace")
    found = CI_TOTAL.findall(text)
    if not found:
        raise SystemExit(f"speed: {log} has no `ci: all steps took N s` line: give the log of a finished .ci/run")
    stamp = dt.datetime.fromtimestamp(log.stat().st_mtime, dt.UTC).isoformat(timespec="seconds")
    began = started() | {"date": stamp}
    entry = {"seconds": float(found[-1]), "busy_cores": None, "command": f".ci/run (log {log.name})"}
    parts = {name: float(n) for name, n in CI_PART.findall(text) if name != "all steps"}
    if parts:  # the steps .ci/run times itself (the rest of the total: install, lint, Zensical, browser)
        entry["parts"] = parts | {"the rest": round(float(found[-1]) - sum(parts.values()), 1)}
    save("ci_run", entry, began)
    say(f"ci_run: {found[-1]} s (from {log})")


IN_PLACE = [False]


def main() -> None:
    args = sys.argv[1:]
    IN_PLACE[0] = "--in-place" in args
    ci_log = next((a.split("=", 1)[1] for a in args if a.startswith("--ci-log=")), None)
    if ci_log:
        record_ci(Path(ci_log))
    elif "--table" not in args:
        only = next((a.split("=", 1)[1] for a in args if a.startswith("--only=")), ",".join(GROUPS))
        groups = [g for g in GROUPS if g in only.split(",")]
        measure(groups)
        say(f"wrote {RECORD.relative_to(ROOT)}")
        for name, r in load_record()["ratios"].items():
            least = f", floor {r['floor']}" if "floor" in r else ""
            say(f"{name}: {r['ratio']} (target {r['target']}{least}){'' if r['met'] else '  MISSED'}")
    write_table(load_record())
    say(f"wrote the table in {CONTRIBUTING.name}")


if __name__ == "__main__":
    main()
