"""How long each page is as a reader first sees it: height in px and the words shown, folds closed.

    .nox/site/bin/python scripts/page_heights.py [--site site] [--json out.json] [prefix ...]

Serves a built site on 127.0.0.1 (browser_tests/harness.py's server, its guarded contexts and Debian's
Chromium) and loads every page under `module/` and `encyclopedia/` (or the URL prefixes given) in the
light scheme with every `<details>` fold left closed. For each page it prints the page's height in a
1280 x 800 window and in a 390 x 844 one (every block drawn: content-visibility would otherwise stand in
at a guessed height on a phone) and the words of the article a reader sees without opening anything:
text inside a closed fold (but its summary), on a tab not chosen, in KaTeX's hidden MathML copy or in a
figure drawn for the other width is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# The visible words of the article, folds closed: text nodes that are rendered (checkVisibility), not inside
# a closed <details> other than in its <summary>, not in KaTeX's MathML copy or a heading's permalink.
VISIBLE_WORDS = r"""() => {
  const article = document.querySelector("article.md-content__inner") || document.querySelector("article");
  const walk = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  let words = 0;
  while (walk.nextNode()) {
    const node = walk.currentNode;
    const el = node.parentElement;
    if (!el || el.closest(".katex-mathml, .headerlink, script, style")) continue;
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    const fold = el.closest("details:not([open])");
    if (fold && !el.closest("summary")) continue;
    const found = node.nodeValue.match(/[\p{L}\p{N}][\p{L}\p{N}'’.,\-]*/gu);
    words += found ? found.length : 0;
  }
  return words;
}"""

HEIGHT = "document.documentElement.scrollHeight"
CLOSE_FOLDS = "document.querySelectorAll('article details[open]').length"


def measure(browser: Any, base_url: str, path: str) -> dict[str, Any]:
    """One page's heights at 1280 and 390 px and its visible words, in the light scheme, folds closed."""
    from browser_tests.harness import DRAW_ALL, guarded_context

    ctx = guarded_context(browser, "light")
    try:
        page = ctx.new_page()
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(base_url + path, wait_until="load")
        page.wait_for_load_state("networkidle")
        page.add_style_tag(content=DRAW_ALL)
        page.wait_for_timeout(50)
        row = {
            "page": path,
            "height_1280": page.evaluate(HEIGHT),
            "words": page.evaluate(VISIBLE_WORDS),
            "open_folds": page.evaluate(CLOSE_FOLDS),  # folds written open (`???+`): counted as shown
        }
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(150)  # the theme's layout for narrow screens
        row["height_390"] = page.evaluate(HEIGHT)
        if ctx.guard.foreign:
            raise SystemExit(f"/{path} asked other hosts for {ctx.guard.foreign}")
        return row
    finally:
        ctx.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", default=["module/", "encyclopedia/"], help="URL prefixes to measure")
    parser.add_argument("--site", default=os.environ.get("SITE_DIR", str(ROOT / "site")), help="a built site")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    os.environ["SITE_DIR"] = str(Path(args.site).resolve())  # read by the harness when it is imported
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from browser_tests.harness import CHROMIUM_ARGS, chromium_path, served, site_pages

    pages = [p for p in site_pages() if any(p.startswith(prefix) for prefix in args.prefixes)]
    rows = []
    with served() as base_url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            for path in pages:
                rows.append(measure(browser, base_url, path))
                r = rows[-1]
                print(f"{r['page']:<42} {r['height_1280']:>7,} {r['height_390']:>7,} {r['words']:>6,}", flush=True)
        finally:
            browser.close()
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(f"{len(rows)} pages; columns: page, height at 1280 px, height at 390 px, visible words (folds closed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
