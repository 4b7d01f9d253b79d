"""The page macros that expand to recorded results: value, table, error, code, figure, figref, claim, and
the sourced ones, fact and sources (facts/facts.toml), an encyclopedia entry's references, and changes (the
What changed page, from the git history)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape, unescape
from typing import Any

from sitekit import contract, receipt_labels
from sitekit.claims import ROOT, Claim, ClaimError
from sitekit.page_context import Context, cuda_record, lookup, macro, verified
from sitekit.receipts import marker, receipt, receipt_line, use_anchor
from sitekit.typesetting import NUMERIC_TEXT, _inline, column_formats, fmt


@macro
def value(ctx: Context, cid: str, key: str, spec: str = "") -> str:
    c = verified(ctx, cid)
    where = f"docs/{ctx.page}: value({cid!r}, {key!r})"
    raw = lookup(c.values, key, where)
    if isinstance(raw, str):
        _check_labels(c, raw, where)
    shown = fmt(raw, spec, ctx.in_math)
    gpu = cuda_record(ctx, cid)
    if gpu is not None:
        other = fmt(lookup(gpu.values, key, where + " on CUDA"), spec, ctx.in_math)
        if other != shown:
            shown = (
                f"{shown}\\ (\\text{{CPU}}) / {other}\\ (\\text{{CUDA}})"
                if ctx.in_math
                else f"{shown} (CPU) / {other} (CUDA)"
            )
    if ctx.in_math:
        return shown
    if receipt_labels.label(cid, key) and cid not in ctx.marked and len(ctx.block) < MARKS_PER_PARAGRAPH:
        ctx.marked.add(cid)
        return receipt(ctx, c, _inline(shown), key, raw)
    return bound(ctx, c, _inline(shown))


MARKS_PER_PARAGRAPH = 3  # a paragraph's fourth result waits for the claim's next labelled occurrence


def bound(ctx: Context, c: Claim, text: str) -> str:
    """A bound number printed as plain text: a setting, a reading, or a result whose claim is already marked on
    this page. The first mention of a claim on its own page keeps the id the ledger links back to."""
    if c.page == ctx.page and c.id not in ctx.anchored:
        ctx.anchored.add(c.id)
        return f'<span id="{use_anchor(c.id)}">{text}</span>'
    return text


def _md_table(data: Any, spec: str, where: str) -> str:
    if not isinstance(data, dict) or set(data) != {"columns", "rows"}:
        raise ClaimError(f"{where}: record tables as {{'columns': [...], 'rows': [[...], ...]}}")
    columns = data["columns"]
    head = "| " + " | ".join(map(str, columns)) + " |"
    # One spec for every column, or one per column separated by ";" (a rate beside losses needs its own).
    specs = spec.split(";") if ";" in spec else [spec] * len(columns)
    if len(specs) != len(columns):
        raise ClaimError(f"{where}: {len(specs)} column formats in {spec!r} for {len(columns)} columns")
    # The first column labels the rows: integers there (a depth, a block, a seed) stay exact under any spec.
    if all(isinstance(row[0], int) and not isinstance(row[0], bool) for row in data["rows"] if row):
        specs = ["", *specs[1:]]
    cells = [column_formats([row[i] for row in data["rows"]], specs[i]) for i in range(len(columns))]
    # Numbers align right (their digits line up); a column of words or sentences reads from the left.
    numeric = [
        i > 0 and all(isinstance(row[i], (int, float)) and not isinstance(row[i], bool) for row in data["rows"])
        for i in range(len(columns))
    ]
    rule = "|" + "|".join(" ---: " if n else " --- " for n in numeric) + "|"
    body = [
        "| " + " | ".join(cells[i][r].replace("|", "\\|") for i in range(len(columns))) + " |"
        for r in range(len(data["rows"]))
    ]
    return "\n".join([head, rule, *body])


def tabs(cpu_block: str, cuda_block: str | None, ctx: Context) -> str:
    """CPU and CUDA variants as content tabs (CPU alone when CUDA has not run this code)."""
    if cuda_block is None:
        return cpu_block
    indent = lambda text: "\n".join(("    " + line) if line else "" for line in text.splitlines())  # noqa: E731
    gpu = ctx.cuda_provenance.get("gpu", "CUDA")
    return f'=== "CPU"\n\n{indent(cpu_block)}\n\n=== "CUDA ({gpu})"\n\n{indent(cuda_block)}\n'


def _measured(ctx: Context, c: Claim) -> str:
    gpu = cuda_record(ctx, c.id)
    return f"Measured on CPU{' and CUDA' if gpu else ''}, torch {c.torch}, {c.recorded_at[:10]}."


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def label_numbers_unbound(values: dict[str, Any], shown: Any = None) -> list[str]:
    """Numbers inside the recorded strings a page shows (table labels, a value that is text) that no recorded
    number of the same claim shows: a label typed as "plain, 8 layers" beside a net built with 22 is refused."""
    from sitekit.claim_numbers import unbound

    out = []
    for text in dict.fromkeys(_strings(values if shown is None else shown)):
        if VERSION_OR_DATE.fullmatch(text.strip()) or NUMERIC_TEXT.fullmatch(text.strip()) or len(text) > 200:
            continue  # a version ("2.13.0+cpu"), a date, a number the code formatted or a captured message
        text = INDEX_NAME.sub(" ", text)  # "block 2", "seed 3": an index the code enumerated names a row
        out += [f"{n} (in {text!r})" for n in unbound(text, values) if "(a bound" not in n and n not in ("0", "1")]
    return out


INDEX_WORDS = "block|layer|step|epoch|seed|position|head|sublayer|stage|round|run|token|model|window|case"
INDEX_NAME = re.compile(rf"\b(?:{INDEX_WORDS})s?\s+\d+\b", re.I)
VERSION_OR_DATE = re.compile(r"[\w.+-]*\d+\.\d+\.\d+[\w.+-]*|\d{4}-\d\d-\d\d[\w:+.-]*")


def _check_labels(c: Claim, shown: Any, where: str) -> None:
    problems = label_numbers_unbound(c.values, shown)
    if problems:
        raise ClaimError(
            f"{where}: the recorded text states {', '.join(problems)}, which no number the claim recorded shows. "
            "Make the label from the object that was built or the grid that was swept (its depth, its width) "
            "and record that number too"
        )


@macro
def table(ctx: Context, cid: str, key: str, spec: str = "") -> str:
    c = verified(ctx, cid)
    where = f"docs/{ctx.page}: table({cid!r}, {key!r})"
    data = lookup(c.values, key, where)
    if isinstance(data, dict) and isinstance(data.get("rows"), list):  # the labels: column names, first column
        _check_labels(c, [data.get("columns"), [row[0] for row in data["rows"] if row]], where)
    cpu_block = _md_table(lookup(c.values, key, where), spec, where)
    gpu = cuda_record(ctx, cid)
    cuda_block = _md_table(lookup(gpu.values, key, where), spec, where) if gpu else None
    return tabs(cpu_block, cuda_block, ctx) + "\n\n" + receipt_line(ctx, [c], _measured(ctx, c))


@macro
def table_code(ctx: Context, cid: str, key: str, *phrases: str) -> str:
    """table(), with each of `phrases` (code the recorded text names: `model.eval()`) set as a code span where it
    stands outside one. A phrase found nowhere fails the build: the record changed and the page must follow."""
    out = table(ctx, cid, key)
    pattern = re.compile("|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True)))
    found: set[str] = set()

    def spans(text: str) -> str:  # the parts of a cell outside its existing code spans
        parts = re.split(r"(`[^`]*`)", text)
        for i in range(0, len(parts), 2):
            parts[i] = pattern.sub(lambda m: found.add(m[0]) or f"`{m[0]}`", parts[i])
        return "".join(parts)

    lines = [spans(line) if line.lstrip().startswith("| ") else line for line in out.split("\n")]
    if missing := sorted(set(phrases) - found):
        raise ClaimError(f"docs/{ctx.page}: table_code({cid!r}, {key!r}): the table no longer shows {missing}")
    return "\n".join(lines)


@macro
def error(ctx: Context, cid: str, key: str) -> str:
    c = verified(ctx, cid)
    text = str(lookup(c.values, key, f"docs/{ctx.page}: error({cid!r}, {key!r})"))
    fence = f'``` {{ .text .wrap title="raised when run ({c.device}, torch {c.torch})" }}\n{text}\n```'
    return fence + "\n\n" + receipt_line(ctx, [c], "Captured from the run.")


@macro
def code(ctx: Context, cid: str, key: str, lang: str = "text") -> str:
    """A recorded string shown verbatim as a fenced code block (with the theme's copy button)."""
    if lang.lower() in contract.PYTHON_LANGS:
        raise ClaimError(
            f"docs/{ctx.page}: code({cid!r}, ...) shows {lang}; Python listings come from snippets/ "
            "through --8<-- includes, never from recorded values."
        )
    c = verified(ctx, cid)
    text = str(lookup(c.values, key, f"docs/{ctx.page}: code({cid!r}, {key!r})"))
    return f"``` {{ .{lang} .wrap }}\n{text}\n```\n\n" + receipt_line(ctx, [c], "Generated by the run.")


FIGURE_CALL = re.compile(r"\{\{\s*figure\(\s*(['\"])(?P<name>[^'\"]+)\1")
MATH = re.compile(r"\\\(.+?\\\)")


def _caption_html(text: str, stacked: bool = False) -> str:
    """Escaped caption text; inline math \\( ... \\) is left for KaTeX, as arithmatex leaves it.
    `stacked`: the phone's drawing stacks the panels, so their names read for each layout."""
    from sitekit.figure_phone import panel_words

    def words(t: str) -> str:
        return panel_words(escape(t), html=True) if stacked else escape(t)

    out, last = [], 0
    for m in MATH.finditer(text):
        out += [words(text[last : m.start()]), f'<span class="arithmatex">{escape(m[0])}</span>']
        last = m.end()
    return "".join([*out, words(text[last:])])


@macro
def figure(ctx: Context, name: str, alt: str, caption: str = "") -> str:
    """One numbered <figure>: the SVG inline (so it follows the colour scheme), its caption, and for
    an explorable the recorded values it shows, as JSON. Numbers run 1, 2, ... per page in order."""
    import json

    from sitekit.figure_phone import is_stacked, panel_words
    from sitekit.figures import DRAWN, REGISTRY, inline

    if name not in ctx.figures:
        raise ClaimError(
            f"docs/{ctx.page} shows figure {name!r}, which was not drawn: check its name in "
            "figures/*.py and that every claim it draws from passed (`nox -s tests`)."
        )
    spec = REGISTRY[name]
    drawn_from = [verified(ctx, cid) for cid in spec.claims]
    values = {c.id: c.values for c in drawn_from}
    numbers = ctx.figure_numbers
    number = numbers.setdefault(name, len(numbers) + 1)
    drawn = ctx.figures[name]
    devices = [("cpu", "CPU")]
    if spec.claims and "cuda" in drawn and all(cuda_record(ctx, cid) for cid in spec.claims):
        devices.append(("cuda", f"CUDA ({ctx.cuda_provenance.get('gpu', 'GPU')})"))
    parts, restacked = [], False
    for device, label in devices:
        svg, narrow = DRAWN.get(drawn[device]), DRAWN.get(drawn.get(f"{device}-narrow", ""))
        prefix = f"fig-{name}" + ("" if device == "cpu" else f"-{device}")
        if svg is None:  # drawn, but not through this build's hook (a test): link the file
            body = f'<img src="{ctx.link(drawn[device])}" alt="{escape(alt)}">'
        elif narrow is None:  # a diagram, which scales itself
            body = inline(svg, prefix, f"Figure {number}", alt)
        else:  # twice: site.css shows the one laid out for the reader's column
            restacked = is_stacked(narrow)
            body = inline(svg, prefix, f"Figure {number}", alt, "wide")
            own = re.search(rb"<desc>(.*?)</desc>", narrow, re.S)  # a diagram describes each drawing
            desc = alt or (unescape(own[1].decode()) if own else "")
            desc = panel_words(desc) if restacked else desc
            body += "\n" + inline(narrow, f"{prefix}-narrow", f"Figure {number}", desc, "narrow")
        if len(devices) > 1:
            body = f'<div class="rs-figure-variant"><p class="rs-figure-device">{label}</p>{body}</div>'
        parts.append(body)
    data = ""
    if spec.explore is not None:
        payload = json.dumps(spec.explore(values)).replace("</", "<\\/")
        data = f'<script type="application/json" class="rs-explorable-data">{payload}</script>'
    words = caption or spec.caption
    figcaption = f'<span class="rs-figure-number">Figure {number}.</span> {_caption_html(words, restacked)}'.strip()
    explorable = f' data-explorable="{name}"' if spec.explore is not None else ""
    html = (
        f'<figure class="rs-figure" id="figure-{name}"{explorable}>'
        + "".join(parts)
        + data
        + f"<figcaption>{figcaption}</figcaption></figure>"
    )
    html = "\n".join(line for line in html.splitlines() if line.strip())
    return html + "\n\n" + receipt_line(ctx, drawn_from, "Drawn from the records.") if drawn_from else html


@macro
def figref(ctx: Context, name: str) -> str:
    """A link to a figure on this page by its number ("Figure 2"), wherever on the page it is shown."""
    order = [m["name"] for m in FIGURE_CALL.finditer(ctx.source)]
    if name not in order:
        raise ClaimError(f"docs/{ctx.page}: figref({name!r}) names a figure this page does not show")
    return f"[Figure {list(dict.fromkeys(order)).index(name) + 1}](#figure-{name})"


@macro
def claim(ctx: Context, cid: str) -> str:
    """A receipt marker, or nothing where this paragraph (or the table or figure just above it) already
    carries the claim's receipt."""
    c = verified(ctx, cid)
    if cid in ctx.block or cid in ctx.previous or ctx.in_math:
        return ""
    # One mark a claim a page: none where a receipt on the claim's result is already here or is still to come.
    if cid in ctx.marked or cid in ctx.labelled or len(ctx.block) >= MARKS_PER_PARAGRAPH:
        if c.page == ctx.page and cid not in ctx.anchored:  # where the ledger's "used on" link lands
            ctx.anchored.add(cid)
            return f'<span id="{use_anchor(cid)}"></span>'
        return ""
    ctx.marked.add(cid)
    return marker(ctx, c)


@macro
def fact(ctx: Context, fid: str, spec: str = "", unit: bool = True) -> str:
    """A sourced fact (facts/facts.toml), linked to its entry on the Sources page, its source on hover."""
    from sitekit import facts

    try:
        reg = facts.registry()
        number = reg.value(fid)
    except facts.FactError as err:
        raise ClaimError(f"docs/{ctx.page}: fact({fid!r}): {err}") from None
    f = reg.facts[fid]
    shown = format(number, spec) if spec else facts.display(number)
    title = "; ".join(f"{reg.works[s.work].cite}, {s.where}" for s in reg.sources(fid))
    title = title.replace('"', "'").replace("|", "/")  # a title inside a table cell
    text = f"{shown}{f.unit if unit else ''}"
    # A paper's number reads as plain text; its source is one small mark away, once a work a paragraph.
    works = [s.work for s in reg.sources(fid) if s.work not in ctx.works]
    if not works or ctx.in_math:
        return text
    ctx.works.update(works)
    href = ctx.url("module/sources.md", facts.anchor(fid))
    said = escape(title)
    return f'{text}<sup class="src"><a href="{href}" title="{said}" aria-label="Source: {said}">†</a></sup>'


@macro
def sources(ctx: Context) -> str:
    """The Sources page's list of works, each with the facts the site takes from it (facts/facts.toml)."""
    from sitekit import facts

    try:
        return facts.sources_markdown(facts.registry(), ctx.link)
    except facts.FactError as err:
        raise ClaimError(f"docs/{ctx.page}: sources(): {err}") from None


@macro
def changes(ctx: Context) -> str:
    """The What changed page: the site's git history, day by day (sitekit/changes.py)."""
    from sitekit.changes import changes_markdown

    return changes_markdown(ROOT, link=ctx.link, titles=ctx.page_titles, known_claims=ctx.cpu)


FACT_CALL = re.compile(r"\{\{\s*fact\(\s*(['\"])(?P<id>[^'\"]+)\1")
YEAR = re.compile(r"(?<![\d.])(?:19|20)\d\d(?![\d.])")  # not the start of an arXiv id (2002.04745)


def _names(people: list[dict[str, str]]) -> str:
    """CSL authors as a reader reads them: "A and B", "A, B and C"; more than six: the first three, et al."""
    names = [
        " ".join(x for x in (p.get("given", ""), p.get("family", "")) if x) or p.get("literal", "") for p in people
    ]
    if len(names) > 6:
        return ", ".join(names[:3]) + " et al."
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def reference_list(record: list[dict[str, Any]], works: list[Any], known: list[Any] = ()) -> str:
    """A formatted reference list (Markdown) from an entry's CSL-JSON record and works of facts/facts.toml.

    `record` is the entry's citation record (its own item, of type entry-encyclopedia, is left out: the
    list names what the entry cites); `works` are facts.Work objects the page cites; `known` every work
    of the registry. A record's work that the registry holds too (matched by its address) is listed once,
    with the record's full author names and the registry's publication line. Sorted by first author, then year."""
    by_url = {w.url.rstrip("/"): w for w in works}
    registry = {w.url.rstrip("/"): w for w in (*known, *works)}
    items = []
    for item in record:
        if item.get("type") == "entry-encyclopedia":
            continue
        url = item.get("URL", "").rstrip("/")
        by_url.pop(url, None)
        work = registry.get(url)
        venue = work.published if work and work.published else f"arXiv {item.get('number', '')}".strip()
        if not (work and work.published) and item.get("note"):
            venue += f". {item['note']}"
        people = item.get("author", [])
        first = people[0].get("family", people[0].get("literal", "")) if people else ""
        year = str(item["issued"]["date-parts"][0][0])
        items.append((first, year, item["id"], _names(people), item["title"], venue, item.get("URL", "")))
    for w in by_url.values():
        first = re.split(r",| and | et al\.| \(", w.cite, maxsplit=1)[0].strip()
        years = YEAR.findall(w.id) or YEAR.findall(w.published)  # the year the site cites it by (he2016)
        people = [{"literal": n} for n in re.split(r", | and ", w.cite)]
        names = _names(people) if len(people) > 6 else w.cite
        items.append((first, years[0] if years else "", w.id, names, w.title, w.published, w.url))
    lines = []
    for _first, year, key, names, title, venue, url in sorted(items, key=lambda i: (i[0].casefold(), i[1], i[4])):
        named = f"{names} ({year})." if year else names if names.endswith(".") else names + "."
        stop = "" if title.endswith(("?", "!", ".")) else "."
        where = f" {venue.rstrip('.')}." if venue else ""
        lines.append(f'- <span id="ref-{key}"></span>{named} *[{title}]({url})*{stop}{where}')
    return "\n".join(lines)


@macro
def references(ctx: Context, cid: str, *work_ids: str) -> str:
    """An encyclopedia entry's reference list: the works in the CSL-JSON record that claim `cid` generated
    (the entry's citation), the works of every fact() the page shows, and the works named in `work_ids`
    (facts/facts.toml ids of works the page cites by name without taking a number from them)."""
    import json

    from sitekit import facts

    c = verified(ctx, cid)
    record = json.loads(lookup(c.values, "csl_json", f"docs/{ctx.page}: references({cid!r})"))
    try:
        reg = facts.registry()
        fact_works = [reg.sources(m["id"]) for m in FACT_CALL.finditer(ctx.source) if m["id"] in reg.facts]
    except facts.FactError as err:
        raise ClaimError(f"docs/{ctx.page}: references(): {err}") from None
    unknown = [w for w in work_ids if w not in reg.works]
    if unknown:
        raise ClaimError(
            f"docs/{ctx.page}: references() names {', '.join(map(repr, unknown))}, which facts/facts.toml has no "
            "[works.<id>] for: add the work there (cite, title, published, url) or fix the id"
        )
    ids = [f.work for found in fact_works for f in found] + list(work_ids)
    return reference_list(record, [reg.works[w] for w in dict.fromkeys(ids)], list(reg.works.values()))
