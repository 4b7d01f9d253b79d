"""What a reader meets on the built site, counted over every page (text outside code, no browser needed).

Targets from the reader-first review: no mention of "the brief" (a document no reader has seen), no
"✓ verified" badges (numbers are their own receipts), no number printed as raw computer output
(4.4e-29), and no placeholder host anywhere in a published file. Every receipt links to a ledger row
that exists, and every ledger row links back to a receipt that exists.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from browser_tests.harness import SITE, site_pages, soup

E_NOTATION = re.compile(r"(?<![\w.])[-+−]?\d+(?:\.\d+)?[eE][+-]?\d+(?![\w.])")
PLACEHOLDER_HOSTS = ("example.org", "example.com")


HIDDEN = frozenset({"pre", "code", "script", "style", "template"})


def _shown(node: Any) -> bool:
    """A string outside code, scripts and styles, and outside a notebook cell's hidden copy buffer."""
    return not any(p.name in HIDDEN or "clipboard-copy-txt" in (p.get("class") or ()) for p in node.parents)


@cache
def page_text() -> dict[str, str]:
    """Each page's visible text outside <pre>, <code>, scripts and styles (from the parse the suite shares)."""
    from bs4.element import CData, NavigableString

    site_pages()  # a clear error when there is no build
    out = {}
    for path in sorted(SITE.rglob("*.html")):
        tree = soup(str(path.relative_to(SITE)))
        strings = [str(t) for t in tree.find_all(string=True) if type(t) in (NavigableString, CData) and _shown(t)]
        out[str(path.relative_to(SITE))] = " ".join(strings)
    return out


def count(pattern: re.Pattern[str]) -> Counter[str]:
    return Counter({page: n for page, text in page_text().items() if (n := len(pattern.findall(text)))})


def test_no_page_mentions_the_brief():
    found = count(re.compile(r"\bbrief\b", re.I))
    assert not found, f"'brief' appears {sum(found.values())} times: {dict(found)}"


def test_no_verified_badges_remain():
    found = count(re.compile("✓ verified"))
    assert not found, f"'✓ verified' appears {sum(found.values())} times: {dict(found)}"


def test_no_number_is_printed_in_e_notation():
    found = {page: E_NOTATION.findall(text)[:5] for page, text in page_text().items() if E_NOTATION.search(text)}
    total = sum(len(E_NOTATION.findall(page_text()[p])) for p in found)
    assert not found, f"{total} numbers in e-notation outside code, e.g. {found}"


def test_powers_of_ten_are_set_in_the_text_face():
    """10⁻²⁹ in Unicode superscripts falls back to another font for some of its glyphs; the page sets it
    as 10<sup>−29</sup> (sitekit/typesetting.py powers_html), and no unset power is left in its text."""
    from sitekit.typesetting import POWER

    found = {page: POWER.findall(text)[:5] for page, text in page_text().items() if POWER.search(text)}
    assert not found, f"powers of ten in Unicode superscripts: {found}"
    sups = sum(
        len(re.findall(r"10<sup>−?\d+</sup>", path.read_text(encoding="utf-8"))) for path in SITE.rglob("*.html")
    )
    assert sups > 50, f"only {sups} powers of ten set with <sup>"


@pytest.mark.parametrize("host", PLACEHOLDER_HOSTS)
def test_no_placeholder_host_is_published(host):
    hits = [
        str(p.relative_to(SITE))
        for p in SITE.rglob("*")
        if p.is_file()
        and p.suffix in {".html", ".xml", ".json", ".txt", ".js", ".ipynb", ".py", ".bib"}
        and host in p.read_text(encoding="utf-8", errors="replace")
    ]
    assert not hits, f"{host} appears in {hits}"


def _ids(path: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', path.read_text(encoding="utf-8")))


def _soup(rel: str) -> Any:
    return soup(rel)


def _target(page: Path, href: str) -> tuple[Path, str]:
    url, _, fragment = href.partition("#")
    target = (page.parent / url).resolve() if url else page
    if target.is_dir():
        target = target / "index.html"
    return target, fragment


def test_every_receipt_links_to_a_ledger_row_and_every_row_back_to_a_receipt():
    ledger = SITE / "claims" / "index.html"
    rows = {m for m in _ids(ledger) if m.startswith("claim-")}
    assert rows, "the ledger has no rows"
    receipts = 0
    for path in sorted(SITE.rglob("*.html")):
        soup = _soup(str(path.relative_to(SITE)))
        for a in soup.select("a.rcpt"):
            receipts += 1
            target, fragment = _target(path, a["href"])
            assert target == ledger and fragment in rows, (path, a["href"])
    assert receipts > 100
    for a in _soup("claims/index.html").select(".ledger-table a.back"):
        target, fragment = _target(ledger, a["href"])
        assert target.is_file() and fragment in _ids(target), a["href"]


def test_the_ledger_stays_light():
    soup = _soup("claims/index.html")
    elements = len(soup.find_all(True))
    assert elements < 2500, f"the ledger page has {elements} elements"
