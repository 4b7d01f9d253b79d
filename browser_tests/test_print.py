"""Printing a long page (site.css @media print, receipts.js beforeprint): no navigation, every fold open, no
figure cut across two pages, receipts as plain text numbered into a list of their claims at the end, and
the page as it was after printing."""

from __future__ import annotations

from typing import Any

from browser_tests.harness import nav_page

A4 = {"width": 794, "height": 1123}  # CSS px at 96 per inch
MARGIN = 48  # px each side, the margins the PDF below is printed with
STATE = """() => ({
  open: [...document.querySelectorAll('article details')].map(d => d.open),
  sups: document.querySelectorAll('sup.rcpt-n').length,
  list: document.querySelectorAll('.rcpt-print').length,
  scheme: document.body.dataset.mdColorScheme,
})"""


def test_a_long_page_prints_whole(new_context: Any, base_url: str) -> None:
    page = new_context().new_page()
    page.set_viewport_size(A4)
    page.goto(base_url + nav_page("Part 1 · The degradation problem"), wait_until="load")
    before = page.evaluate(STATE)
    receipts = page.locator("article a.rcpt[data-claim]").count()
    claims = page.evaluate(
        "new Set([...document.querySelectorAll('article a.rcpt[data-claim]')].map(a => a.dataset.claim)).size"
    )
    assert receipts > 10

    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    seen = page.evaluate(
        """() => {
          const shown = s => [...document.querySelectorAll(s)].filter(e => e.getClientRects().length).length;
          return {
            chrome: shown('.md-header, .md-sidebar, .md-footer, .md-top'),
            closed: document.querySelectorAll('article details:not([open])').length,
            sups: document.querySelectorAll('article sup.rcpt-n').length,
            items: [...document.querySelectorAll('.rcpt-print li')].map(li => li.textContent),
            underlined: [...document.querySelectorAll('article a.rcpt')]
              .filter(a => a.getClientRects().length && getComputedStyle(a).textDecorationLine !== 'none').length,
            figures: [...document.querySelectorAll('article figure')].map(f => ({
              avoid: getComputedStyle(f).breakInside,
              height: f.getBoundingClientRect().height,
            })),
          };
        }"""
    )
    assert seen["chrome"] == 0, "navigation, header or footer would print"
    assert seen["closed"] == 0, "a fold would print closed"
    assert seen["sups"] == receipts and len(seen["items"]) == claims, seen["items"]
    assert all("/claims/#claim-" in item for item in seen["items"]), seen["items"][:3]
    assert seen["underlined"] == 0
    assert seen["figures"], "no figure on the page"
    page_height = A4["height"] - 2 * MARGIN
    for i, fig in enumerate(seen["figures"]):
        assert fig["avoid"] == "avoid", f"figure {i + 1} may break across pages"
        assert fig["height"] <= page_height, f"figure {i + 1} is {fig['height']:.0f} px, taller than a page"

    pdf = page.pdf(format="A4", margin={side: f"{MARGIN}px" for side in ("top", "right", "bottom", "left")})
    assert pdf[:5] == b"%PDF-" and pdf.count(b"/Type /Page") > 3

    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    page.emulate_media(media="screen")
    assert page.evaluate(STATE) == before, "printing left the page changed"
