"""Marked where it matters: on the course pages a reader meets a marked number at most once every
WORDS_PER_MARK visible words, no paragraph carries more than MARKS_PER_PARAGRAPH marks, and no receipt sits on a
number that is not a labelled result (facts/receipts.toml), such as a setting.

Measured in the browser at 1280 px as the page loads (folds closed): visible words are the article's rendered
text without code listings, maths, figure drawings and receipt data. A marked number is a visible receipt on a
number or a ◉ marker in the prose (a sentence's receipt). The other marks are counted and printed too, and count
towards the paragraph limit: the one "measured" mark under a figure or table, and the † that gives a paper's
number its source. The figures of each page are printed at the end of the run (screenshots/marks.json)."""

from __future__ import annotations

import json
from typing import Any

from browser_tests.harness import SHOTS, site_pages

WORDS_PER_MARK = 150
MARKS_PER_PARAGRAPH = 3
COURSE = ("module/",)  # the Parts, labs, exercise, quiz, takeaways, mistakes (module/ minus its back office)
NOT_COURSE = ("module/sources/", "module/", "module/exercise-solution/")
REPORT = SHOTS / "marks.json"

MEASURE = """() => {
  const LIMIT = LIMIT_MARKS;
  const art = document.querySelector("article.md-content__inner") || document.querySelector("article");
  const skip = "pre, code, .katex, .MathJax, script, style, svg, .headerlink, .rs-figure-data, .md-source-file, nav";
  const shown = el => el.checkVisibility ? el.checkVisibility({checkOpacity: false, checkVisibilityCSS: true})
                                         : !!el.offsetParent;
  let words = 0;
  const walker = document.createTreeWalker(art, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(skip) || !shown(el)) continue;
    words += (n.textContent.match(/[A-Za-z0-9\u00c0-\u024f][\\w'\u2019.\u2212-]*/g) || []).length;
  }
  const marks = [...art.querySelectorAll("a.rcpt, sup.src, details.rcpt-line > summary")]
    .filter(a => shown(a) && !a.closest("details.rcpt-line:not([open]) > :not(summary)"));
  const receipts = [...art.querySelectorAll("a.rcpt.num")].filter(shown);
  const data = JSON.parse((document.getElementById("receipt-data") || {}).textContent || "{}");
  const unlabelled = [...art.querySelectorAll("a.rcpt.num")].filter(a => {
    const rec = data[a.dataset.claim] || (data.claims || {})[a.dataset.claim] || {};
    return !(rec.what || {})[a.dataset.key];
  }).map(a => a.dataset.claim + " / " + a.dataset.key);
  const crowded = [...art.querySelectorAll("p, li")].map(p => [p, marks.filter(m => p.contains(m) &&
      m.closest("p, li") === p).length]).filter(([p, n]) => n > LIMIT)
    .map(([p, n]) => n + ": " + p.textContent.trim().slice(0, 80));
  const under = m => !!m.closest(".rcpt-line");
  return {words, marks: marks.length, receipts: receipts.length,
          markers: marks.filter(m => m.matches("a.rcpt-mark") && !under(m)).length,
          figures: marks.filter(under).length,
          sources: marks.filter(m => m.matches("sup.src")).length, unlabelled, crowded};
}""".replace("LIMIT_MARKS", str(MARKS_PER_PARAGRAPH))


def course_pages() -> list[str]:
    return [p for p in site_pages() if p.startswith(COURSE) and p not in NOT_COURSE]


def test_course_pages_mark_results_not_settings(new_context: Any, base_url: str) -> None:
    page = new_context().new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    rows = []
    for path in course_pages():
        page.goto(base_url + path, wait_until="load")
        rows.append({"page": path, **page.evaluate(MEASURE)})
    words = sum(r["words"] for r in rows)
    marks = sum(r["receipts"] + r["markers"] for r in rows)
    SHOTS.mkdir(exist_ok=True)
    REPORT.write_text(
        json.dumps({"words": words, "numbers": marks, "marks": sum(r["marks"] for r in rows), "pages": rows}, indent=1)
        + "\n",
        encoding="utf-8",
    )
    assert marks and words / marks >= WORDS_PER_MARK, (
        f"course pages: {words} visible words, {marks} marked numbers, one every {words / max(marks, 1):.0f} words "
        f"(at least {WORDS_PER_MARK}); per page in {REPORT}"
    )
    crowded = {r["page"]: r["crowded"] for r in rows if r["crowded"]}
    assert not crowded, f"paragraphs with more than {MARKS_PER_PARAGRAPH} marks: {crowded}"
    unlabelled = {r["page"]: r["unlabelled"] for r in rows if r["unlabelled"]}
    assert not unlabelled, f"receipts on numbers facts/receipts.toml does not name as results: {unlabelled}"
