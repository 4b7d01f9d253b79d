"""What a reader clicks: quiz answers, content tabs, the copy button, search, the palette, the notebook."""

from __future__ import annotations

from typing import Any

import pytest

from browser_tests.harness import ROOT, nav_page, pages_with, site_pages, soup


def _open(new_context: Any, base_url: str, path: str, **options: Any) -> Any:
    page = new_context(**options).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url + path, wait_until="load")
    page.errors = errors
    return page


def test_quiz_answers_start_closed_and_open_on_click(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, nav_page("Quiz"))
    answers = page.locator("article details")
    n = answers.count()
    assert n >= 1, "the quiz page has no `??? question` answers"
    for i in range(n):
        answer = answers.nth(i)
        assert answer.get_attribute("open") is None, f"quiz answer {i + 1} is open before a click"
        answer.locator("summary").first.click()
        assert answer.evaluate("d => d.open"), f"quiz answer {i + 1} did not open on click"
        assert answer.locator(":scope > :not(summary)").first.is_visible()
    assert not page.errors


@pytest.mark.pages_with(".tabbed-set")
def test_content_tabs_switch(new_context: Any, base_url: str, page_path: str) -> None:
    page = _open(new_context, base_url, page_path)
    sets = page.locator(".tabbed-set")
    for i in range(sets.count()):  # all start on their first tab (before any click: tabs of one label are linked)
        blocks = sets.nth(i).locator(":scope > .tabbed-content > .tabbed-block")
        if blocks.count() >= 2:
            assert blocks.nth(0).is_visible() and not blocks.nth(1).is_visible(), (
                f"/{page_path}: tab set {i} starts wrong"
            )
    switched = 0
    for i in range(sets.count()):
        tabs = sets.nth(i)
        labels = tabs.locator(":scope > .tabbed-labels > label")
        blocks = tabs.locator(":scope > .tabbed-content > .tabbed-block")
        if labels.count() < 2:
            continue
        labels.nth(0).click()
        labels.nth(1).click()
        assert blocks.nth(1).is_visible() and not blocks.nth(0).is_visible(), f"/{page_path}: tab {i} did not switch"
        switched += 1
    assert switched, f"/{page_path}: no tab set with two tabs to switch"
    assert not page.errors


def _open_listings() -> list[str]:
    """Pages with a titled listing that is not folded inside a collapsed block."""
    return [
        p
        for p in site_pages()
        if any(not el.find_parent("details") for el in soup(p).select("div.listing span.filename"))
    ]


def test_copy_button_copies_the_listing(new_context: Any, base_url: str) -> None:
    pages = _open_listings()
    assert pages, "no page shows a titled listing"
    path = next((p for p in pages if p.startswith("module/")), pages[0])
    page = _open(new_context, base_url, path, permissions=["clipboard-read", "clipboard-write"])
    listing = page.locator("div.listing:visible").first  # titled "What it is · <path>", the path a link
    filename = listing.locator("span.filename a").inner_text().strip()
    listing.locator("pre").hover()
    button = listing.locator("button.md-clipboard, button.md-code__button[title='Copy to clipboard']")
    assert button.count() == 1, f"/{path}: the listing from {filename} has no copy button"
    button.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    shown = listing.locator("pre > code").inner_text()
    assert copied.strip() == shown.strip(), f"/{path}: the copy button copied something other than the listing"
    source = (ROOT / filename).read_text(encoding="utf-8")
    assert copied.strip() and copied.strip() in source, f"/{path}: copied text is not a passage of {filename}"


def _search(page: Any, query: str) -> list[str]:
    """Paths of the pages the site's own search lists for a query."""
    box = page.locator("input.md-search__input")
    box.click()
    box.fill("")
    box.press_sequentially(query)  # Material searches on key events, which fill() does not send
    page.wait_for_function(  # results for the whole query (its last word typed) are on screen
        "last => [...document.querySelectorAll('.md-search-result__item > a')]"
        ".some(a => (new URL(a.href).searchParams.get('h') || '').includes(last))",
        arg=query.split()[-1],
        timeout=15_000,
    )
    hrefs = page.eval_on_selector_all(".md-search-result__item > a.md-search-result__link", "as => as.map(a => a.href)")
    base = page.evaluate("new URL('.', document.baseURI || location.href).href")
    return [h.split("#")[0].split("?")[0].removeprefix(base) for h in hrefs]


def test_search_finds_the_encyclopedia_entry_and_the_module_part(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, "")
    found = _search(page, "residual stream")
    entry = nav_page("The Residual Stream")
    assert entry in found, f"search for 'residual stream' lists {found}, not the encyclopedia entry /{entry}"
    found = _search(page, "projection shortcut")
    parts = [p for p in found if p.startswith("module/") and "projection shortcut" in soup(p).get_text().lower()]
    assert parts, f"search for 'projection shortcut' lists {found}: no module part that explains it"
    assert not page.errors


INDEX = "/search/search_index.json"


def _index_requests(page: Any) -> int:
    return sum(url.endswith(INDEX) for url in page.context.guard.fetched)


def test_search_index_waits_until_the_reader_opens_search(new_context: Any, base_url: str) -> None:
    """overrides/main.html holds the theme's request for the index until search is opened."""
    page = _open(new_context, base_url, nav_page("The Residual Stream"))
    page.wait_for_load_state("networkidle")
    assert _index_requests(page) == 0, "a visit downloaded the search index before the reader opened search"
    initializing = page.locator(".md-search-result__meta").text_content().strip()
    page.keyboard.press("/")  # the theme's shortcut opens search
    page.wait_for_function("document.getElementById('__search').checked")
    page.wait_for_load_state("networkidle")
    assert _index_requests(page) == 1, "opening search did not download the search index (once)"
    page.wait_for_function(  # the worker built the index: the meta line leaves "Initializing search"
        "first => document.querySelector('.md-search-result__meta').textContent.trim() !== first",
        arg=initializing,
        timeout=15_000,
    )
    assert not page.errors


def test_search_link_highlights_its_terms(new_context: Any, base_url: str) -> None:
    """A search result's link (?h=) loads the index at once and marks the terms on the page it opens."""
    path = nav_page("The Residual Stream")
    page = _open(new_context, base_url, path + "?h=stream")
    page.locator("mark[data-md-highlight]").first.wait_for(state="attached", timeout=15_000)
    assert _index_requests(page) == 1, "a ?h= link did not download the search index (once) for highlighting"
    marked = page.eval_on_selector_all("mark[data-md-highlight]", "ms => ms.map(m => m.textContent.toLowerCase())")
    assert marked and all("stream" in m for m in marked), f"/{path}?h=stream marked {marked[:5]}"
    assert not page.errors


def test_palette_toggle_switches_and_is_remembered(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, "")
    scheme = lambda: page.evaluate("document.body.dataset.mdColorScheme")  # noqa: E731
    assert scheme() == "default"
    meta = lambda: page.evaluate("document.querySelector('meta[name=color-scheme]').content")  # noqa: E731
    assert meta() == "light"
    page.locator("form[data-palette] label:visible").click()
    assert (scheme(), meta()) == ("slate", "dark")
    page.reload(wait_until="load")
    assert (scheme(), meta()) == ("slate", "dark"), "the dark palette was not remembered across a reload"
    page.locator("form[data-palette] label:visible").click()
    assert (scheme(), meta()) == ("default", "light")
    page.focus("form[data-palette] input:checked")
    page.keyboard.press("Enter")
    assert scheme() == "slate", "Enter on the palette option did not switch to the next one"
    assert not page.errors


def test_notebook_page_shows_its_figure_and_offers_the_notebook(new_context: Any, base_url: str) -> None:
    notebooks = pages_with("svg.rs-notebook-plot")  # pages that render a notebook (sitekit/notebook_page.py)
    assert notebooks, "no page renders a notebook (the exercise's worked solution is one)"
    for path in notebooks:
        page = _open(new_context, base_url, path)
        page.wait_for_load_state("networkidle")
        # Plots are inline SVG (sitekit.figures.notebook_svg), named by the description their cell gave.
        plots = page.eval_on_selector_all(
            "svg.rs-notebook-plot[role='img']",
            "svgs => svgs.map(s => [s.getBoundingClientRect().width, s.querySelector('title')?.textContent || ''])",
        )
        assert [name for width, name in plots if width >= 100 and name], f"/{path} shows no named plot: {plots}"
        link = page.locator("a.md-button[download]")
        assert link.count() == 1, f"/{path}: no download button for its notebook"
        with page.expect_response(lambda r: r.url.endswith(".ipynb")) as got:
            page.evaluate("href => fetch(href)", link.get_attribute("href"))
        assert got.value.status == 200 and b'"cells"' in got.value.body(), f"/{path}: the download is not a notebook"
        assert not page.errors


def test_screenshots_are_ignored_by_git() -> None:
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert "screenshots/" in ignored, "add screenshots/ to .gitignore"
