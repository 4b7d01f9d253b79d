"""What the browser suite shares: where the site and browser are, guarded contexts, one visit per page.

SITE_DIR is the built site (default site/); SITE_CHROMIUM a Chromium binary (default Debian's
`chromium`). Playwright drives that system browser: its own browser download is never used.
Every context aborts and records requests to any host but 127.0.0.1, so a page that reaches out
to a CDN fails the suite instead of quietly working on a connected machine.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = Path(os.environ.get("SITE_DIR", ROOT / "site")).resolve()
SHOTS = ROOT / "screenshots"
AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"  # axe-core 4.14.1
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCHEMES = ("light", "dark")
KINDS = {
    ".html": "html",
    ".js": "js",
    ".css": "css",
    ".woff2": "font",
    ".woff": "font",
    ".ttf": "font",
    ".svg": "image",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".gif": "image",
    ".webp": "image",
    ".json": "data",
    ".ipynb": "data",
}


def chromium_path() -> str:
    """The system Chromium Playwright drives (SITE_CHROMIUM overrides)."""
    found = os.environ.get("SITE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found or not Path(found).exists():
        raise pytest.UsageError(
            "no Chromium found: `apt-get install chromium` (Debian; `nox -s browser` does it when run as root) "
            "or point SITE_CHROMIUM at a Chromium binary."
        )
    return found


def site_pages(site: Path = SITE) -> list[str]:
    """Every page of the built site as a path under its root ("" is the home page), from the sitemap."""
    sitemap = site / "sitemap.xml"
    if not (site / "index.html").is_file() or not sitemap.is_file():
        raise pytest.UsageError(
            f"no built site at {site}: run `nox -s browser` (it builds one) or set SITE_DIR to a mkdocs build."
        )
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [el.text.strip() for el in ET.parse(sitemap).getroot().findall("s:url/s:loc", ns) if el.text]
    home = min(locs, key=len)
    return sorted(loc.removeprefix(home) for loc in locs)


def page_id(path: str) -> str:
    return path.strip("/").replace("/", "-") or "home"


def page_scope(nodeid: str, page_ids: list[str]) -> str | None:
    """The page a test is about, from its id (`test_x[<page id>-<other params>]`), or None."""
    params = nodeid.partition("[")[2].removesuffix("]")
    found = [p for p in page_ids if params == p or params.startswith(p + "-")]
    return "page:" + max(found, key=len) if found else None


def local_file(url_path: str, site: Path = SITE) -> Path:
    """The file the local server answers a URL path with."""
    target = site / unquote(url_path).lstrip("/")
    return target / "index.html" if url_path.endswith("/") or target.is_dir() else target


@functools.cache
def soup(path: str) -> Any:
    """The parsed HTML of a built page, parsed once per process: read it, never modify it."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(local_file("/" + path).read_text(encoding="utf-8"), "html.parser")


def pages_with(selector: str) -> list[str]:
    """The built pages whose HTML has an element matching a CSS selector."""
    return [p for p in site_pages() if soup(p).select_one(selector) is not None]


def nav_page(title: str) -> str:
    """The path of the page a nav entry with this title links to (from the home page's nav)."""
    home = soup("")
    for a in home.select("nav.md-nav--primary a.md-nav__link[href]"):
        if a.get_text(" ", strip=True) == title:
            href = a["href"].removeprefix("./")
            return "" if href in (".", "") else href
    raise AssertionError(f"the nav has no entry titled {title!r}")


@dataclass
class Guard:
    """What a browser context asked of the network: other hosts are refused and remembered."""

    foreign: list[str] = field(default_factory=list)
    fetched: list[str] = field(default_factory=list)

    def route(self, route: Any) -> None:
        url = route.request.url
        if urlparse(url).hostname == "127.0.0.1":
            self.fetched.append(url)
            route.continue_()
        else:
            self.foreign.append(url)
            route.abort()


PHONE = 390  # px: a common phone's width in CSS pixels


def guarded_context(browser: Any, scheme: str = "light", **options: Any) -> Any:
    """A fresh browser context whose requests off 127.0.0.1 are aborted and listed in `ctx.guard`."""
    ctx = browser.new_context(
        color_scheme=scheme, viewport={"width": 1280, "height": 900}, reduced_motion="reduce", **options
    )
    ctx.guard = Guard()
    ctx.route("**/*", ctx.guard.route)
    return ctx


@dataclass
class Visit:
    """Everything one cold visit of one page in one colour scheme showed."""

    path: str
    scheme: str
    body_scheme: str
    console_errors: list[str]
    foreign_requests: list[str]
    failed_requests: list[str]
    bytes_by_kind: dict[str, int]
    math_expected: int
    math_rendered: int
    math_errors: int
    math_unstyled: int
    math_scripts: list[str]
    unsized_images: list[str]
    images: int
    broken_images: list[str]
    serious_a11y: list[dict[str, Any]]
    screenshot: Path
    wide_listings: list[str]
    raw_tex: list[str]
    phone_width: int  # the page's scroll width in a 390 px wide window (folds opened)
    height_at_load: int  # the page's scroll height at 1280 px as loaded, and with every block drawn (DRAW_ALL)
    height_drawn: int
    phone_too_wide: list[list[Any]]  # light visit only: PHONE_TOO_WIDE at 390 px, folds open


def expected_math(path: str) -> int:
    """Formulas arithmatex found in a page's source: one .arithmatex element each in the built HTML."""
    return len(soup(path).select(".arithmatex"))


# Formulas typeset when the site was built (KaTeX's HTML inside each .arithmatex), ones KaTeX marked
# as errors, and ones whose MathML copy is not hidden (katex.min.css missing or not applied).
MATH = """() => {
  const formulas = [...document.querySelectorAll(".arithmatex")];
  return [
    formulas.filter(f => f.querySelectorAll(".katex-html").length === 1).length,
    document.querySelectorAll(".katex-error").length,
    [...document.querySelectorAll(".katex-mathml")].filter(m => getComputedStyle(m).position !== "absolute").length,
  ];
}"""

# Images that would move the text when they arrive (no width and height) or load before they are needed.
UNSIZED_IMAGES = """() => [...document.querySelectorAll("article img")]
  .filter(i => !(i.getAttribute("width") && i.getAttribute("height")) || i.loading !== "lazy")
  .map(i => (i.currentSrc || i.src).slice(0, 80))"""
LOAD_LAZY_IMAGES = """() => Promise.all([...document.images].map(i => {
  i.loading = "eager";
  return i.decode().catch(() => null);
}))"""

RAW_TEX = r"""() => {
  const found = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode;
    if (/\\[(\[]/.test(node.nodeValue) && !node.parentElement.closest("code, pre, script, style, .katex"))
      found.push(node.nodeValue.trim().slice(0, 80));
  }
  return found;
}"""

WIDE_LISTINGS = """() => {
  document.querySelectorAll("article details").forEach(d => { d.open = true; });
  // A tab's content is display: none until its tab is chosen, and measures 0 px wide: show every tab while
  // measuring, so that a listing on a tab a reader has not opened is checked too.
  const all_tabs = document.createElement("style");
  all_tabs.textContent = ".md-typeset .tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }";
  document.head.append(all_tabs);
  const wide = [...document.querySelectorAll("article div.highlight")]
    .map(div => [div.querySelector("span.filename")?.innerText.trim() || "", div.querySelector("pre > code")])
    .filter(([name, code]) => name.endsWith(".py") && code && code.scrollWidth > code.clientWidth + 1)
    .map(([name, code]) => `${name}: ${code.scrollWidth} px of code in ${code.clientWidth} px`);
  all_tabs.remove();
  return wide;
}"""

# Should blocks off screen ever be skipped until a reader scrolls near them (content-visibility; site.css
# used it on phones until 2026-12), axe still judges every block as it is drawn then.
DRAW_ALL = ".md-content .md-typeset > * { content-visibility: visible !important; }"

# Every axe rule in the light scheme; in the dark one only those that depend on colour.
SCROLL_HEIGHT = "document.documentElement.scrollHeight"

# At 390 px: display formulas wider than the screen (or scrolling without a tab stop), and tables of up to three
# columns that scroll sideways, as [kind, scroll width or right edge, width].
PHONE_TOO_WIDE = """() => [
  ...[...document.querySelectorAll('.katex-display')].filter(k => k.getClientRects().length).map(k => {
    const r = k.getBoundingClientRect(), scrolls = k.scrollWidth > k.clientWidth + 1;
    return ['formula', r.left < -1 || (scrolls && k.tabIndex !== 0) ? 9999 : Math.round(r.right), innerWidth];
  }),
  ...[...document.querySelectorAll('.md-typeset__scrollwrap')]
    .filter(w => {
      const t = w.querySelector('table');
      return t && t.rows.length && t.rows[0].cells.length <= 3;
    })
    .map(w => ['table', w.scrollWidth, w.clientWidth]),
].filter(([, scroll, width]) => scroll > width + 1)"""

AXE_RULES = {"light": None, "dark": ["color-contrast", "link-in-text-block"]}
AXE_SERIOUS = """async (rules) => {
  const options = {resultTypes: ["violations"]};
  if (rules) options.runOnly = {type: "rule", values: rules};
  const r = await axe.run(document, options);
  return r.violations
    .filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ") + " :: " + n.failureSummary)}));
}"""


@functools.cache
def _axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


class Visits:
    """Visit each (page, scheme) once, lazily, and keep what was seen for every test to check."""

    def __init__(self, browser: Any, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.seen: dict[tuple[str, str], Visit] = {}

    def get(self, path: str, scheme: str = "light") -> Visit:
        key = (path, scheme)
        if key not in self.seen:
            self.seen[key] = self._visit(path, scheme)
        return self.seen[key]

    def _visit(self, path: str, scheme: str) -> Visit:
        ctx = guarded_context(self.browser, scheme)
        page = ctx.new_page()
        errors: list[str] = []
        failed: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        page.on("requestfailed", lambda r: failed.append(f"{r.url} ({r.failure})"))
        page.on("response", lambda r: failed.append(f"{r.url} (HTTP {r.status})") if r.status >= 400 else None)
        try:
            page.goto(self.base_url + path, wait_until="load")
            page.wait_for_load_state("networkidle")
            body_scheme = page.evaluate("document.body.dataset.mdColorScheme")
            height_at_load = page.evaluate(SCROLL_HEIGHT)
            math_rendered, math_errors, math_unstyled = page.evaluate(MATH)
            raw_tex = page.evaluate(RAW_TEX)
            unsized = page.evaluate(UNSIZED_IMAGES)
            page.evaluate(LOAD_LAZY_IMAGES)  # for the check below and the full-page screenshot
            images, broken = page.evaluate(
                "[document.images.length, [...document.images]"
                ".filter(i => !i.complete || i.naturalWidth === 0).map(i => i.currentSrc || i.src)]"
            )
            SHOTS.mkdir(exist_ok=True)
            shot = SHOTS / f"{page_id(path)}-{scheme}.png"
            page.screenshot(path=str(shot), full_page=True)
            page.add_style_tag(content=DRAW_ALL)
            height_drawn = page.evaluate(SCROLL_HEIGHT)
            page.evaluate(_axe_source() + "\n;0")  # through DevTools: the page's CSP refuses inline scripts
            serious = page.evaluate(AXE_SERIOUS, AXE_RULES[scheme])
            wide = page.evaluate(WIDE_LISTINGS)  # opens folded blocks: keep it after the screenshot
            page.set_viewport_size({"width": PHONE, "height": 844})
            page.wait_for_timeout(100)  # the theme's layout for narrow screens
            phone_width = page.evaluate("document.documentElement.scrollWidth")
            too_wide: list[list[Any]] = []
            if scheme == "light":  # layout, not colour: one scheme is enough
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                # receipts.js checks the scroll boxes again 150 ms after a resize, when the browser is idle
                page.wait_for_timeout(500)
                too_wide = page.evaluate(PHONE_TOO_WIDE)
        finally:
            ctx.close()
        sizes: dict[str, int] = {}
        for url in dict.fromkeys(ctx.guard.fetched):
            file = local_file(urlparse(url).path)
            kind = KINDS.get(file.suffix.lower(), "other")
            sizes[kind] = sizes.get(kind, 0) + (file.stat().st_size if file.is_file() else 0)
        return Visit(
            path=path,
            scheme=scheme,
            body_scheme=body_scheme,
            console_errors=errors,
            foreign_requests=ctx.guard.foreign,
            failed_requests=[f for f in failed if not any(f.startswith(u) for u in ctx.guard.foreign)],
            bytes_by_kind=sizes,
            math_expected=expected_math(path),
            math_rendered=math_rendered,
            math_errors=math_errors,
            math_unstyled=math_unstyled,
            math_scripts=[u for u in ctx.guard.fetched if "katex" in u and urlparse(u).path.endswith(".js")],
            images=images,
            unsized_images=unsized,
            broken_images=broken,
            serious_a11y=serious,
            screenshot=shot,
            wide_listings=wide,
            raw_tex=raw_tex,
            phone_width=phone_width,
            height_at_load=height_at_load,
            height_drawn=height_drawn,
            phone_too_wide=too_wide,
        )


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the built site without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def served(handler: type[http.server.SimpleHTTPRequestHandler] = QuietHandler) -> Iterator[str]:
    """The built site served on 127.0.0.1 at a free port by `handler`; yields its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
