"""The browser suite's fixtures: the built site served on 127.0.0.1 and one headless Chromium.

`nox -s browser` builds the site and runs this suite. By hand, against a build you made:

    SITE_DIR=/tmp/my-site .nox/site/bin/python -m pytest browser_tests

Screenshots of every page (light and dark) and the page-weight report land in screenshots/.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from browser_tests.harness import (
    CHROMIUM_ARGS,
    SCHEMES,
    SHOTS,
    Visits,
    chromium_path,
    guarded_context,
    page_id,
    page_scope,
    pages_with,
    served,
    site_pages,
)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "page_path" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("pages_with")
        selector = marker.args[0] if marker is not None else None
        pages = site_pages() if selector is None else pages_with(selector)
        if selector is not None and not pages:
            raise pytest.UsageError(
                f"{metafunc.definition.nodeid}: no built page has {selector!r}, and this test needs one "
                "(did the page that had it change, or is SITE_DIR an old build?)"
            )
        # The page comes first in the test id: pytest_xdist_make_scheduler below groups by it.
        metafunc.parametrize("page_path", pages, ids=[page_id(p) for p in pages])
    if "scheme" in metafunc.fixturenames:
        metafunc.parametrize("scheme", SCHEMES)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under pytest-xdist (`nox -s browser` runs `-n auto`) all of a page's tests go to one worker, so each
    worker visits its own pages once (see Visits) in its own Chromium; other tests are shared out singly.

    xdist's own `--dist loadgroup` would do this from `xdist_group` marks, but with pytest 9.2 it silently
    stops grouping (pytest-dev/pytest-xdist#1386: the group rides on a node id that pytest no longer
    lets plugins rewrite), and every worker then visits every page. This scheduler reads the page from
    the test id instead; test_grouping.py checks that it finds the page of every page test.
    """
    from xdist.scheduler import LoadScopeScheduling

    ids = [page_id(p) for p in site_pages()]

    class ByPage(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return page_scope(nodeid, ids) or nodeid

    return ByPage(config, log)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "pages_with(selector): run a page_path test only on pages whose HTML has the CSS selector"
    )
    if not hasattr(config, "workerinput"):  # the run's first process: forget the last run's weight rows
        for part in [*SHOTS.glob("page-weight*.json"), SHOTS / "marks.json"]:
            part.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    """The built site served on 127.0.0.1 at a free port, for the whole run."""
    site_pages()  # a clear error when there is no build
    with served() as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless system Chromium for the whole run."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def new_context(browser: Any) -> Iterator[Any]:
    """Factory for guarded browser contexts (see harness.guarded_context), closed after the test."""
    made: list[Any] = []

    def make(scheme: str = "light", **options: Any) -> Any:
        made.append(guarded_context(browser, scheme, **options))
        return made[-1]

    yield make
    for ctx in made:
        assert not ctx.guard.foreign, f"requests to other hosts: {ctx.guard.foreign}"
        ctx.close()


@pytest.fixture(scope="session")
def visits(browser: Any, base_url: str) -> Visits:
    """One cold visit per (page, scheme), shared by every per-page test."""
    return Visits(browser, base_url)


WEIGHT_REPORT = SHOTS / "page-weight.json"


@pytest.fixture(scope="session")
def weight_report() -> Iterator[list[dict[str, Any]]]:
    """Rows the weight test adds; each process writes its own part, printed and joined at the end."""
    rows: list[dict[str, Any]] = []
    yield rows
    SHOTS.mkdir(exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    part = SHOTS / f"page-weight.{worker}.json" if worker else WEIGHT_REPORT
    part.write_text(json.dumps(sorted(rows, key=lambda r: r["page"]), indent=1) + "\n", encoding="utf-8")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if hasattr(terminalreporter.config, "workerinput"):
        return
    _print_marks(terminalreporter)
    parts = sorted(SHOTS.glob("page-weight.*.json"))  # one per xdist worker
    if parts:
        rows = [row for part in parts for row in json.loads(part.read_text(encoding="utf-8"))]
        WEIGHT_REPORT.write_text(json.dumps(sorted(rows, key=lambda r: r["page"]), indent=1) + "\n", encoding="utf-8")
        for part in parts:
            part.unlink()
    if not WEIGHT_REPORT.is_file():  # the weight test did not run this time
        return
    rows = json.loads(WEIGHT_REPORT.read_text(encoding="utf-8"))
    kinds = ["html", "js", "css", "font", "image", "data"]
    terminalreporter.section("page weight, KiB on a cold visit (budget covers html+js+css+font+image)")
    terminalreporter.write_line(f"{'page':34} " + " ".join(f"{k:>6}" for k in kinds) + f" {'total':>6} {'budget':>6}")
    for row in rows:
        cells = " ".join(f"{row['bytes'].get(k, 0) / 1024:6.0f}" for k in kinds)
        terminalreporter.write_line(
            f"{row['page'] or '(home)':34} {cells} {row['budgeted'] / 1024:6.0f} {row['budget'] / 1024:6.0f}"
        )


def _print_marks(terminalreporter: Any) -> None:
    """The figures browser_tests/test_marks.py measured, page by page (screenshots/marks.json)."""
    report = SHOTS / "marks.json"
    if not report.is_file():
        return
    data = json.loads(report.read_text(encoding="utf-8"))
    terminalreporter.section("marks on the course pages (1280 px, folds closed)")
    head = ("words", "marks", "numbers", "◉", "fig/tab", "†", "words/mark", "paras >3")
    terminalreporter.write_line(f"{'page':34} " + " ".join(f"{h:>7}" for h in head))
    for row in data["pages"]:
        per = f"{row['words'] / row['marks']:.0f}" if row["marks"] else "–"
        cells = (row["words"], row["marks"], row["receipts"], row["markers"], row["figures"], row["sources"])
        terminalreporter.write_line(
            f"{row['page']:34} " + " ".join(f"{c:7d}" for c in cells) + f" {per:>7} {len(row['crowded']):7d}"
        )
    per, every = data["words"] / max(data["numbers"], 1), data["words"] / max(data["marks"], 1)
    terminalreporter.write_line(
        f"all course pages: {data['words']} visible words, {data['numbers']} marked numbers (receipts and ◉), one "
        f"every {per:.0f} words; {data['marks']} marks of every kind, one every {every:.0f} words"
    )
