"""Keyboard only: Tab walks every page from its top to its footer, in document order, one stop per receipt."""

from __future__ import annotations

from typing import Any

# Every element focus lands on, in order (set up before the first Tab).
RECORD = """() => {
  window.__focused = [];
  document.addEventListener("focusin", e => window.__focused.push(e.target));
}"""

# What could take focus: an upper bound on the Tab presses a walk to the footer needs.
CANDIDATES = """() => document.querySelectorAll(
  "a[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable]").length"""

# Whether a stop so far was in the page's footer (the walk stops there: one more Tab would start the page over).
WHERE = """() => window.__focused.some(n => n.closest("footer"))"""

# The walk in words: where focus went backwards in the document (restarted above where it was), and
# which receipts took more than one stop or opened a popover.
CHECK = """() => {
  const all = window.__focused, end = all.findIndex(n => n.closest("footer"));
  const seen = end < 0 ? all : all.slice(0, end + 1);
  const describe = n => n.tagName.toLowerCase() + (n.id ? "#" + n.id : "")
    + (n.className && typeof n.className === "string" ? "." + n.className.split(" ")[0] : "")
    + " '" + (n.innerText || n.getAttribute("aria-label") || "").trim().slice(0, 40) + "'";
  const backwards = [];
  for (let i = 1; i < seen.length; i++) {
    if (seen[i].compareDocumentPosition(seen[i - 1]) & Node.DOCUMENT_POSITION_FOLLOWING) {
      backwards.push(`stop ${i}: ${describe(seen[i - 1])} -> ${describe(seen[i])}`);
    }
  }
  const receipts = seen.filter(n => n.matches("a.rcpt"));
  return {
    stops: seen.length,
    backwards: backwards.slice(0, 3),
    receipts: receipts.length,
    distinct_receipts: new Set(receipts).size,
    popovers: document.querySelectorAll("#rcpt-pop").length,
  };
}"""


def test_tab_reaches_the_footer_in_document_order(new_context: Any, base_url: str, page_path: str) -> None:
    page = new_context().new_page()
    page.goto(base_url + page_path, wait_until="load")
    page.evaluate(RECORD)
    budget = page.evaluate(CANDIDATES) + 20
    pressed, reached = 0, False
    while pressed < budget and not reached:
        for _ in range(20):
            page.keyboard.press("Tab")
        pressed += 20
        reached = page.evaluate(WHERE)
    walk = page.evaluate(CHECK)
    assert reached, (
        f"/{page_path}: {pressed} Tab presses ({walk['stops']} stops) never reached the footer; "
        f"focus went backwards at {walk['backwards'] or 'no stop'}"
    )
    assert not walk["backwards"], f"/{page_path}: Tab went back up the page: {walk['backwards']}"
    assert walk["receipts"] == walk["distinct_receipts"], f"/{page_path}: a receipt took more than one Tab stop"
    assert walk["popovers"] == 0, f"/{page_path}: tabbing past a receipt opened its popover"
