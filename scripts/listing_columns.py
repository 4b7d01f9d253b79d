"""Print how many characters of code fit on a line of each listing of the built site, at 1280 px.

    PYTHONPATH=. .nox/site/bin/python scripts/listing_columns.py [SITE_DIR]   (default site/)

One row per listing: columns that fit, its longest line, its page and title. sitekit/listing_width.py's
constants (the page body's, a fold's and a list item's columns) were read from this output; run it again
after a change to the theme's fonts or widths and update them. Folds are opened and every tab is shown, as
the browser suite's listing-width check does.
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from browser_tests.harness import chromium_path

MEASURE = """() => {
  document.querySelectorAll("article details").forEach(d => { d.open = true; });
  const show = document.createElement("style");
  show.textContent = ".md-content .md-typeset > * { content-visibility: visible !important; } "
    + ".md-typeset .tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }";
  document.head.append(show);
  const rows = [];
  for (const div of document.querySelectorAll("article div.highlight")) {
    const name = div.querySelector("span.filename")?.innerText.trim() || "";
    const code = div.querySelector("pre > code");
    if (!name.endsWith(".py") || !code) continue;
    const probe = document.createElement("span");
    probe.textContent = "0".repeat(100);
    code.append(probe);
    const char = probe.getBoundingClientRect().width / 100;
    probe.remove();
    const style = getComputedStyle(code);
    const inner = code.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const longest = Math.max(...code.innerText.split("\\n").map(l => l.length));
    rows.push([Math.floor(inner / char), longest, name]);
  }
  return rows;
}"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # one line per request would bury the table
        pass


def main(site: Path) -> None:
    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    pages = sorted(p.parent.relative_to(site).as_posix() for p in site.rglob("index.html"))
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium_path(), args=["--no-sandbox", "--disable-background-networking"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for path in pages:
            page.goto(base + ("" if path == "." else path + "/"))
            for fits, longest, name in page.evaluate(MEASURE):
                print(f"{fits:4d} {longest:4d}  {path}  {name}")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "site"))
