"""Fill a page's `{{ macro(...) }}` calls from recorded results.

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
"""

from __future__ import annotations

import ast
import datetime as dt
import fractions
import html
import math
import os
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html import escape
from typing import Any

from sitekit import contract
from sitekit.claims import ROOT, Claim, ClaimError
from sitekit.margins import describe, relative, thinnest

MACRO = re.compile(r"\{\{\s*(?P<name>[a-z_]+)\((?P<args>.*?)\)\s*\}\}")


@dataclass
class Context:
    """What a page is rendered against."""

    page: str  # path under docs/, e.g. "module/gradient-highway.md"
    cpu: dict[str, Claim]
    cuda: dict[str, Claim] = field(default_factory=dict)
    cuda_provenance: dict[str, Any] = field(default_factory=dict)
    cpu_provenance: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> device -> uri
    strict: bool = True
    cited: set[str] = field(default_factory=set)
    source: str = ""  # the page's Markdown, for figref()
    figure_numbers: dict[str, int] = field(default_factory=dict)  # figure name -> its number on the page
    page_order: list[str] = field(default_factory=list)  # docs paths in nav order (the ledger's order)
    page_titles: dict[str, str] = field(default_factory=dict)  # docs path -> nav title
    # Filled while rendering: receipts, their data for the popovers, and where each claim is anchored.
    in_math: bool = False
    block: set[str] = field(default_factory=set)  # claims with a receipt in the current paragraph
    previous: set[str] = field(default_factory=set)  # ... and in the paragraph (table, figure) before it
    anchored: set[str] = field(default_factory=set)
    receipts: dict[str, dict[str, Any]] = field(default_factory=dict)
    listings: dict[str, str] = field(default_factory=dict)  # snippet path -> anchor id on this page
    sources: set[str] = field(default_factory=set)  # snippet paths published under SOURCE_DIR

    def link(self, target: str) -> str:
        """Relative Markdown link from this page to another docs path."""
        return os.path.relpath(target, os.path.dirname(self.page) or ".").replace(os.sep, "/")

    def url(self, target: str, fragment: str = "") -> str:
        """Relative URL of the built page for docs path `target` (directory URLs), for raw HTML."""
        here = page_url(self.page)
        rel = posixpath.relpath(page_url(target) or ".", here.rstrip("/") or ".")
        if target.endswith(".md"):
            rel = "./" if rel == "." else rel + "/"
        return rel + (f"#{fragment}" if fragment else "")


def page_url(path: str) -> str:
    """docs path -> site path: "module/x.md" -> "module/x/", "module/index.md" -> "module/"."""
    if not path.endswith(".md"):
        return path
    stem = path[:-3]
    if stem == "index" or stem.endswith("/index"):
        return stem[:-5]
    return stem + "/"


MACROS: dict[str, Callable[..., str]] = {}


def macro(fn: Callable[..., str]) -> Callable[..., str]:
    """Register a page macro by its function name."""
    MACROS[fn.__name__] = fn
    return fn


def _topic_command(c: Claim) -> str:
    if getattr(c, "experiment", None):  # an experiment runs only under nox -s experiments (minutes)
        return f"nox -s experiments -- {c.test.split('::')[0]}` and commit `results/experiments-cpu.json"
    return f"nox -s tests -- {os.path.dirname(c.test.split('::')[0])}"


def verified(ctx: Context, cid: str) -> Claim:
    """The CPU record of a claim, refusing missing, failing and stale ones."""
    ctx.cited.add(cid)
    c = ctx.cpu.get(cid)
    where = f"docs/{ctx.page} cites claim {cid!r}"
    if c is None:
        raise ClaimError(
            f"{where}, which has no result in results/cpu.json. Check the id against the test name "
            "(test_<id>) and run `nox -s tests`."
        )
    if c.status != "passed":
        raise ClaimError(f"{where}, whose test {c.test} is {c.status}: fix it, then `{_topic_command(c)}`.")
    if c.stale:
        raise ClaimError(
            f"{where}, but {c.snippet} or its test changed since it ran (stale result). Run `{_topic_command(c)}`."
        )
    return c


def device_independent(c: Claim) -> bool:
    """A claim that says its outcome cannot depend on the device (never counted as verified on CUDA)."""
    return bool(getattr(c, "device_independent", None))


def cuda_record(ctx: Context, cid: str) -> Claim | None:
    """The CUDA record where it exists, passed, matches the current code and the claim is device-bound."""
    c = ctx.cuda.get(cid)
    if c is None or c.status != "passed" or c.stale or device_independent(c):
        return None
    cpu = ctx.cpu.get(cid)
    if cpu is not None and device_independent(cpu):
        return None
    return c


def lookup(values: Any, key: str, where: str) -> Any:
    """values["a"]["b"][2] for key "a.b.2"."""
    out = values
    for part in key.split(".") if key else []:
        try:
            out = out[int(part)] if isinstance(out, list) else out[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise ClaimError(f"{where}: no recorded value at {key!r}") from None
    return out


# Typesetting: format specs stay Python's (".1e", ".3g", ".2f", ","), the result is set as a reader
# expects it: 4.4 × 10⁻²⁹ instead of 4.4e-29, a true minus sign, no break inside a number.
SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
MINUS = "\u2212"
NNBSP = "\u202f"  # narrow no-break space around the × of a power of ten
E_NUMBER = re.compile(r"(?<![\w.])(?P<mant>\d+(?:\.\d*)?)[eE](?P<sign>[+-]?)(?P<exp>\d+)(?![\w.])")
NUMERIC_TEXT = re.compile(r"[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?%?")


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def typeset(text: str, math_mode: bool = False) -> str:
    """Python's formatted number (or text holding numbers) as prose or TeX: 4.4e-29 -> 4.4 × 10⁻²⁹."""

    def power(m: re.Match[str]) -> str:
        mant, exp = m["mant"], int(m["exp"]) * (-1 if m["sign"] == "-" else 1)
        if exp == 0:
            return mant
        if float(mant) == 0:
            return "0"
        if math_mode:
            ten = f"10^{{{exp}}}"
            return ten if mant == "1" else f"{mant} \\times {ten}"
        ten = "10" + str(exp).translate(SUPERSCRIPT)
        return ten if mant == "1" else f"{mant}{NNBSP}×{NNBSP}{ten}"

    out = E_NUMBER.sub(power, text)
    if math_mode:
        return out.replace("%", "\\%").replace(",", "{,}")
    return re.sub(r"(?<![\w.])-(?=\d)", MINUS, out)


def fmt(value: Any, spec: str, math_mode: bool = False) -> str:
    """One recorded value formatted with a Python format spec, then typeset."""
    if isinstance(value, bool) or not spec or not _number(value):
        text = str(value)
        numeric = _number(value) or (isinstance(value, str) and NUMERIC_TEXT.fullmatch(text))
        return typeset(text, math_mode) if numeric and not isinstance(value, bool) else text
    if isinstance(value, float) and not math.isfinite(value):
        return {"inf": "∞", "-inf": MINUS + "∞"}.get(str(value), str(value))
    if spec == "frac":  # an exact ratio as a fraction, 1/18: only where the value is one (to 1e-12)
        f = fractions.Fraction(value).limit_denominator(1000)
        if abs(float(f) - value) > 1e-12 * max(1.0, abs(value)):
            raise ClaimError(f"{value!r} is not a fraction with a denominator up to 1000: use a decimal spec")
        text = str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
        return typeset(text.replace("-", MINUS), math_mode)
    return typeset(format(value, spec), math_mode)


_G_SPEC = re.compile(r"^(?P<head>[^.]*)\.(?P<p>\d+)g$")


def column_formats(values: list[Any], spec: str) -> list[str]:
    """A table column, formatted alike: one notation and one number of significant figures.

    With a "g" spec, Python switches notation from cell to cell (0.000244, 6.1e-05) and drops trailing
    zeros; here the whole column is scientific as soon as one cell needs it, and keeps its figures.
    Integers in a "g" column stay exact below a million.
    """
    m = _G_SPEC.match(spec or "")
    numbers = [v for v in values if _number(v)]
    if not m or not numbers:
        return [fmt(v, spec) for v in values]
    p = max(1, int(m["p"]))
    if all(isinstance(v, int) for v in numbers) and max(abs(v) for v in numbers) < 10**6:
        return [fmt(v, "") for v in values]
    scientific = any("e" in format(v, f".{p}g") for v in numbers)
    out = []
    for v in values:
        if not _number(v):
            out.append(fmt(v, ""))
        elif v == 0:
            out.append("0")
        elif scientific:
            out.append(typeset(format(v, f"{m['head']}.{p - 1}e")))
        else:
            out.append(typeset(format(v, f"{m['head']}#.{p}g").rstrip(".")))
    return out


TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)([^>]*)>")
CODE_TAGS = {"pre", "code", "script", "style", "textarea", "svg"}  # svg: a drawn plot keeps its labels


def typeset_html(page: str) -> str:
    """E-notation in the text of rendered HTML typeset (4.4 × 10⁻²⁹); code and copy buffers left as they are.

    For pages whose prose is not written through the macros (a notebook's Markdown cells).
    """
    out, last, skip = [], 0, []
    for m in TAG.finditer(page):
        text = page[last : m.start()]
        out.append(text if skip else E_NUMBER.sub(lambda n: typeset(n[0]), text))
        out.append(m[0])
        last = m.end()
        closing, name, attrs = m[1] == "/", m[2].lower(), m[3]
        if skip:
            if name == skip[-1][0]:
                skip[-1][1] += -1 if closing else 0 if attrs.rstrip().endswith("/") else 1
                if skip[-1][1] == 0:
                    skip.pop()
        elif not closing and (name in CODE_TAGS or "clipboard-copy-txt" in attrs):
            skip.append([name, 1])
    out.append(page[last:] if skip else E_NUMBER.sub(lambda n: typeset(n[0]), page[last:]))
    return "".join(out)


# Receipts.


def _attr(text: str) -> str:
    return html.escape(text, quote=True)


def _inline(text: str) -> str:
    """Text safe inside raw inline HTML in Markdown: escaped, and no emphasis or code markers."""
    return _attr(text).replace("*", "&#42;").replace("_", "&#95;").replace("`", "&#96;").replace("[", "&#91;")


def anchor(cid: str) -> str:
    """The id of a claim's row in the ledger."""
    return "claim-" + cid.replace("_", "-")


def use_anchor(cid: str) -> str:
    """The id of the first receipt of a claim on its own page (the ledger links back to it)."""
    return "use-" + cid.replace("_", "-")


def page_anchor(page: str) -> str:
    """The id of a page's group in the ledger."""
    return "page-" + re.sub(r"[^a-z0-9]+", "-", page.removesuffix(".md").lower()).strip("-")


def listing_anchor(snippet: str) -> str:
    """The id given to the first listing of a snippet on a page (sitekit.mkdocs_hook sets it)."""
    return "src-" + re.sub(r"[^a-z0-9]+", "-", snippet.removesuffix(".py").lower()).strip("-")


SOURCE_DIR = "src"  # published copies of the snippets a page lists: site/src/snippets/<topic>/<name>.py


def _cpu_model(prov: dict[str, Any]) -> str:
    return re.sub(r"\s*\((?:R|TM)\)", "", str(prov.get("cpu") or prov.get("processor") or "CPU"))


def _threads(n: Any) -> str:
    return f"{n} thread" if n == 1 else f"{n} threads"


def _device_line(c: Claim, prov: dict[str, Any]) -> str:
    if c.device == "cpu":
        model = _cpu_model(prov)
        threads = prov.get("threads")
        return f"CPU ({model}{f', {_threads(threads)}' if threads else ''})"
    return f"CUDA ({prov.get('gpu') or c.device})"


def _tolerance(values: dict[str, Any]) -> str | None:
    found = [f"{k} {fmt(values[k], '.2g')}" for k in ("tolerance", "rtol", "atol") if _number(values.get(k))]
    return ", ".join(found) or None


def _counterfactuals(c: Claim) -> list[str]:
    """Each counterfactual as one line: what was run instead, and what it measured where recorded."""
    out = []
    for item in c.counterfactuals:
        if isinstance(item, dict):
            because = str(item.get("because", ""))
            measured = item.get("measured")
            out.append(f"{because}: measured {fmt(measured, '.3g')}" if measured is not None else because)
        else:
            out.append(str(item))
    return out


def claim_kind(c: Claim) -> str:
    """'identity' (holds by construction: not evidence), 'exact' (a finding checked exactly) or 'measured'."""
    if getattr(c, "identity", None):
        return "identity"
    return "exact" if getattr(c, "exact", None) else "measured"


KIND_LABEL = {"identity": "checked identity", "exact": "exact finding", "measured": "measured finding"}


def margin_text(c: Claim) -> str:
    """How the claim's check came out, in words: 'checked exactly: ...' or its thinnest margin."""
    if getattr(c, "identity", None):
        return f"checked identity (holds by construction, not evidence): {c.identity}"
    if getattr(c, "exact", None):
        return f"checked exactly: {c.exact}"
    m = thinnest(getattr(c, "margins", None) or [])
    if m is None:
        return "no margin recorded"
    side = "above" if m["op"] == ">" else "below"
    seeds = f" of {m['n']} values" if m["n"] > 1 else ""
    return typeset(
        f"{describe(m)} (thinnest: {m['what']} {side} {fmt(m['threshold'], '.3g')}; "
        f"worst{seeds} {fmt(m['worst'], '.3g')}, median {fmt(m['median'], '.3g')})"
    )


def margin_cell(c: Claim) -> str:
    """The ledger's short form: 'identity', 'exact', or the thinnest margin as a percentage or a multiple."""
    if getattr(c, "identity", None):
        return "identity"
    if getattr(c, "exact", None):
        return "exact"
    m = thinnest(getattr(c, "margins", None) or [])
    if m is None:
        return "—"
    rel = relative(m)
    if not math.isfinite(rel):
        return "sign"
    if m["op"] == ">" and m["threshold"] > 0 and rel >= 1:
        return typeset(f"{fmt(m['worst'] / m['threshold'], '.2g')}× the threshold")
    return f"{fmt(100 * rel, '.2g')} %"


def receipt_data(ctx: Context, c: Claim) -> dict[str, Any]:
    """What a receipt's popover shows for claim `c` (sitekit.mkdocs_hook embeds it in the page)."""
    if c.id in ctx.receipts:
        return ctx.receipts[c.id]
    runs = [
        {
            "device": _device_line(c, ctx.cpu_provenance),
            "torch": c.torch,
            "date": c.recorded_at[:10],
            "reused": getattr(c, "reused", None),
        }
    ]
    gpu = cuda_record(ctx, c.id)
    if gpu is not None:
        runs.append(
            {
                "device": _device_line(gpu, ctx.cuda_provenance),
                "torch": gpu.torch,
                "date": gpu.recorded_at[:10],
                "reused": getattr(gpu, "reused", None),
            }
        )
    listing = ctx.listings.get(c.snippet)
    data = {
        "statement": typeset(c.statement),
        "test": c.test,
        "snippet": c.snippet,
        "runs": runs,
        "device_independent": device_independent(c),
        "margin": margin_text(c),
        "kind": KIND_LABEL[claim_kind(c)],
        "experiment": experiment_text(c),
        "asserted": list(getattr(c, "asserted_keys", None) or []),
        "seeds": c.values.get("seeds") if _number(c.values.get("seeds")) else None,
        "tolerance": _tolerance(c.values),
        "counterfactuals": _counterfactuals(c),
        "listing": f"#{listing}"
        if listing
        else ctx.url(f"{SOURCE_DIR}/{c.snippet}")
        if c.snippet in ctx.sources
        else None,
        "ledger": ctx.url("claims.md", anchor(c.id)),
        "values": {},
    }
    ctx.receipts[c.id] = data
    return data


def _where_when(info: dict[str, Any] | None) -> str:
    if not info:
        return ""
    wall = f", {info['wall_s']:.0f} s" if _number(info.get("wall_s")) else ""
    cpu = re.sub(r"\s*\((?:R|TM)\)", "", str(info.get("cpu", "?")))
    return f"{str(info.get('date', '?'))[:10]} on {cpu} ({info.get('cores', '?')} cores{wall})"


def experiment_text(c: Claim) -> str | None:
    """An experiment's receipt line: what it runs, its committed run, and whether a fresh run reproduced it."""
    what = getattr(c, "experiment", None)
    if not what:
        return None
    ran, again = getattr(c, "ran", None), getattr(c, "reproduced", None)
    tol = getattr(c, "tolerance", None)
    within = f"within {fmt(100 * tol, '.2g')} %" if _number(tol) else "within its tolerance"
    text = f"{what}; committed run {_where_when(ran)}" if ran else f"{what}; no committed run"
    if again and not getattr(c, "reused", None):
        text += f"; this build ran it again and reproduced the committed record {within} ({_where_when(again)})"
    elif again:
        text += f"; last reproduced by a fresh run {within} on {_where_when(again)}"
    else:
        text += f"; a fresh run must reproduce it {within} (CI runs it)"
    return text


def receipt(
    ctx: Context, c: Claim, text: str, key: str | None = None, raw: Any = None, kind: str = "", label: str = ""
) -> str:
    """`text` as a receipt for claim `c`: a link to its ledger row that receipts.js opens as a popover."""
    data = receipt_data(ctx, c)
    numeric = _number(raw) or (isinstance(raw, str) and bool(NUMERIC_TEXT.fullmatch(raw)))
    kind = kind or ("num" if numeric and len(text) < 40 else "")  # a number never breaks; text may wrap
    reading = key is not None and key not in (getattr(c, "asserted_keys", None) or [])
    classes = " ".join(x for x in ("rcpt", kind, "reading" if reading else "") if x)
    attrs = {"class": classes, "href": data["ledger"], "data-claim": c.id}
    if key is not None:
        attrs["data-key"] = key
        if _number(raw) or isinstance(raw, str):
            data["values"][key] = raw
    if c.page == ctx.page and c.id not in ctx.anchored:
        attrs["id"] = use_anchor(c.id)
        ctx.anchored.add(c.id)
    ctx.block.add(c.id)
    if kind == "rcpt-mark":  # a marker carries no number: name the claim, after any visible label
        said = typeset(c.statement)  # read aloud as "10 to the 5", not "1 e 5"
        attrs["aria-label"] = f"{label}, the receipt for: {said}" if label else f"Receipt: {said}"
    body = " ".join(f'{k}="{_attr(v)}"' for k, v in attrs.items())
    return f"<a {body}>{text}</a>"


def marker(ctx: Context, c: Claim, label: str = "") -> str:
    """A small receipt marker (for a sentence, table, error or figure without its own receipt)."""
    mark = '<span class="rcpt-icon" aria-hidden="true"></span>'
    text = f"{mark}{_inline(label)}" if label else mark
    return receipt(ctx, c, text, kind="rcpt-mark", label=label)


def receipt_line(ctx: Context, claims: list[Claim], what: str) -> str:
    """One line under a table, error, code block or figure: its receipt(s), once."""
    if len(claims) == 1:
        marks = marker(ctx, claims[0], "receipt")
    else:
        marks = "receipts " + " ".join(marker(ctx, c, str(i)) for i, c in enumerate(claims, start=1))
    return f'<p class="rcpt-line">{_inline(what)} {marks}</p>'


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
    return receipt(ctx, c, _inline(shown), key, raw)


def _md_table(data: Any, spec: str, where: str) -> str:
    if not isinstance(data, dict) or set(data) != {"columns", "rows"}:
        raise ClaimError(f"{where}: record tables as {{'columns': [...], 'rows': [[...], ...]}}")
    columns = data["columns"]
    head = "| " + " | ".join(map(str, columns)) + " |"
    cells = [column_formats([row[i] for row in data["rows"]], spec) for i in range(len(columns))]
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


def _caption_html(text: str) -> str:
    """Escaped caption text; inline math \\( ... \\) is left for KaTeX, as arithmatex leaves it."""
    out, last = [], 0
    for m in MATH.finditer(text):
        out += [escape(text[last : m.start()]), f'<span class="arithmatex">{escape(m[0])}</span>']
        last = m.end()
    return "".join([*out, escape(text[last:])])


@macro
def figure(ctx: Context, name: str, alt: str, caption: str = "") -> str:
    """One numbered <figure>: the SVG inline (so it follows the colour scheme), its caption, and for
    an explorable the recorded values it shows, as JSON. Numbers run 1, 2, ... per page in order."""
    import json

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
    parts = []
    for device, label in devices:
        svg = DRAWN.get(drawn[device])
        if svg is None:  # drawn, but not through this build's hook (a test): link the file
            body = f'<img src="{ctx.link(drawn[device])}" alt="{escape(alt)}">'
        else:
            prefix = f"fig-{name}" + ("" if device == "cpu" else f"-{device}")
            body = inline(svg, prefix, f"Figure {number}", alt)
        if len(devices) > 1:
            body = f'<div class="rs-figure-variant"><p class="rs-figure-device">{label}</p>{body}</div>'
        parts.append(body)
    data = ""
    if spec.explore is not None:
        payload = json.dumps(spec.explore(values)).replace("</", "<\\/")
        data = f'<script type="application/json" class="rs-explorable-data">{payload}</script>'
    words = caption or spec.caption
    figcaption = f'<span class="rs-figure-number">Figure {number}.</span> {_caption_html(words)}'.strip()
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
    return marker(ctx, c)


@macro
def hardware(ctx: Context) -> str:
    """Where the recorded claims ran: the CPU, and the GPU or a line saying CUDA has not run."""
    cpu = ctx.cpu_provenance
    lines = [
        f"- **CPU:** {cpu.get('cpu') or cpu.get('processor', '?')}, {_threads(cpu.get('threads', '?'))}, "
        f"torch {cpu.get('torch', '?')}, run {str(cpu.get('date', '?'))[:10]}"
    ]
    gpu = ctx.cuda_provenance
    if gpu:
        lines.append(
            f"- **CUDA:** {gpu.get('gpu', '?')} (driver {gpu.get('driver') or '?'}, CUDA {gpu.get('cuda', '?')}), "
            f"torch {gpu.get('torch', '?')}, run {str(gpu.get('date', '?'))[:10]}"
        )
    else:
        lines.append(
            "- **CUDA:** not run yet. No `results/cuda.json` is recorded; `bash scripts/gpu_verify.sh` on a GPU "
            "host records one, and every number and figure below then shows CPU and CUDA side by side."
        )
    return "\n".join(lines)


# The line under a page's title.


def _day(iso: str) -> str:
    return f"{dt.date.fromisoformat(iso[:10]):%-d %B %Y}"


def outside_fences(markdown: str) -> Iterator[tuple[str, bool]]:
    """Each line of `markdown` with whether it is prose (outside a fenced block and not a fence line)."""
    fence = None
    for line in markdown.split("\n"):
        m = FENCE_LINE.match(line)
        if fence is None and m:
            fence = m[1]
            yield line, False
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
            yield line, False
        else:
            yield line, True


def reading_minutes(markdown: str, words_per_minute: int = 200) -> int:
    """Minutes to read a page's prose: fenced code, macros and HTML tags are not counted."""
    prose = [line for line, is_prose in outside_fences(markdown) if is_prose]
    text = re.sub(r"<[^>]+>|\{\{.*?\}\}", " ", "\n".join(prose))
    return max(1, math.ceil(len(re.findall(r"[A-Za-z0-9]+", text)) / words_per_minute))


def page_facts(ctx: Context, part: tuple[int, int] | None, minutes: int) -> str:
    """One line: where this part sits, how long it reads, and the claims it rests on (Markdown)."""
    bits = []
    if part is not None:
        bits.append(f"Part {part[0]} of {part[1]}")
    bits.append(f"{minutes} min read")
    cited = sorted(ctx.cited & set(ctx.cpu))
    if cited:
        records = [ctx.cpu[cid] for cid in cited]
        dates = sorted({c.recorded_at[:10] for c in records})
        when = _day(dates[-1]) if len(dates) == 1 else f"between {_day(dates[0])} and {_day(dates[-1])}"
        torches = ", ".join(sorted({c.torch for c in records}))
        n = len(cited)
        gpu = sum(1 for cid in cited if cuda_record(ctx, cid) is not None)
        where = _device_line(records[0], ctx.cpu_provenance)
        if gpu:
            where += f" and, for {gpu} of them, CUDA ({ctx.cuda_provenance.get('gpu', 'GPU')})"
        ledger = ctx.link("claims.md")
        if any(c.page == ctx.page for c in ctx.cpu.values()):
            ledger += f"#{page_anchor(ctx.page)}"
        bits.append(
            f"rests on [{n} measured claim{'s' if n != 1 else ''}]({ledger}), verified on {where} "
            f"with torch {torches}, {when}"
        )
    line = " · ".join(bits)
    return line[0].upper() + line[1:] + "\n{ .page-facts }"


def with_page_facts(markdown: str, facts: str) -> str:
    """`facts` as a paragraph right under the page's first H1 (at the top where there is none)."""
    lines, fence = markdown.split("\n"), None
    for i, line in enumerate(lines):
        m = FENCE_LINE.match(line)
        if fence is None and m:
            fence = m[1]
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None and line.startswith("# "):
            return "\n".join([*lines[: i + 1], "", facts, "", *lines[i + 1 :]])
    return facts + "\n\n" + markdown


# The ledger.

HEADLINE = "headline"  # a claim may record its key value under this name; see key_value()


# Recorded keys that describe the set-up (how many seeds, which width) rather than an outcome.
SETTINGS = frozenset(
    [
        "seeds",
        "d",
        "depth",
        "width",
        "widths",
        "tokens",
        "n",
        "k",
        "k0",
        "L",
        "steps",
        "epochs",
        "threads",
        "heads",
        "B",
        "T",
        "rounds",
        "layers",
        "dim",
    ]
)


def _page_values(pages: list[str]) -> dict[str, list[tuple[str, str]]]:
    """ "page\0claim id" -> the (key, spec) of each value() that page shows of the claim, in order."""
    found: dict[str, list[tuple[str, str]]] = {}
    for page in pages:
        path = ROOT / "docs" / page
        if not path.is_file() or not page.endswith(".md"):
            continue
        for m in MACRO.finditer(path.read_text(encoding="utf-8")):
            if m["name"] != "value":
                continue
            try:
                args = ast.literal_eval(f"({m['args']},)")
            except (SyntaxError, ValueError):
                continue
            if len(args) >= 2 and isinstance(args[0], str):
                spec = str(args[2]) if len(args) > 2 else ""
                found.setdefault(f"{page}\0{args[0]}", []).append((str(args[1]), spec))
    return found


def _outcome(key: str) -> bool:
    return key.split(".")[0] not in SETTINGS and not key.startswith("provenance")


def key_value(c: Claim, shown: dict[str, list[tuple[str, str]]]) -> tuple[str, str]:
    """(key, typeset value) a ledger row shows for a claim.

    In order: a value recorded under `headline`; else the first number the claim's own page shows of it
    that is an outcome rather than a setting (SETTINGS: seeds, widths, depths...), formatted as that
    page formats it; else the first recorded number that is an outcome; else the first value the page
    shows; else a word for what the claim recorded (a table, a series, text).
    """
    if HEADLINE in c.values and not isinstance(c.values[HEADLINE], (dict, list)):
        return HEADLINE, fmt(c.values[HEADLINE], ".3g")
    on_page = []
    for key, spec in shown.get(f"{c.page}\0{c.id}", []):
        try:
            on_page.append((key, lookup(c.values, key, c.id), spec))
        except ClaimError:
            continue
    for key, v, spec in on_page:
        if _number(v) and _outcome(key):
            return key, fmt(v, spec)
    for k, v in c.values.items():
        if _number(v) and _outcome(k):
            return k, fmt(v, ".3g")
    if on_page:
        key, v, spec = on_page[0]
        return key, fmt(v, spec)
    for k, v in c.values.items():
        kind = "table" if isinstance(v, dict) and "rows" in v else "series" if isinstance(v, (list, dict)) else "text"
        return k, f"({kind})"
    return "", "—"


def _code_spans(text: str) -> str:
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _attr(typeset(text)))


def _cuda_cell(ctx: Context, c: Claim) -> str:
    gpu = ctx.cuda.get(c.id)
    if c.cpu_only:
        return f"CPU only: {_attr(c.cpu_only)}"
    if device_independent(c):
        return "device-independent (not counted)"
    if gpu is None:
        return "not run yet"
    if gpu.stale:
        return f"stale: code changed since {gpu.recorded_at[:10]}"
    if gpu.status != "passed":
        return _attr(gpu.status)
    k, v = key_value(gpu, {})
    return f"passed {gpu.recorded_at[:10]}" + (f" · {_attr(k)} {_attr(v)}" if k else "")


def _cpu_cell(c: Claim) -> str:
    if getattr(c, "cuda_only", None):
        return "CUDA only: not run yet"
    status = "stale" if c.stale else c.status
    reused = getattr(c, "reused", None)
    note = ""
    if reused:
        note = f" · reused{' from ' + _attr(str(reused)[:10]) if isinstance(reused, str) else ''}"
    return f"{_attr(status)} {c.recorded_at[:10]}{note}"


# The harness's own settings that pages explain (How we check): bound to the code that applies them.
HARNESS = {
    "margin_floor": ("sitekit/margins.py", "FLOOR_RELATIVE"),
    "margin_spreads": ("sitekit/margins.py", "FLOOR_SPREADS"),
    "spread_values": ("sitekit/margins.py", "MIN_SPREAD_N"),
}


@macro
def harness(ctx: Context, name: str, spec: str = "") -> str:
    """A setting of the verification harness itself (the margin floor...), read from the module that uses it."""
    from sitekit import margins

    if name not in HARNESS:
        raise ClaimError(
            f"docs/{ctx.page}: harness({name!r}) is not a harness setting; use one of {', '.join(HARNESS)}"
        )
    return fmt(getattr(margins, HARNESS[name][1]), spec)


def kind_counts(ctx: Context) -> Counter[str]:
    """How many claims of each kind (identity, exact, measured) this build shows as verified on CPU."""
    return Counter(claim_kind(c) for c in ctx.cpu.values() if not getattr(c, "cuda_only", None))


@macro
def this_build(ctx: Context) -> str:
    """What this build did with the claims, in one sentence: all run, or how many records it reused.

    How we check states it through this macro, so the page cannot say "every claim ran" of a build that reused
    records (honesty audit 6.9): the sentence is made from the records the build read.
    """
    verified = [c for c in ctx.cpu.values() if not getattr(c, "cuda_only", None)]
    reused = [c for c in verified if getattr(c, "reused", None)]
    experiments = [c for c in verified if getattr(c, "experiment", None)]
    when = max((c.recorded_at[:10] for c in verified), default="?")
    if not reused:
        again = sum(1 for c in experiments if getattr(c, "reproduced", None))
        tail = (
            f", {len(experiments)} of them experiments that this run reproduced from their committed records"
            if experiments and again == len(experiments)
            else ""
        )
        return (
            f"This copy of the site was built after all {len(verified)} claims ran on a CPU, the latest on "
            f"{when}{tail}."
        )
    oldest = min(c.recorded_at[:10] for c in reused)
    committed = sum(1 for c in reused if getattr(c, "experiment", None))
    of_which = f" ({committed} of them experiments, from their committed records)" if committed else ""
    return (
        f"This copy of the site is a contributor's build: it ran {len(verified) - len(reused)} of its "
        f"{len(verified)} claims and reused the passing records of the other {len(reused)}{of_which}, whose code "
        f"had not changed since they ran (the oldest on {oldest}); a published build runs them all."
    )


@macro
def kinds(ctx: Context, kind: str) -> str:
    """How many claims of one kind (identity, exact, measured) the ledger holds."""
    if kind not in KIND_LABEL:
        raise ClaimError(f"docs/{ctx.page}: kinds({kind!r}): use one of {', '.join(KIND_LABEL)}")
    return str(kind_counts(ctx)[kind])


@macro
def ledger(ctx: Context) -> str:
    """Every claim, grouped by page in reading order, one light row each (raw HTML: small DOM)."""
    by_page: dict[str, list[Claim]] = {}
    for c in ctx.cpu.values():
        by_page.setdefault(c.page, []).append(c)
    order = {p: i for i, p in enumerate(ctx.page_order)}
    pages = sorted(by_page, key=lambda p: (order.get(p, len(order)), p))
    shown = _page_values(pages)
    cuda_only = [c for c in ctx.cpu.values() if getattr(c, "cuda_only", None)]
    total = len(ctx.cpu) - len(cuda_only)
    verified = [c for c in ctx.cpu.values() if not getattr(c, "cuda_only", None)]
    kinds = kind_counts(ctx)
    reused = sum(1 for c in verified if getattr(c, "reused", None))
    with_cuda = bool(ctx.cuda)
    gpu_fresh = sum(1 for cid in ctx.cpu if cuda_record(ctx, cid) is not None)
    cpu = ctx.cpu_provenance
    ran = (
        f"all {total} run by this build"
        if not reused
        else f"{total - reused} run by this build and {reused} reused from an earlier run of the same code"
    )
    head = (
        f'<p class="ledger-summary">{total} claims on {len(pages)} pages, every one passing on CPU '
        f"({_attr(_cpu_model(cpu))}, torch {_attr(str(cpu.get('torch', '?')))}; {ran}). "
        f"Of these: measured findings {kinds['measured']}, each shown with the margin by which its worst case "
        f"cleared its threshold; exact findings {kinds['exact']} (counts and equalities that could have come out "
        f"otherwise, checked exactly); checked identities {kinds['identity']}, which hold by construction (the "
        "code computes what the algebra says) and are not evidence for anything"
    )
    n_exp = sum(1 for c in verified if getattr(c, "experiment", None))
    if n_exp:
        head += (
            f". {n_exp} of the claims are experiments (each trains or sweeps for minutes): their records are "
            "committed with where they ran, a build that is not fresh reuses them, and a fresh run must "
            "reproduce them within the tolerance each states or the variation its seeds show"
        )
    if cuda_only:
        head += f"; {len(cuda_only)} more claim{'s' if len(cuda_only) != 1 else ''} about CUDA, not run yet"
    if with_cuda:
        head += f"; {gpu_fresh} verified on CUDA on the current code.</p>"
    else:
        head += (
            ". CUDA has not run yet: no <code>results/cuda.json</code> is recorded, so no claim is counted "
            "as verified on a GPU.</p>"
        )
    out = [
        '<div class="ledger" markdown="0">',
        head,
        '<p class="ledger-tools" hidden><label for="ledger-filter">Filter</label> '
        '<input type="search" id="ledger-filter" placeholder="a word, a page or a test" autocomplete="off"> '
        '<output id="ledger-count" aria-live="polite"></output></p>',
    ]
    cols = "<th>Claim</th><th>Key value</th><th>Margin</th><th>CPU</th>" + ("<th>CUDA</th>" if with_cuda else "")
    for page in pages:
        group = sorted(by_page[page], key=lambda c: c.id)
        title = ctx.page_titles.get(page, page)
        out.append(
            f'<details class="ledger-page" id="{page_anchor(page)}" open><summary>{_attr(title)} '
            f"<small>{len(group)} claim{'s' if len(group) != 1 else ''}</small></summary>"
            f'<a class="ledger-goto" href="{ctx.url(page)}">Read {_attr(title)}</a>'
            f'<table class="ledger-table"><thead><tr>{cols}</tr></thead><tbody>'
        )
        for c in group:
            k, v = key_value(c, shown)
            back = f' <a class="back" href="{ctx.url(page, use_anchor(c.id))}">in context</a>'
            if getattr(c, "cuda_only", None):
                back = ""  # not verified yet: no page shows it
            cuda = f"<td>{_cuda_cell(ctx, c)}</td>" if with_cuda else ""
            out.append(
                f'<tr id="{anchor(c.id)}"><td>{_code_spans(c.statement)}{back}'
                f'<small class="t">{_attr(c.test)}</small></td>'
                f'<td class="kv"><small>{_attr(k)}</small> {_attr(v)}</td>'
                f'<td class="kv"><small>margin</small> {_attr(margin_cell(c))}</td>'
                f"<td>{_cpu_cell(c)}</td>{cuda}</tr>"
            )
        out.append("</tbody></table></details>")
    out.append("</div>")
    return "\n".join(out)


def uncited(cpu: dict[str, Claim], cited: dict[str, set[str]]) -> list[str]:
    """Problems for claims that the page named in their marker never shows."""
    return [
        f"{c.test} (claim {cid!r}) names page docs/{c.page}, which never cites it: add "
        f'{{{{ claim("{cid}") }}}} or a value/table/figure from it to that page.'
        for cid, c in sorted(cpu.items())
        if cid not in cited.get(c.page, set()) and not getattr(c, "cuda_only", None)
    ]


TRAILING_MARK = re.compile(r"^\s*[.,;)](?:\s|$)")
MARK = '<a class="rcpt rcpt-mark"'  # what marker() writes
# Lines a marker never joins: fences, headings, tables, HTML, admonition titles and other block starts.
OWN_LINE = re.compile(
    r"^\s*(?:`{3,}|~{3,}|#{1,6}\s|\||!!!|\?\?\?|===|<(?:p|div|figure|table|details|pre|[uo]l|h\d|svg|img)\b)"
)
ADMONITION_TITLE = re.compile(r"^\s*(\?\?\?\+?|!!!)\s")
LINK_TAG = re.compile(r"</?a\b[^>]*>")
MD_LINK = re.compile(r'\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)(?:\{[^}]*\})?')
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")
TOKEN = re.compile(r"(?P<math>\\\(|\\\)|\\\[|\\\]|\$\$)|" + MACRO.pattern)
MATH_OPENS = {"\\(": True, "\\)": False, "\\[": True, "\\]": False}
NEW_BLOCK = re.compile(r"^\s*(?:$|#{1,6}\s|[-*+]\s|\d+\.\s|!!!|\?\?\?|===)")


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
                if (not done or done.startswith(MARK)) and before.strip():
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
            expanded = MD_LINK.sub(r"\1", LINK_TAG.sub("", expanded))
        return expanded

    ctx.source = text  # figref() numbers figures by where the page shows them
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
    return (
        f'[{shown}{f.unit if unit else ""}]({ctx.link("module/sources.md")}#{facts.anchor(fid)} "{title}"){{ .fact }}'
    )


@macro
def sources(ctx: Context) -> str:
    """The Sources page's list of works, each with the facts the site takes from it (facts/facts.toml)."""
    from sitekit import facts

    try:
        return facts.sources_markdown(facts.registry(), ctx.link)
    except facts.FactError as err:
        raise ClaimError(f"docs/{ctx.page}: sources(): {err}") from None
