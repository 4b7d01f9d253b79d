"""Math typeset when the site is built: KaTeX's own renderToString, run by Node on the vendored copy.

pymdownx.arithmatex (generic) writes each formula as `<span class="arithmatex">\\(...\\)</span>` or
`<div class="arithmatex">\\[...\\]</div>`; `typeset` replaces the TeX inside with KaTeX's HTML (and its
MathML, for screen readers), so a page needs KaTeX's CSS and fonts but no script. One Node process
serves a whole build, one request per page; formulas are cached by hash for the life of the process
(`mkdocs serve` re-typesets only what changed). A fresh build typesets every formula anew.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KATEX = ROOT / "docs" / "assets" / "katex" / "katex.min.js"
KATEX_CSS = KATEX.with_name("katex.min.css")
FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
# A formula wrapped twice: a caption that a macro already wrapped, inside Markdown that arithmatex reads again
# (a figure placed in a content tab).
NESTED = re.compile(r'<span class="arithmatex"><span class="arithmatex">(.*?)</span></span>', re.S)
DELIMITED = re.compile(r"\A\s*\\([(\[])(.*)\\([)\]])\s*\Z", re.S)

# Reads one JSON array of [tex, display] per line; answers one array of {html} or {error} per line.
SERVER = r"""
const katex = require(process.argv[1]);
const lines = require("readline").createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const out = JSON.parse(line).map(([tex, display]) => {
    try {
      return { html: katex.renderToString(tex, { displayMode: display, throwOnError: true }) };
    } catch (err) {
      return { error: String(err.message || err) };
    }
  });
  process.stdout.write(JSON.stringify(out) + "\n");
});
"""


class MathError(Exception):
    """A formula KaTeX cannot typeset, or no Node to run it with."""


class KaTeX:
    """One Node process running the vendored KaTeX, started on first use."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.cache: dict[str, str] = {}

    def _start(self) -> subprocess.Popen[str]:
        node = os.environ.get("SITE_NODE") or shutil.which("node")
        if not node:
            raise MathError(
                "math is typeset at build time by Node.js running docs/assets/katex/katex.min.js: "
                "install Node 18+ (Debian: `apt-get install nodejs`) or set SITE_NODE to a node binary."
            )
        self.proc = subprocess.Popen(
            [node, "-e", SERVER, str(KATEX)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        atexit.register(self.close)
        return self.proc

    def render(self, formulas: list[tuple[str, bool]]) -> list[dict[str, str]]:
        """KaTeX's answer for each (tex, display): {"html": ...} or {"error": ...}."""
        keys = [hashlib.sha256(f"{display}\0{tex}".encode()).hexdigest() for tex, display in formulas]
        todo = list({k: f for k, f in zip(keys, formulas, strict=True) if k not in self.cache}.items())
        errors: dict[str, str] = {}  # not cached: the next build says them again
        if todo:
            proc = self.proc if self.proc and self.proc.poll() is None else self._start()
            assert proc.stdin and proc.stdout and proc.stderr
            proc.stdin.write(json.dumps([f for _, f in todo]) + "\n")
            proc.stdin.flush()
            answer = proc.stdout.readline()
            if not answer:
                raise MathError(f"the KaTeX process (node) stopped: {proc.stderr.read()[-2000:]}")
            for (key, _), out in zip(todo, json.loads(answer), strict=True):
                if "html" in out:
                    self.cache[key] = out["html"]
                else:
                    errors[key] = out["error"]
        return [{"html": self.cache[k]} if k in self.cache else {"error": errors[k]} for k in keys]

    def close(self) -> None:
        """End the Node process (it exits when its input closes); the cache stays."""
        if self.proc is not None:
            with self.proc:  # closes the pipes, then waits
                self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc = None


@functools.cache
def _font_rules() -> list[tuple[list[frozenset[str]], str]]:
    """(compound selectors as class sets, font file) for each katex.min.css rule that picks a KaTeX font."""
    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*font-family:KaTeX_[^{}]*)\}", KATEX_CSS.read_text("utf-8")):
        family = re.search(r"font-family:(KaTeX_\w+)", body).group(1)  # type: ignore[union-attr]
        style = ("Bold" if "font-weight:700" in body else "") + ("Italic" if "font-style:italic" in body else "")
        for selector in selectors.split(","):
            compounds = [frozenset(re.findall(r"\.([\w-]+)", c)) for c in re.split(r"[\s>]+", selector.strip())]
            if compounds[0] == {"katex"}:
                rules.append(([c for c in compounds[1:] if c], f"{family}-{style or 'Regular'}.woff2"))
    return rules


def fonts(page_html: str) -> list[str]:
    """The KaTeX font files a page's typeset math draws with (as katex.min.css picks them)."""
    if 'class="katex"' not in page_html:
        return []
    elements = {frozenset(value.split()) for value in re.findall(r'class="([^"]*)"', page_html)}
    found = {"KaTeX_Main-Regular.woff2"}  # .katex itself
    for compounds, font in _font_rules():
        if all(any(c <= e for e in elements) for c in compounds):
            found.add(font)
    return sorted(found)


def preload_fonts(page_html: str) -> str:
    """The page with a <link rel=preload> for each KaTeX font its math uses, ahead of katex.min.css:
    the fonts arrive before the first layout, so no text moves when they do."""
    link = re.search(r'<link rel="stylesheet" href="([^"]*)katex\.min\.css">', page_html)
    wanted = fonts(page_html)
    if link is None or not wanted:
        return page_html
    tags = "".join(
        f'<link rel="preload" href="{link.group(1)}fonts/{font}" as="font" type="font/woff2" crossorigin>'
        for font in wanted
    )
    return page_html[: link.start()] + tags + page_html[link.start() :]


def typeset(page_html: str, katex: KaTeX) -> tuple[str, list[str]]:
    """The page with every arithmatex formula rendered by KaTeX, and one line per formula it rejected.

    A rejected formula keeps its TeX (the page still builds in preview); the caller decides to fail.
    """
    page_html = NESTED.sub(r'<span class="arithmatex">\1</span>', page_html)
    found = []
    for m in FORMULA.finditer(page_html):
        delimited = DELIMITED.match(html.unescape(m.group(2)))
        if delimited is None or (delimited.group(1) == "[") != (m.group(1) == "div"):
            found.append((m, None))  # not a formula arithmatex wrote: leave it, report it
        else:
            found.append((m, (delimited.group(2).strip(), m.group(1) == "div")))
    answers = iter(katex.render([f for _, f in found if f is not None]))
    out: list[str] = []
    problems: list[str] = []
    end = 0
    for m, formula in found:
        out.append(page_html[end : m.start()])
        end = m.end()
        answer = next(answers) if formula is not None else {"error": "not one \\(...\\) or \\[...\\] formula"}
        if "html" in answer:
            out.append(f'<{m.group(1)} class="arithmatex">{answer["html"]}</{m.group(1)}>')
        else:
            problems.append(f"KaTeX rejects {html.unescape(m.group(2)).strip()!r}: {answer['error']}")
            out.append(m.group(0))
    out.append(page_html[end:])
    return "".join(out), problems
