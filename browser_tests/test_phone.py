"""A 390 x 844 phone and the wide screen's layout details (reader review 2026-12): no table or display formula
wider than its column, tables of sentences stacked, the scrollbar true to the page's length, the quiz and
callouts at one width, inline maths at the text's size, and the home page's labs in one row."""

from __future__ import annotations

from typing import Any

from browser_tests.harness import PHONE, nav_page, pages_with, site_pages, soup

# Resolves once the browser has been idle a few times over (receipts.js's idle work is done by then).
IDLE = """() => new Promise(done => {
  const idle = n => n ? requestIdleCallback(() => idle(n - 1), {timeout: 3000}) : done();
  idle(4);
})"""


def _page(new_context: Any, width: int, **options: Any) -> Any:
    """A page at a phone's size (390 x 844) or a desktop's (1280 x 900)."""
    page = new_context(**options).new_page()
    page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
    return page


# Every table and display formula on a page at 390 px: inside the screen; a table of sentences (stacked,
# data-rs-stack) no wider than its box; anything that scrolls sideways does so inside its own box, which
# then has a tab stop (receipts.js gives it one when the browser is idle).
OVERFLOW = """() => {
  const W = document.documentElement.clientWidth, bad = [];
  const col = document.querySelector('.md-content .md-typeset');
  for (const k of col.querySelectorAll('.katex-display')) {
    if (!k.getClientRects().length) continue;
    const r = k.getBoundingClientRect();
    if (r.left < -1 || r.right > W + 1) bad.push(`formula ${Math.round(r.width)} px at ${Math.round(r.left)}`);
    else if (k.scrollWidth > k.clientWidth + 1 && k.tabIndex !== 0) bad.push('formula scrolls without a tab stop');
  }
  for (const t of col.querySelectorAll('table')) {
    if (!t.getClientRects().length) continue;
    const box = t.closest('.md-typeset__scrollwrap') || t.parentElement, r = box.getBoundingClientRect();
    if (r.left < -1 || r.right > W + 1) bad.push(`table box ${Math.round(r.width)} px at ${Math.round(r.left)}`);
    else if (t.hasAttribute('data-rs-stack') && t.scrollWidth > box.clientWidth + 1)
      bad.push(`stacked table ${t.scrollWidth} px in ${box.clientWidth}`);
    else if (box.scrollWidth > box.clientWidth + 1 && box.tabIndex !== 0) bad.push('table scrolls without a tab stop');
  }
  return bad;
}"""


def test_no_table_or_display_formula_is_wider_than_its_column_on_a_phone(browser: Any, base_url: str) -> None:
    """One phone visits every page with a table or display formula, in one test to keep it quick (and in a
    context without the request guard, whose per-request hop doubled its time: test_pages.py checks every
    page's requests)."""
    pages = sorted(set(pages_with(".md-content table")) | set(pages_with(".md-content .katex-display")))
    assert len(pages) >= 10
    ctx = browser.new_context(viewport={"width": PHONE, "height": 844}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    found = {}
    for path in pages:
        page.goto(base_url + path, wait_until="domcontentloaded")
        page.evaluate(
            "document.fonts.ready.then(() => document.querySelectorAll('article details').forEach(d => d.open = true))"
        )
        page.evaluate(IDLE)  # receipts.js gives scroll boxes their tab stops when the browser is idle
        bad = page.evaluate(OVERFLOW)
        if bad:
            found[path] = bad
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE, f"/{path} scrolls sideways"
    ctx.close()
    assert not found, f"wider than the column at {PHONE} px: {found}"


def test_tables_of_sentences_are_stacked_on_a_phone(new_context: Any, base_url: str) -> None:
    """A table whose cells are sentences reads as blocks: the first cell a heading, each other cell led by
    its column's name; a table of numbers stays a table."""
    path = "encyclopedia/normalisation-placement/"
    page = _page(new_context, PHONE)
    page.goto(base_url + path, wait_until="load")
    table = page.locator("table[data-rs-stack]").first
    assert table.count() == 1, "the placements side by side are not stacked"
    assert table.evaluate("t => getComputedStyle(t.querySelector('tbody tr')).display") == "block"
    heads = table.evaluate("t => [...t.querySelectorAll('thead th')].map(th => th.textContent.trim())")
    label = table.evaluate("t => getComputedStyle(t.querySelector('tbody td:nth-child(2)'), '::before').content")
    assert label == f'"{heads[1]}: "', label
    assert page.locator("table:not([class]):not([data-rs-stack])").count() >= 1, "a table of numbers was stacked"
    wide = _page(new_context, 1280)
    wide.goto(base_url + path, wait_until="load")
    row = wide.locator("table[data-rs-stack] tbody tr").first
    assert row.evaluate("r => getComputedStyle(r).display") == "table-row", "stacked on a wide screen"


def test_the_scrollbar_tells_a_phone_reader_the_page_s_true_length(new_context: Any, base_url: str) -> None:
    """No block waits to be laid out until scrolled near (content-visibility made Part 4 look half again
    as long as it is at 390 px)."""
    page = _page(new_context, PHONE, is_mobile=True)
    for title in ("Part 4 · Initialisation and scale", "Lab 1 · Why the sum trains"):
        page.goto(base_url + nav_page(title), wait_until="load")
        at_load = page.evaluate("document.documentElement.scrollHeight")
        page.add_style_tag(content=".md-content .md-typeset * { content-visibility: visible !important; }")
        drawn = page.evaluate("document.documentElement.scrollHeight")
        assert abs(at_load - drawn) <= 2, f"{title}: {at_load} px at load, {drawn} px drawn"


def test_inline_maths_is_at_the_text_s_size_and_display_maths_larger(new_context: Any, base_url: str) -> None:
    page = _page(new_context, 1280)
    page.goto(base_url + nav_page("Part 2 · The residual block"), wait_until="load")
    ratio = page.evaluate(
        """() => { const k = document.querySelector('article p span.arithmatex > .katex'), size = e =>
                     parseFloat(getComputedStyle(e).fontSize);
                   return size(k) / size(k.parentElement); }"""
    )
    assert abs(ratio - 1.08) < 0.01, ratio
    display = page.evaluate(
        """() => { const k = document.querySelector('.katex-display > .katex'), size = e =>
                     parseFloat(getComputedStyle(e).fontSize);
                   return size(k) / size(k.closest('article')); }"""
    )
    assert display > 1.15, display


def test_the_quiz_answers_read_at_the_text_s_size_in_boxes_of_one_width(new_context: Any, base_url: str) -> None:
    path = nav_page("Quiz")
    summaries = [s.get_text() for s in soup(path).select("details.question > summary")]
    assert len(summaries) >= 10
    assert all("\\(" not in s and "Σ" not in s for s in summaries), "maths in a question left as plain text"
    assert sum(bool(s.select(".katex")) for s in soup(path).select("details.question > summary")) >= 5
    page = _page(new_context, 1280)
    page.goto(base_url + path, wait_until="load")
    page.evaluate("document.querySelectorAll('details.question').forEach(d => d.open = true)")
    sizes = page.evaluate(
        """() => { const size = e => parseFloat(getComputedStyle(e).fontSize);
                   const boxes = [...document.querySelectorAll('details.question')];
                   return {body: size(document.querySelector('article > p:not([class])')),
                           answers: boxes.flatMap(d => [...d.querySelectorAll(':scope > p')].map(size)),
                           widths: boxes.map(d => Math.round(d.getBoundingClientRect().width))}; }"""
    )
    assert set(sizes["answers"]) == {sizes["body"]}, sizes
    assert len(set(sizes["widths"])) == 1, sizes["widths"]


def test_callouts_share_one_right_edge(new_context: Any, base_url: str) -> None:
    """Every callout box of a page ends at one right edge, whatever it holds (the prose in it keeps the
    measure)."""
    page = _page(new_context, 1280)
    for path in ("module/degradation/", "module/initialisation/"):
        page.goto(base_url + path, wait_until="load")
        edges = page.evaluate(
            """() => [...document.querySelectorAll('article > .admonition, article > details')]
                 .map(d => Math.round(d.getBoundingClientRect().right))"""
        )
        assert len(edges) >= 2 and len(set(edges)) == 1, (path, edges)


def test_the_home_page_s_three_labs_sit_in_one_row(new_context: Any, base_url: str) -> None:
    assert "" in site_pages()
    for width, rows in ((1280, 1), (PHONE, 3)):
        page = _page(new_context, width)
        page.goto(base_url, wait_until="load")
        tops = page.evaluate(
            """() => { const h = document.getElementById('the-labs');
                       let g = h.nextElementSibling;
                       while (g && !g.classList.contains('grid')) g = g.nextElementSibling;
                       return [...g.querySelectorAll(':scope > ul > li')]
                         .map(li => Math.round(li.getBoundingClientRect().top)); }"""
        )
        assert len(tops) == 3 and len(set(tops)) == rows, (width, tops)
