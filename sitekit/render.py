"""Fill a page's `{{ macro(...) }}` calls from recorded results.

Macros (arguments are Python literals):

- `{{ value("claim_id", "key.sub", ".3g") }}`   a measured number or string
- `{{ table("claim_id", "key", ".3g") }}`       a recorded {"columns": [...], "rows": [[...]]} table
- `{{ error("claim_id", "key") }}`              an exception message captured from execution
- `{{ code("claim_id", "key", "lang") }}`       a recorded string (e.g. generated BibTeX) as a code block
- `{{ figure("name", "alt text") }}`            a numbered figure drawn from recorded results (sitekit.figures)
- `{{ figref("name") }}`                        "Figure n", linked, for a figure the page shows
- `{{ claim("claim_id") }}`                     a link to the claim's entry in the ledger
- `{{ ledger() }}`                              the ledger of every claim (the Claims page)

A page that cites a claim that is missing, failing or stale does not build: the error says which page,
which claim and the command that fixes it. Plain Python, so it can move with the pages.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from typing import Any

from sitekit import contract
from sitekit.claims import Claim, ClaimError

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

    def link(self, target: str) -> str:
        """Relative link from this page to another docs path."""
        return os.path.relpath(target, os.path.dirname(self.page) or ".").replace(os.sep, "/")


MACROS: dict[str, Callable[..., str]] = {}


def macro(fn: Callable[..., str]) -> Callable[..., str]:
    """Register a page macro by its function name."""
    MACROS[fn.__name__] = fn
    return fn


def _topic_command(c: Claim) -> str:
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


def cuda_record(ctx: Context, cid: str) -> Claim | None:
    """The CUDA record where it exists, passed, and matches the current code."""
    c = ctx.cuda.get(cid)
    if c is None or c.status != "passed" or c.stale:
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


def fmt(value: Any, spec: str) -> str:
    if isinstance(value, bool) or not spec:
        return str(value)
    if isinstance(value, (int, float)):
        return format(value, spec)
    return str(value)


@macro
def value(ctx: Context, cid: str, key: str, spec: str = "") -> str:
    c = verified(ctx, cid)
    where = f"docs/{ctx.page}: value({cid!r}, {key!r})"
    shown = fmt(lookup(c.values, key, where), spec)
    gpu = cuda_record(ctx, cid)
    if gpu is not None:
        other = fmt(lookup(gpu.values, key, where + " on CUDA"), spec)
        if other != shown:
            return f"{shown} (CPU) / {other} (CUDA)"
    return shown


def _md_table(data: Any, spec: str, where: str) -> str:
    if not isinstance(data, dict) or set(data) != {"columns", "rows"}:
        raise ClaimError(f"{where}: record tables as {{'columns': [...], 'rows': [[...], ...]}}")
    head = "| " + " | ".join(map(str, data["columns"])) + " |"
    rule = "|" + "|".join(" ---: " if i else " --- " for i in range(len(data["columns"]))) + "|"
    body = ["| " + " | ".join(fmt(v, spec) for v in row) + " |" for row in data["rows"]]
    return "\n".join([head, rule, *body])


def tabs(cpu_block: str, cuda_block: str | None, ctx: Context) -> str:
    """CPU and CUDA variants as content tabs (CPU alone when CUDA has not run this code)."""
    if cuda_block is None:
        return cpu_block
    indent = lambda text: "\n".join(("    " + line) if line else "" for line in text.splitlines())  # noqa: E731
    gpu = ctx.cuda_provenance.get("gpu", "CUDA")
    return f'=== "CPU"\n\n{indent(cpu_block)}\n\n=== "CUDA ({gpu})"\n\n{indent(cuda_block)}\n'


@macro
def table(ctx: Context, cid: str, key: str, spec: str = "") -> str:
    c = verified(ctx, cid)
    where = f"docs/{ctx.page}: table({cid!r}, {key!r})"
    cpu_block = _md_table(lookup(c.values, key, where), spec, where)
    gpu = cuda_record(ctx, cid)
    cuda_block = _md_table(lookup(gpu.values, key, where), spec, where) if gpu else None
    return tabs(cpu_block, cuda_block, ctx)


@macro
def error(ctx: Context, cid: str, key: str) -> str:
    c = verified(ctx, cid)
    text = str(lookup(c.values, key, f"docs/{ctx.page}: error({cid!r}, {key!r})"))
    return f'``` text title="raised when run ({c.device}, torch {c.torch})"\n{text}\n```'


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
    return f"``` {lang}\n{text}\n```"


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
    values = {cid: verified(ctx, cid).values for cid in spec.claims}
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
    return "\n".join(line for line in html.splitlines() if line.strip())


@macro
def figref(ctx: Context, name: str) -> str:
    """A link to a figure on this page by its number ("Figure 2"), wherever on the page it is shown."""
    order = [m["name"] for m in FIGURE_CALL.finditer(ctx.source)]
    if name not in order:
        raise ClaimError(f"docs/{ctx.page}: figref({name!r}) names a figure this page does not show")
    return f"[Figure {list(dict.fromkeys(order)).index(name) + 1}](#figure-{name})"


@macro
def claim(ctx: Context, cid: str) -> str:
    c = verified(ctx, cid)
    gpu = " and CUDA" if cuda_record(ctx, cid) else ""
    title = f"{c.test} passed on CPU{gpu}"
    return f'[✓ verified]({ctx.link("claims.md")}#{anchor(cid)} "{title}"){{ .claim-badge }}'


@macro
def hardware(ctx: Context) -> str:
    """Where the recorded claims ran: the CPU, and the GPU or a line saying CUDA has not run."""
    cpu = ctx.cpu_provenance
    lines = [
        f"- **CPU:** {cpu.get('cpu') or cpu.get('processor', '?')}, {cpu.get('threads', '?')} threads, "
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


def anchor(cid: str) -> str:
    return "claim-" + cid.replace("_", "-")


def _summary(values: dict[str, Any], limit: int = 90) -> str:
    parts = []
    for k, v in values.items():
        if isinstance(v, (dict, list)):
            continue
        parts.append(f"{k} = {fmt(v, '.4g')}")
    text = " ".join("; ".join(parts).split()) or "(table or series, see page)"  # one table row
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("|", "\\|")


@macro
def ledger(ctx: Context) -> str:
    by_page: dict[str, list[Claim]] = {}
    for c in ctx.cpu.values():
        by_page.setdefault(c.page, []).append(c)
    total = len(ctx.cpu)
    gpu_fresh = sum(1 for cid in ctx.cpu if cuda_record(ctx, cid) is not None)
    out = [f"{total} claims; {gpu_fresh} verified on CUDA on the current code.", ""]
    for page, group in sorted(by_page.items()):
        out += [f"### [{page}]({ctx.link(page)})", ""]
        out += ["| Claim | CPU | CUDA | Status |", "| --- | --- | --- | --- |"]
        for c in sorted(group, key=lambda c: c.id):
            status = "stale" if c.stale else c.status
            gpu = ctx.cuda.get(c.id)
            if c.cpu_only:
                cuda = f"CPU only: {c.cpu_only}"
            elif gpu is None:
                cuda = "not run yet"
            elif gpu.stale:
                cuda = f"stale: code changed since {gpu.recorded_at[:10]}"
            else:
                cuda = f"{gpu.status}: {_summary(gpu.values)}"
            statement = c.statement.replace("|", "\\|")
            out.append(
                f'| <span id="{anchor(c.id)}"></span>{statement}<br>'
                f"<small>`{c.test}` · `{c.snippet}`</small> "
                f"| {_summary(c.values)} | {cuda} | {status} |"
            )
        out.append("")
    return "\n".join(out)


def uncited(cpu: dict[str, Claim], cited: dict[str, set[str]]) -> list[str]:
    """Problems for claims that the page named in their marker never shows."""
    return [
        f"{c.test} (claim {cid!r}) names page docs/{c.page}, which never cites it: add "
        f'{{{{ claim("{cid}") }}}} or a value/table/figure from it to that page.'
        for cid, c in sorted(cpu.items())
        if cid not in cited.get(c.page, set())
    ]


CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")


def render(text: str, ctx: Context) -> str:
    """Expand every macro call outside code in a page's Markdown; raise ClaimError on a bad one."""

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
            return f'<span class="claim-problem">⚠ {err}</span>'

    def prose(line: str) -> str:
        out, last = [], 0
        for span in CODE_SPAN.finditer(line):
            out.append(MACRO.sub(expand, line[last : span.start()]))
            out.append(span[0])
            last = span.end()
        out.append(MACRO.sub(expand, line[last:]))
        # A multi-line expansion on an indented line (inside a tab or an admonition) keeps that indent.
        indent = line[: len(line) - len(line.lstrip())]
        return "".join(out).replace("\n", "\n" + indent)

    ctx.source = text  # figref() numbers figures by where the page shows them
    lines, fence = [], None
    for line in text.split("\n"):
        m = FENCE_LINE.match(line)
        if fence is None and m:
            fence = m[1]
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            line = prose(line)
        lines.append(line)
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
