"""The byline under a page's title is one line (part or lab, reading time, a link to run the page's notebook),
and what the page rests on (claims, machine, torch, dates) sits behind one ⓘ disclosure after it."""

from __future__ import annotations

import re

from sitekit import render
from sitekit.claims import Claim
from sitekit.notebooks import Notebook


def _claim(cid: str, page: str) -> Claim:
    return Claim(
        id=cid, statement="s", page=page, snippet="snippets/x/x.py", test=f"tests/x/test_x.py::{cid}",
        values={"v": 1.0}, status="passed", device="cpu", torch="2.13.0+cpu", hash="h",
        recorded_at="2026-12-06T10:00:00", duration_s=1.0, counterfactuals=[],
    )  # fmt: skip


def _byline(page: str, titles: dict[str, str], part=None, notebook=None) -> str:
    ctx = render.Context(page=page, cpu={"a": _claim("a", page)}, page_titles=titles)
    ctx.cited.add("a")
    return render.page_facts(ctx, part, 12, notebook)


def test_a_part_reads_part_time_and_run_it_and_the_rest_is_behind_the_disclosure():
    book = Notebook(page="module/x.md", title="X", calls=[{"seconds": 200.0}])
    html = _byline("module/x.md", {"module/x.md": "Part 1 · X"}, (1, 7), book)
    line = re.search(r'<span class="page-facts-line">(.*?)</span>', html)[1]
    assert line == 'Part 1 of 7 · 12 min read · <a href="../../notebooks/module-x.ipynb">Run it</a> (about 4 min)'
    more = re.search(r"<details class=\"page-facts-more\"><summary [^>]*>.*?</summary><p>(.*)</p></details>", html)
    assert more is not None and "torch 2.13.0+cpu" in more[1] and "1 measured claim</a>" in more[1]
    assert "6 December 2026" in more[1] and "script</a>" in more[1]
    assert html.count("\n") == 0 and "torch" not in line


def test_a_lab_is_numbered_from_the_nav_and_a_page_without_a_notebook_has_no_run_link():
    titles = {"module/lab-a.md": "Lab 1 · A", "module/lab-b.md": "Lab 2 · B", "module/p.md": "Part 1 · P"}
    html = _byline("module/lab-b.md", titles)
    assert '<span class="page-facts-line">Lab 2 of 2 · 12 min read</span>' in html
    assert "Run it" not in html
