"""Every page under Lighthouse's mobile preset (simulated throttling), served on 127.0.0.1, offline.

The site is served as its host (GitHub Pages) serves it: text compressed with gzip when the browser
asks for it. Lighthouse 12.2.3 comes from package.json/package-lock.json (`npm ci`; `nox -s browser` runs it when
node_modules/ is missing) and drives the same Debian Chromium as the rest of the suite. Each page is
audited by its own `lighthouse` run, one at a time (parallel audits would share the CPU and inflate
the blocking time). The scores of the run land in screenshots/lighthouse.json, each page's full
report in screenshots/lighthouse/. `nox -s lighthouse` runs this module (not CI:
a busy machine can make a page miss all its audits by chance).
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser_tests.harness import ROOT, SHOTS, QuietHandler, chromium_path, local_file, page_id, served

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROME_FLAGS = "--headless=new --no-sandbox --disable-background-networking"
REPORT = SHOTS / "lighthouse.json"

# The budget every page meets (issue 14). Raise a limit deliberately, in review, never to make a run pass.
MIN_PERFORMANCE = 0.90
MAX_CLS = 0.0
MAX_TBT_MS = 200.0
RUNS = 3

METRICS = {  # report key -> Lighthouse audit
    "tbt_ms": "total-blocking-time",
    "cls": "cumulative-layout-shift",
    "lcp_ms": "largest-contentful-paint",
    "fcp_ms": "first-contentful-paint",
    "bytes": "total-byte-weight",
    "dom": "dom-size",
}


COMPRESSED = {".html", ".css", ".js", ".json", ".svg", ".xml", ".ipynb", ".py", ".txt"}


class _GzipHandler(QuietHandler):
    """The static site, with text gzipped for a browser that accepts it (as static hosts do)."""

    def do_GET(self) -> None:
        file = local_file(self.path.split("?")[0].split("#")[0])
        if file.suffix not in COMPRESSED or not file.is_file() or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().do_GET()
        body = _gzipped(file)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(file)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@functools.cache
def _gzipped(file: Path) -> bytes:
    return gzip.compress(file.read_bytes(), compresslevel=6, mtime=0)


@pytest.fixture(scope="module")
def gzip_url() -> Iterator[str]:
    with served(_GzipHandler) as url:
        yield url


def lighthouse(url: str, out: Path) -> dict[str, Any]:
    """Run one mobile performance audit of `url`; return its scores (report JSON kept at `out`)."""
    if not LIGHTHOUSE.exists():
        raise pytest.UsageError(
            f"{LIGHTHOUSE.relative_to(ROOT)} is missing: run `npm ci` in {ROOT} "
            "(`nox -s browser` does it), which installs the Lighthouse pinned in package-lock.json."
        )
    node = shutil.which("node")
    if node is None:
        raise pytest.UsageError("Lighthouse needs Node.js 18.20+ on PATH (Debian: `apt-get install nodejs`).")
    cmd = [
        node,
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--only-categories=performance",
        "--disable-full-page-screenshot",
        "--output=json",
        f"--output-path={out}",
        f"--chrome-flags={CHROME_FLAGS}",
    ]
    env = {**os.environ, "CHROME_PATH": chromium_path()}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180, check=False)
    if done.returncode != 0 or not out.is_file():
        raise AssertionError(f"lighthouse failed on {url} (exit {done.returncode}):\n{done.stderr[-2000:]}")
    report = json.loads(out.read_text(encoding="utf-8"))
    if report.get("runtimeError"):
        raise AssertionError(f"lighthouse could not load {url}: {report['runtimeError']}")
    audits = report["audits"]
    scores = {key: audits[audit]["numericValue"] for key, audit in METRICS.items()}
    scores["performance"] = report["categories"]["performance"]["score"]
    return scores


@pytest.fixture(scope="module")
def lighthouse_report(request: pytest.FixtureRequest) -> Iterator[dict[str, dict[str, Any]]]:
    """Scores by page; written to screenshots/lighthouse.json when the module ends, and each page's
    margin to the budget printed, thinnest first."""
    rows: dict[str, dict[str, Any]] = {}
    yield rows
    SHOTS.mkdir(exist_ok=True)
    REPORT.write_text(json.dumps(dict(sorted(rows.items())), indent=1) + "\n", encoding="utf-8")
    terminal = request.config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None and rows:
        terminal.write_line("")
        terminal.write_line("Lighthouse margins to the budget, thinnest first:")
        for line in margins(rows):
            terminal.write_line("  " + line)


def margins(rows: dict[str, dict[str, Any]]) -> list[str]:
    """Each page's distance from the budget: performance above its floor, blocking time under its ceiling
    (as a share of the ceiling, so the two read on one scale); the thinner of the two orders the pages."""

    def thinnest(s: dict[str, Any]) -> float:
        return min((s["performance"] - MIN_PERFORMANCE) / MIN_PERFORMANCE, (MAX_TBT_MS - s["tbt_ms"]) / MAX_TBT_MS)

    return [
        f"/{page}: performance {s['performance'] * 100:.0f} ({(s['performance'] - MIN_PERFORMANCE) * 100:+.0f} on "
        f"the floor of {MIN_PERFORMANCE * 100:.0f}), TBT {s['tbt_ms']:.0f} ms ({MAX_TBT_MS - s['tbt_ms']:.0f} ms "
        f"under {MAX_TBT_MS:.0f}), CLS {s['cls']:.3f}, {s['runs']} audit{'s' if s['runs'] > 1 else ''}"
        for page, s in sorted(rows.items(), key=lambda kv: thinnest(kv[1]))
    ]


def over_budget(s: dict[str, Any]) -> list[str]:
    """What a run's scores miss of the budget (empty when within it)."""
    return [
        problem
        for problem, missed in (
            (f"performance under {MIN_PERFORMANCE * 100:.0f}", s["performance"] < MIN_PERFORMANCE),
            ("the layout shifts", s["cls"] > MAX_CLS),
            (f"blocking time over {MAX_TBT_MS:.0f} ms", s["tbt_ms"] > MAX_TBT_MS),
        )
        if missed
    ]


def summary(page_path: str, s: dict[str, Any]) -> str:
    return (
        f"/{page_path}: performance {s['performance'] * 100:.0f}, TBT {s['tbt_ms']:.0f} ms, CLS {s['cls']:.3f}, "
        f"LCP {s['lcp_ms'] / 1000:.1f} s, {s['bytes'] / 1024:.0f} KiB, {s['dom']:.0f} DOM elements"
    )


def test_page_meets_the_lighthouse_budget(
    gzip_url: str, page_path: str, lighthouse_report: dict[str, dict[str, Any]]
) -> None:
    """Up to RUNS audits, stopping at the first within budget: other work on the machine can only add
    blocking time (the simulation scales the main-thread time it observes), never take it away."""
    (SHOTS / "lighthouse").mkdir(parents=True, exist_ok=True)
    runs = []
    for _ in range(RUNS):
        runs.append(lighthouse(gzip_url + page_path, SHOTS / "lighthouse" / f"{page_id(page_path)}.json"))
        if not over_budget(runs[-1]):
            break
    best = max(runs, key=lambda s: (not over_budget(s), s["performance"]))
    missed = [{**s, "missed": over_budget(s)} for s in runs if over_budget(s)]  # kept to see why a try fails
    lighthouse_report[page_path or "(home)"] = {**best, "runs": len(runs), "missed_tries": missed}
    assert not over_budget(best), "\n".join(f"{summary(page_path, s)}: {'; '.join(over_budget(s))}" for s in runs)
