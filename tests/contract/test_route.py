"""The module's core route and its clock: each step's time is the reading time the page's own byline gives, the
total is their sum, and the home page and the module's front page show them, never a typed time."""

from __future__ import annotations

import re

from sitekit import render, site_render
from sitekit.pagefacts import CORE_ROUTE, page_minutes

ROOT = site_render.ROOT


def _ctx(page: str) -> render.Context:
    pages = [(uri, title) for uri, title in site_render.nav_pages() if (site_render.DOCS / uri).is_file()]
    return render.Context(
        page=page, cpu={}, page_order=[u for u, _ in pages], page_titles={u: t or u for u, t in pages}
    )


def test_each_step_reads_as_its_byline_says_and_the_total_adds_up():
    table = render.render("{{ core_route() }}", _ctx("module/index.md"))
    rows = re.findall(r"^\| (\d+) \| \[([^\]]+)\]\(([^)]+)\) \| (\d+) min \|$", table, re.M)
    assert [f"module/{link}" for _, _, link, _ in rows] == list(CORE_ROUTE)
    assert [int(m) for *_, m in rows] == [page_minutes(uri) for uri in CORE_ROUTE]
    total = sum(page_minutes(uri) for uri in CORE_ROUTE)
    shown = f"{total} min" if total < 60 else f"{total // 60} h {total % 60:02d} min"
    assert f"| | **The core route** | **{shown}** |" in table
    assert render.render("{{ route_total() }}", _ctx("index.md")) == shown
    assert rows[0][1].startswith("Part 1 ·") and rows[-1][1] == "The hands-on exercise"


def test_the_byline_and_the_route_use_the_same_clock():
    raw = (site_render.DOCS / "module" / "degradation.md").read_text(encoding="utf-8")
    assert page_minutes("module/degradation.md") == render.reading_minutes(site_render.split_meta(raw)[1])


def test_a_folder_adds_up_its_pages_and_an_unknown_page_is_refused():
    ctx = _ctx("module/index.md")
    entries = [u for u in ctx.page_order if u.startswith("encyclopedia/")]
    assert len(entries) > 1
    total = sum(page_minutes(u) for u in entries)
    assert render.render('{{ reading_time("encyclopedia/") }}', ctx).endswith(f"{total % 60} min")
    try:
        render.render('{{ reading_time("module/no-such-page.md") }}', ctx)
    except render.ClaimError as err:
        assert "no such page" in str(err)
    else:
        raise AssertionError("a reading time of a missing page rendered")


def test_the_home_page_and_the_module_show_the_route():
    home = (site_render.DOCS / "index.md").read_text(encoding="utf-8")
    module = (site_render.DOCS / "module" / "index.md").read_text(encoding="utf-8")
    assert "{{ route_total() }}" in home and "module/index.md#the-core-route" in home
    assert "## The core route" in module and "{{ core_route() }}" in module
    assert "## Where to go next (optional)" in module
