"""Two builds of the same rendered pages, compared as a reader sees them: for each page, the headings, the
visible text of the article, its figures and its receipts. Standard library only: it runs beside any
generator (scripts/zensical_build.py compares Zensical's build with MkDocs').
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

ARTICLE = re.compile(r"<article\b[^>]*>(.*)</article>", re.S)
HIDDEN = {"script", "style", "svg", "template", "noscript"}  # not read as text (a figure is counted instead)
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Page:
    headings: list[str] = field(default_factory=list)
    text: str = ""
    figures: int = 0  # inline SVG drawings and images
    receipts: int = 0  # receipt anchors (class "rcpt")


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page, self.words, self.stack, self.heading = Page(), [], [], None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag in ("svg", "img") and not any(t in HIDDEN for t in self.stack):
            self.page.figures += 1
        if tag == "a" and "rcpt" in classes:
            self.page.receipts += 1
        if "headerlink" in classes:  # the permalink mark a generator adds to a heading
            self.stack.append("template")
            return
        if tag in HEADINGS:
            self.heading = []
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or tag not in self.stack:
            return
        while self.stack and self.stack.pop() != tag:
            pass
        if tag in HEADINGS and self.heading is not None:
            self.page.headings.append(" ".join(" ".join(self.heading).split()))
            self.heading = None
        if self.stack and self.stack[-1] == "template" and tag == "a":
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if any(t in HIDDEN for t in self.stack):
            return
        self.words.append(data)
        if self.heading is not None:
            self.heading.append(data)


def read(html: str) -> Page:
    """What a reader sees of one page's article (the whole body where there is no <article>)."""
    m = ARTICLE.search(html)
    reader = _Reader()
    reader.feed(m[1] if m else html)
    reader.close()
    reader.page.text = " ".join(" ".join(reader.words).split())
    return reader.page


def differences(a: Page, b: Page) -> list[str]:
    out = []
    if a.headings != b.headings:
        only_a = [h for h in a.headings if h not in b.headings]
        only_b = [h for h in b.headings if h not in a.headings]
        out.append(f"headings differ (only in the first: {only_a[:3]}; only in the second: {only_b[:3]})")
    if a.text != b.text:
        i = next(
            (i for i, (x, y) in enumerate(zip(a.text, b.text, strict=False)) if x != y), min(len(a.text), len(b.text))
        )
        out.append(
            f"visible text differs from character {i}: {a.text[max(0, i - 40) : i + 60]!r} against "
            f"{b.text[max(0, i - 40) : i + 60]!r}"
        )
    if a.figures != b.figures:
        out.append(f"{a.figures} figures against {b.figures}")
    if a.receipts != b.receipts:
        out.append(f"{a.receipts} receipts against {b.receipts}")
    return out


def pages(site: Path) -> list[str]:
    """The content pages of a built site (index.html files and pages), without the generator's own."""
    out = []
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel.startswith(("assets/", "src/", "search/")) or rel == "404.html":
            continue
        out.append(rel)
    return out


def compare(first: Path, second: Path, skip: list[str] = ()) -> tuple[list[str], int]:
    """Every page of `first` against the same page of `second`: (problems, pages compared)."""
    problems, n = [], 0
    for rel in pages(first):
        if any(rel.startswith(s) for s in skip):
            continue
        other = second / rel
        if not other.is_file():
            problems.append(f"{rel}: missing from {second.name}/")
            continue
        n += 1
        a = read((first / rel).read_text(encoding="utf-8"))
        b = read(other.read_text(encoding="utf-8"))
        problems += [f"{rel}: {d}" for d in differences(a, b)]
    return problems, n
