"""How long a contributor waits, measured side by side on this machine -> results/speed-cpu.json.

`nox -s speed` runs this (minutes: it builds two environments and runs the suites several times). On
a scratch copy of the tree (the real one is never edited), it times:

- the environment: requirements/lock.txt installed into an empty folder by uv and by pip, no caches;
- `nox -s docs`: fresh (every claim), again with nothing changed, after a prose-only page edit, and
  after editing one snippet (and checks that only the claims depending on it ran again);
- `nox -s tests -- --fresh` in one process and on every core;
- the browser suite against the built site in one process and on every core.

`python scripts/speed.py --table` rewrites the table in CONTRIBUTING.md from the record; the
contract tests check that the two agree, so the table is never typed.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
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
SUMMARY = re.compile(r"claims: (\d+) reused from their last run[^,]*, passed\), (\d+) re-run(?:: (.*))?")
PASSED = re.compile(r"(\d+) passed")


def say(message: str) -> None:
    print(f"speed: {message}", flush=True)


def run(cmd: list[str], cwd: Path, **env: str) -> tuple[float, str]:
    """Run `cmd`, return its wall time and log; stop with the log's tail if it fails."""
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "SITE_FRESH", "SITE_PUBLISH", "SITE_WORKERS")}
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env={**base, **env}, capture_output=True, text=True, check=False)
    seconds = round(time.perf_counter() - start, 1)
    log = out.stdout + out.stderr
    if out.returncode != 0:
        raise SystemExit(f"speed: `{' '.join(cmd)}` failed ({out.returncode}) in {cwd}:\n{log[-6000:]}")
    return seconds, log


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


def step(name: str, seconds: float, command: str, log: str = "", **extra: Any) -> dict[str, Any]:
    passed = PASSED.findall(log)
    entry = {"seconds": seconds, "command": command, **claims_line(log), **extra}
    if passed:
        entry["tests_passed"] = int(passed[-1])
    say(f"{name}: {seconds} s ({command})")
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


def measure() -> dict[str, Any]:
    py = sys.executable
    steps: dict[str, dict[str, Any]] = {}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="site-speed-") as scratch:
        tmp = Path(scratch)
        tree = copy_tree(tmp / "tree")
        nox = [py, "-m", "nox", "-f", str(tree / "noxfile.py")]

        seconds, log = run([*nox, "-s", "docs", "--", "--fresh"], tree)
        steps["docs_fresh"] = step("docs_fresh", seconds, "nox -s docs -- --fresh", log)
        seconds, log = run([*nox, "-s", "docs"], tree)
        steps["docs_warm"] = step("docs_warm", seconds, "nox -s docs (nothing changed)", log)
        with open(tree / PROSE_PAGE, "a", encoding="utf-8") as f:
            f.write("\nA sentence added to time a rebuild after a prose edit.\n")
        seconds, log = run([*nox, "-s", "docs"], tree)
        steps["docs_prose"] = step("docs_prose", seconds, f"nox -s docs after editing {PROSE_PAGE}", log)
        with open(tree / SNIPPET, "a", encoding="utf-8") as f:
            f.write("# edited to time a rebuild after a snippet edit\n")
        expected = dependents(SNIPPET, tree / "results")
        seconds, log = run([*nox, "-s", "docs"], tree)
        steps["docs_snippet"] = step(
            "docs_snippet", seconds, f"nox -s docs after editing {SNIPPET}", log, claims_depending=expected
        )

        tests = ["--fresh"]
        if not (tree / "results" / "speed-cpu.json").is_file():  # the very first measurement has no record yet
            tests += ["--ignore", "tests/contract/test_speed_record.py"]
        seconds, log = run([*nox, "-s", "tests", "--", *tests], tree, SITE_WORKERS="0")
        steps["tests_serial"] = step("tests_serial", seconds, f"SITE_WORKERS=0 nox -s tests -- {' '.join(tests)}", log)
        seconds, log = run([*nox, "-s", "tests", "--", *tests], tree)
        steps["tests_parallel"] = step("tests_parallel", seconds, f"nox -s tests -- {' '.join(tests)}", log)

        site = str(tree / "site")
        seconds, log = run([*nox, "-s", "browser"], tree, SITE_DIR=site, SITE_WORKERS="0")
        steps["browser_serial"] = step("browser_serial", seconds, "SITE_WORKERS=0 nox -s browser", log)
        seconds, log = run([*nox, "-s", "browser"], tree, SITE_DIR=site)
        steps["browser_parallel"] = step("browser_parallel", seconds, "nox -s browser", log)

        import noxfile  # the same code that builds .nox/site

        def quiet(*cmd: str) -> None:
            run(list(cmd), tmp)

        for installer in ("uv", "pip"):
            start = time.perf_counter()
            noxfile.build_env(tmp / f"env-{installer}", installer, quiet, cache=False)
            seconds = round(time.perf_counter() - start, 1)
            steps[f"env_{installer}"] = step(
                f"env_{installer}", seconds, f"requirements/lock.txt into an empty folder with {installer}, no cache"
            )
            shutil.rmtree(tmp / f"env-{installer}")
    return {"steps": steps, "load_before": load_before, "load_after": os.getloadavg()}


def provenance(load_before: tuple[float, ...], load_after: tuple[float, ...]) -> dict[str, Any]:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False)
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
            if line.startswith("model name")
        ),
        platform.machine(),
    )
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": commit.stdout.strip() or None,
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "torch": claims.torch_version(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
    }


def ratios(steps: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, (num, den, limit) in TARGETS.items():
        ratio = round(steps[num]["seconds"] / steps[den]["seconds"], 3)
        out[name] = {"ratio": ratio, "target": limit, "met": ratio <= limit}
    snippet = steps["docs_snippet"]
    out["claims re-run after one snippet edit / claims depending on it"] = {
        "ratio": f"{snippet.get('claims_rerun')}/{snippet['claims_depending']}",
        "target": "equal",
        "met": snippet.get("claims_rerun") == snippet["claims_depending"],
    }
    return out


def table(record: dict[str, Any]) -> str:
    """CONTRIBUTING's table, from the record."""
    s, p = record["steps"], record["provenance"]
    load = ", ".join(f"{x:g}" for x in p["load_average_before"])

    def docs_row(key: str, label: str) -> str:
        e = s[key]
        ran = f"{e.get('claims_rerun', '?')} claims run, {e.get('claims_reused', '?')} reused"
        return f"| {label} | {e['seconds']:g} s | {ran} |"

    rows = [
        "| step | wall time | notes |",
        "| --- | --- | --- |",
        f"| environment from the lock with uv (no cache) | {s['env_uv']['seconds']:g} s | "
        f"{s['env_uv']['seconds'] / s['env_pip']['seconds']:.0%} of pip's |",
        f"| environment from the lock with pip (no cache) | {s['env_pip']['seconds']:g} s | |",
        docs_row("docs_fresh", "`nox -s docs -- --fresh` (every claim, then the build)"),
        docs_row("docs_warm", "`nox -s docs`, nothing changed"),
        docs_row("docs_prose", "`nox -s docs` after a prose-only page edit")[:-2]
        + f", {s['docs_prose']['seconds'] / s['docs_fresh']['seconds']:.0%} of fresh |",
        docs_row("docs_snippet", f"`nox -s docs` after editing `{SNIPPET}`")[:-2]
        + f"; {s['docs_snippet']['claims_depending']} claims depend on it |",
        f"| `nox -s tests -- --fresh` in one process | {s['tests_serial']['seconds']:g} s | "
        f"{s['tests_serial'].get('tests_passed', '?')} tests |",
        f"| `nox -s tests -- --fresh` on every core | {s['tests_parallel']['seconds']:g} s | "
        f"{s['tests_parallel']['seconds'] / s['tests_serial']['seconds']:.0%} of one process |",
        f"| browser suite in one process | {s['browser_serial']['seconds']:g} s | "
        f"{s['browser_serial'].get('tests_passed', '?')} tests |",
        f"| browser suite on every core | {s['browser_parallel']['seconds']:g} s | "
        f"{s['browser_parallel']['seconds'] / s['browser_serial']['seconds']:.0%} of one process |",
    ]
    head = (
        f"Measured by `nox -s speed` on {p['date'][:10]} ({p['cpu']}, {p['cores']} cores, torch {p['torch']}, "
        f"commit {str(p['commit'])[:10]}), one run, on a shared machine (load average {load} when it started):"
    )
    return head + "\n\n" + "\n".join(rows)


def write_table(record: dict[str, Any]) -> None:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{CONTRIBUTING.name}: put {START} and {END} where the table goes")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    CONTRIBUTING.write_text(f"{before}{START}\n{table(record)}\n{END}{after}", encoding="utf-8")


def main() -> None:
    if "--table" not in sys.argv[1:]:
        measured = measure()
        record = {
            "schema": 1,
            "provenance": provenance(measured["load_before"], measured["load_after"]),
            "steps": measured["steps"],
        }
        record["ratios"] = ratios(record["steps"])
        RECORD.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        say(f"wrote {RECORD.relative_to(ROOT)}")
        for name, r in record["ratios"].items():
            say(f"{name}: {r['ratio']} (target {r['target']}){'' if r['met'] else '  MISSED'}")
    write_table(json.loads(RECORD.read_text(encoding="utf-8")))
    say(f"wrote the table in {CONTRIBUTING.name}")


if __name__ == "__main__":
    main()
