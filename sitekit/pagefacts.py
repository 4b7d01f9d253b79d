"""The byline under a page's title (part, reading time, run it; what it rests on behind a disclosure), the hardware()
macro, and the walk over a page's lines outside code fences."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterator
from html import escape
from typing import Any

from sitekit.claims import ClaimError
from sitekit.notebook_index import colab_url
from sitekit.notebooks import duration
from sitekit.page_context import Context, cuda_record, macro
from sitekit.receipts import _device_line, _threads, page_anchor

FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")


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


FOLD = re.compile(r"^(\s*)\?\?\?(?!\+)")  # a collapsed fold (`???`, not `???+`): its title shows, its body not


def main_text(lines: list[str]) -> list[str]:
    """The lines a reader sees as the page loads: a collapsed fold's body (lines indented under its `???`) left out."""
    out, fold = [], None
    for line in lines:
        if fold is not None:
            if not line.strip() or len(line) - len(line.lstrip()) > fold:
                continue
            fold = None
        if (m := FOLD.match(line)) is not None:
            fold = len(m[1])
        out.append(line)
    return out


def reading_minutes(markdown: str, words_per_minute: int = 200, folds: bool = False) -> int:
    """Minutes to read a page's main text (with `folds`, its folds' bodies too): fenced code, macros and HTML tags
    are not counted."""
    prose = [line for line, is_prose in outside_fences(markdown) if is_prose]
    prose = prose if folds else main_text(prose)
    text = re.sub(r"<[^>]+>|\{\{.*?\}\}", " ", "\n".join(prose))
    return max(1, math.ceil(len(re.findall(r"[A-Za-z0-9]+", text)) / words_per_minute))


# The module's core route: the pages a learner must read and do, in order. The module's front page lists it with
# each step's reading time (core_route()), the home page gives its total (route_total()); everything else
# (the labs, the later parts, the quiz, the takeaways, the encyclopedia) is optional and marked so there.
CORE_ROUTE = (
    "module/degradation.md",
    "module/residual-block.md",
    "module/gradient-highway.md",
    "module/initialisation.md",
    "module/residual-stream.md",
    "module/exercise.md",
)
ROUTE_TITLES = {"module/exercise.md": "The hands-on exercise"}  # the nav's title is "The exercise", in a section


def page_minutes(uri: str) -> int:
    """The reading time of docs/<uri>, as the line under its title gives it (reading_minutes of its body).
    Read from the page as written, so a full render is always current; a dirty preview re-renders only the edited
    page, and the route's times catch up at the next full render."""
    from sitekit import site_render  # the docs folder and MkDocs' split of front matter; it imports this module

    path = site_render.DOCS / uri
    if not path.is_file():
        raise ClaimError(f"reading time of docs/{uri}: no such page")
    with open(path, encoding="utf-8-sig") as f:
        return reading_minutes(site_render.split_meta(f.read())[1])


def _minutes(total: int) -> str:
    return f"{total} min" if total < 60 else f"{total // 60} h {total % 60:02d} min"


def _pages(ctx: Context, uris: tuple[str, ...]) -> list[str]:
    """Docs paths; one ending in "/" stands for every page of the nav under that folder (the encyclopedia)."""
    out = []
    for uri in uris:
        folder = [p for p in ctx.page_order if p.startswith(uri)] if uri.endswith("/") else [uri]
        if not folder:
            raise ClaimError(f"docs/{ctx.page}: reading_time({uri!r}): no page of the nav is under that folder")
        out += folder
    return out


@macro
def reading_time(ctx: Context, *uris: str) -> str:
    """How long the pages (docs paths) take to read, added up: "12 min"."""
    return _minutes(sum(page_minutes(uri) for uri in _pages(ctx, uris)))


@macro
def route_total(ctx: Context) -> str:
    """The core route's reading time, added up: "1 h 05 min"."""
    return reading_time(ctx, *CORE_ROUTE)


@macro
def core_route(ctx: Context) -> str:
    """The core route as a table: step, page (linked), reading time, and the total (Markdown)."""
    rows = ["| Step | Read or do | Reading time |", "| --- | --- | --- |"]
    for step, uri in enumerate(CORE_ROUTE, 1):
        title = ROUTE_TITLES.get(uri) or ctx.page_titles.get(uri, uri)
        rows.append(f"| {step} | [{title}]({ctx.link(uri)}) | {reading_time(ctx, uri)} |")
    rows.append(f"| | **The core route** | **{route_total(ctx)}** |")
    return "\n".join(rows)


# The byline's ⓘ, drawn (the site's system fonts may lack the character): a circled "i" in the text's colour.
INFO = (
    '<svg class="page-facts-i" viewBox="0 0 16 16" width="1em" height="1em" aria-hidden="true">'
    '<circle cx="8" cy="8" r="6.8" fill="none" stroke="currentColor" stroke-width="1.3"/>'
    '<circle cx="8" cy="4.9" r="0.95" fill="currentColor"/>'
    '<rect x="7.25" y="6.8" width="1.5" height="5" rx="0.5" fill="currentColor"/></svg>'
)


def _lab(ctx: Context) -> tuple[int, int] | None:
    """(n, how many) where the nav titles this page "Lab n · ..."."""
    labs = {uri: int(m[1]) for uri, title in ctx.page_titles.items() if (m := re.match(r"Lab (\d+) ·", title))}
    return (labs[ctx.page], len(labs)) if ctx.page in labs else None


def page_facts(
    ctx: Context, part: tuple[int, int] | None, minutes: int, notebook: Any = None, with_folds: int = 0
) -> str:
    """The byline under a page's title, one line: where the page sits ("Part 1 of 7", "Lab 2 of 3"), how long it
    reads and, where the page runs measurements, a link to run them (its notebook, a sitekit.notebooks.Notebook)
    with how long that takes. What the page rests on (its claims, the machine, torch, the dates) and the script
    sit behind one small ⓘ disclosure after it. Raw HTML (a block MkDocs passes through)."""
    line = []
    if part is not None:
        line.append(f"Part {part[0]} of {part[1]}")
    elif (lab := _lab(ctx)) is not None:
        line.append(f"Lab {lab[0]} of {lab[1]}")
    line.append(f"{minutes} min read")
    more = [f"{minutes} min for the main text, {with_folds} with every fold open."] if with_folds > minutes else []
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
        mine = any(c.page == ctx.page for c in ctx.cpu.values())
        ledger = ctx.url("claims.md", page_anchor(ctx.page) if mine else "")
        more.append(
            f'Rests on <a href="{escape(ledger)}">{n} measured claim{"s" if n != 1 else ""}</a>, verified on '
            f"{escape(where)} with torch {escape(torches)}, {when}."
        )
    if notebook is not None:
        base = escape(ctx.url(f"notebooks/{notebook.slug}"))
        line.append(f'<a href="{base}.ipynb">Run it</a> ({duration(notebook.seconds)})')
        if colab := colab_url(notebook.slug):
            line.append(f'<a href="{escape(colab)}">Open in Colab</a>')
        more.append(
            f'Run it yourself as a <a href="{base}.ipynb">notebook</a> or a <a href="{base}.py">script</a>: '
            f"{len(notebook.calls)} measurements, {duration(notebook.seconds)} on the machine that built this page."
        )
    html = f'<div class="page-facts"><span class="page-facts-line">{" · ".join(line)}</span>'
    if more:
        html += (
            '<details class="page-facts-more">'
            f'<summary title="What this page rests on" aria-label="What this page rests on">{INFO}</summary>'
            f"<p>{' '.join(more)}</p></details>"
        )
    return html + "</div>"


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
