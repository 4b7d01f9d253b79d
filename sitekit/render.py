"""Fill a page's `{{ macro(...) }}` calls from recorded results: the expansion stage of the page pipeline.

Macros (arguments are Python literals):

- `{{ value("claim_id", "key.sub", ".3g") }}`   a measured number or string, typeset (4.4 × 10⁻²⁹)
- `{{ table("claim_id", "key", ".3g") }}`       a recorded {"columns": [...], "rows": [[...]]} table
- `{{ error("claim_id", "key") }}`              an exception message captured from execution
- `{{ code("claim_id", "key", "lang") }}`       a recorded string (e.g. generated BibTeX) as a code block
- `{{ figure("name", "alt text") }}`            a numbered figure drawn from recorded results (sitekit.figures),
                                                with one receipt under it
- `{{ figref("name") }}`                        "Figure n", linked, for a figure the page shows
- `{{ claim("claim_id") }}`                     a receipt marker for a sentence that shows no number
- `{{ hardware() }}`                            where the recorded claims ran
- `{{ ledger() }}`                              the ledger of every claim (the Claims page)

Receipts: every number `value()` prints outside math is itself a link to the claim's ledger row
(`<a class="rcpt">`); docs/assets/js/receipts.js turns it into a popover with the record (sentence,
value, seeds, device, torch, date, counterfactuals, listing). A table, error, code block or figure
gets one receipt under it, not one per cell. `claim()` in a paragraph whose numbers already carry
receipts of that claim adds nothing; elsewhere it is a small marker. Inside math (`\\( ... \\)`,
`\\[ ... \\]`, `$$ ... $$`) `value()` prints plain TeX and no receipt. The first receipt of a claim on
the page its marker names carries `id="use-<claim>"`: the ledger links back to it.

A page that cites a claim that is missing, failing or stale does not build: the error says which page,
which claim and the command that fixes it. Plain Python, so it can move with the pages.

Where things live: the Context and the macro registry (page_context), number typesetting (typesetting),
receipts (receipts), the macros (macros; hardware() in pagefacts, ledger() and its helpers in ledger), the
line under a page's title (pagefacts). This module walks a page's lines and expands each macro once.
"""

from __future__ import annotations

import ast
import re

from sitekit import contract, notebook_index, notebook_page, receipt_labels  # noqa: F401  (each registers its macro)
from sitekit.claims import ROOT, ClaimError
from sitekit.ledger import key_value, uncited
from sitekit.macros import label_numbers_unbound
from sitekit.page_context import MACRO, MACROS, Context, page_url
from sitekit.pagefacts import FENCE_LINE, outside_fences, page_facts, reading_minutes, with_page_facts
from sitekit.receipts import SOURCE_DIR, listing_anchor, receipt_data
from sitekit.typesetting import _inline, column_formats, fmt, typeset, typeset_html

# Importing the stages' modules registers their macros (@macro). The names other code has always imported
# from sitekit.render stay importable from here.
__all__ = [
    "MACRO",
    "MACROS",
    "SOURCE_DIR",
    "ClaimError",
    "Context",
    "column_formats",
    "fmt",
    "key_value",
    "label_numbers_unbound",
    "listing_anchor",
    "outside_fences",
    "page_facts",
    "page_url",
    "reading_minutes",
    "receipt_data",
    "render",
    "typeset",
    "typeset_html",
    "uncited",
    "with_page_facts",
]

TRAILING_MARK = re.compile(r"^\s*[.,;)](?:\s|$)")
MARK = '<a class="rcpt rcpt-mark '  # what marker() writes (its kind's class follows)
EMPTY_ANCHOR = re.compile(r'<span id="use-[a-z0-9-]+"></span>')  # a claim() that marks nothing, for the ledger
# Lines a marker never joins: fences, headings, tables, HTML, admonition titles and other block starts.
OWN_LINE = re.compile(
    r"^\s*(?:`{3,}|~{3,}|#{1,6}\s|\||!!!|\?\?\?|===|<(?:p|div|figure|table|details|pre|[uo]l|h\d|svg|img)\b)"
)
ADMONITION_TITLE = re.compile(r"^\s*(\?\?\?\+?|!!!)\s")
LINK_TAG = re.compile(r"</?a\b[^>]*>")
SOURCE_MARK = re.compile(r'<sup class="src">.*?</sup>')
MD_LINK = re.compile(r'\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)(?:\{[^}]*\})?')
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
TOKEN = re.compile(r"(?P<math>\\\(|\\\)|\\\[|\\\]|\$\$)|" + MACRO.pattern)
MATH_OPENS = {"\\(": True, "\\)": False, "\\[": True, "\\]": False}
NEW_BLOCK = re.compile(r"^\s*(?:$|#{1,6}\s|[-*+]\s|\d+\.\s|!!!|\?\?\?|===)")


def labelled_claims(text: str) -> set[str]:
    """The claims this page shows a labelled result of (facts/receipts.toml): their receipt is on that number,
    so a claim() marker for them adds nothing."""
    out = set()
    for m in MACRO.finditer(text):
        if m["name"] != "value":
            continue
        try:
            args = ast.literal_eval(f"({m['args']},)")
        except (SyntaxError, ValueError):
            continue  # render() reports it where it expands the call
        if len(args) >= 2 and receipt_labels.label(str(args[0]), str(args[1])):
            out.add(str(args[0]))
    return out


def render(text: str, ctx: Context) -> str:
    """Expand every macro call outside code in a page's Markdown; raise ClaimError on a bad one.

    Math delimiters are followed across lines, so a value() inside `\\( ... \\)` prints TeX.
    """
    ctx.listings = {}
    for inc in contract.includes(ROOT / "docs" / ctx.page, text):
        ctx.listings.setdefault(inc.path, listing_anchor(inc.path))

    def expand(m: re.Match[str]) -> str:
        name = m["name"]
        if name not in MACROS:
            raise ClaimError(f"docs/{ctx.page}: unknown macro {name!r}; known: {sorted(MACROS)}")
        try:
            args = ast.literal_eval(f"({m['args']},)") if m["args"].strip() else ()
        except (SyntaxError, ValueError):
            raise ClaimError(f"docs/{ctx.page}: cannot read {m[0]!r}; arguments must be literals") from None
        try:
            return MACROS[name](ctx, *args)
        except ClaimError as err:
            if ctx.strict:
                raise
            return f'<span class="claim-problem">⚠ {_inline(str(err))}</span>'

    def segment(part: str) -> str:
        out, last = [], 0
        for m in TOKEN.finditer(part):
            out.append(part[last : m.start()])
            last = m.end()
            if m["math"]:
                ctx.in_math = not ctx.in_math if m["math"] == "$$" else MATH_OPENS[m["math"]]
                out.append(m[0])
            else:
                done = expand(m)
                before = "".join(out)
                if (not done or done.startswith(MARK) or EMPTY_ANCHOR.fullmatch(done)) and before.strip():
                    # A claim() that adds nothing takes its space; a marker sits on the word (or formula)
                    # before it, like a footnote mark, so that no text reading of the page says "rounding ."
                    out = [before.rstrip(" ")]
                elif not done and part[last : last + 1] == " ":  # ... or, first on its line, the one after
                    last += 1
                out.append(done)
        out.append(part[last:])
        return "".join(out)

    written: list[bool] = []

    def prose(line: str) -> str:
        if NEW_BLOCK.match(line):
            if written:  # the paragraph just closed had text: it becomes the one "before"
                ctx.previous = set(ctx.block)
                written.clear()
            ctx.block.clear()
            ctx.works.clear()
            if not line.strip():
                ctx.in_math = False
        if line.strip():
            written.append(True)
        out, last = [], 0
        for span in CODE_SPAN.finditer(line):
            out.append(segment(line[last : span.start()]))
            out.append(span[0])
            last = span.end()
        out.append(segment(line[last:]))
        # A multi-line expansion on an indented line (inside a tab or an admonition) keeps that indent.
        indent = line[: len(line) - len(line.lstrip())]
        expanded = "".join(out).replace("\n", "\n" + indent)
        if ADMONITION_TITLE.match(line):
            # The title becomes a <summary>, itself a control: a link inside it is a control inside a
            # control (axe: nested-interactive). The number stays; its receipt is in the body and ledger.
            expanded = MD_LINK.sub(r"\1", LINK_TAG.sub("", SOURCE_MARK.sub("", expanded)))
        return expanded

    ctx.source = text  # figref() numbers figures by where the page shows them
    ctx.labelled = labelled_claims(text)
    ctx.works = set()
    lines: list[str] = []
    for line, is_prose in outside_fences(text):
        if is_prose:
            from_macro = line.lstrip().startswith("{{")
            line = prose(line)
            # A colon left first on its line by a claim that rendered as nothing joins the line before
            # (only then: a colon that starts a line in the source is Markdown's, a definition).
            if from_macro and lines and lines[-1].strip() and re.match(r"^\s*:(?:\s|$)", line):
                lines[-1] = lines[-1].rstrip() + line.lstrip()
                continue
            # A line that now starts with punctuation (a macro line above it, or a claim marker that
            # rendered as nothing, ends the sentence) joins the line before: no space before the mark.
            if lines and lines[-1].strip() and TRAILING_MARK.match(line) and not FENCE_LINE.match(lines[-1]):
                lines[-1] = lines[-1].rstrip() + line.lstrip()
                continue
            # A marker first on its line sits on the last word of the line before, in the same paragraph.
            if line.lstrip().startswith(MARK) and lines and lines[-1].strip() and not OWN_LINE.match(lines[-1]):
                lines[-1] = lines[-1].rstrip() + line.lstrip()
                continue
        lines.append(line)
    missing = sorted(cid for cid in ctx.cited if cid in ctx.cpu and ctx.cpu[cid].page == ctx.page)
    missing = [cid for cid in missing if cid not in ctx.anchored]
    if missing and ctx.strict:
        raise ClaimError(
            f"docs/{ctx.page} shows claim {missing[0]!r} only inside math, so the ledger has nothing to "
            f'link back to: add {{{{ claim("{missing[0]}") }}}} after the sentence.'
        )
    return "\n".join(lines)
