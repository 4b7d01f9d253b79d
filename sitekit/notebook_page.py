"""The `notebook` macro: a Jupyter notebook, with the outputs of the run that built the site, as the page's own
Markdown (its Markdown cells as they are, each code cell a listing, each output under it, each plot inline in
the site's figure style), so that a notebook page needs no generator plugin and looks like every other page.

The notebook's Markdown cells are held to the numbers rule (sitekit/numbers_notebook.py:
a number in prose must be one its code or outputs print); an output the page cannot show (an error, a bitmap,
HTML) stops the build, naming the notebook and what to do.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import PurePosixPath

from sitekit import numbers_notebook
from sitekit.claims import ROOT, ClaimError
from sitekit.figures import notebook_svg
from sitekit.page_context import Context, macro

log = logging.getLogger("mkdocs.hooks.sitekit")  # under MkDocs its warnings show as the hook's do


def _fence(text: str, lang: str, title: str = "") -> str:
    """`text` as a fenced block, the fence longer than any run of backticks inside it."""
    ticks = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    head = f"{ticks}{lang}" + (f' title="{title}"' if title else "")
    return f"{head}\n{text.rstrip(chr(10))}\n{ticks}"


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # terminal colours, which a page cannot show
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.M)
FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", re.M | re.S)  # a fenced block, fences and all
CODE_SPAN = re.compile(r"`+[^`]*`+")
DOLLAR_MATH = re.compile(r"(?<![\\$])\$[^$\s][^$]*\$")  # $x$: the site typesets \(x\) and \[x\] only


def _joined(value: str | list[str]) -> str:
    return value if isinstance(value, str) else "".join(value)


def _console(text: str) -> str:
    """Stream text as a terminal would leave it: colours dropped, a line rewritten after \\r shown as rewritten."""
    return "\n".join(line.rsplit("\r", 1)[-1] for line in ANSI.sub("", text).split("\n"))


def _markdown_cell(text: str, where: str) -> str:
    """A Markdown cell, checked for what would not read the same on the page as in Jupyter."""
    if len(FENCE.findall(text)) % 2:
        raise ClaimError(f"{where}: a Markdown cell opens a code fence it does not close; close it in that cell")
    if "attachment:" in text:
        raise ClaimError(f"{where}: a Markdown cell shows an attached image, which the page cannot; draw it in a cell")
    if DOLLAR_MATH.search(CODE_SPAN.sub("", FENCED.sub("", text))):
        raise ClaimError(f"{where}: a Markdown cell writes math as $...$; write \\(...\\) (inline) or \\[...\\]")
    return text.strip("\n")


def _output(out: dict, where: str) -> str:
    kind = out.get("output_type")
    if kind == "stream":
        text = _console(_joined(out.get("text", "")))
        return _fence(text, "text", "Output" if out.get("name") != "stderr" else "Warnings") if text.strip() else ""
    if kind == "error":
        raise ClaimError(f"{where}: a cell raised {out.get('ename')}: {out.get('evalue')}; fix the notebook's code")
    data = out.get("data", {})
    if "image/svg+xml" in data:
        svg = "\n".join(line for line in _joined(data["image/svg+xml"]).splitlines() if line.strip())
        try:
            drawn = notebook_svg(svg)
        except ValueError as err:
            raise ClaimError(f"{where}: {err}") from None
        return f'<figure class="rs-figure rs-notebook-figure" markdown="0">\n{drawn}\n</figure>'
    if set(data) <= {"text/plain"}:
        text = _joined(data.get("text/plain", ""))
        return _fence(text, "text", "Output") if text.strip() else ""
    raise ClaimError(
        f"{where}: an output of type {sorted(data)} has no place on the page: draw plots as SVG with a description "
        '(`%config InlineBackend.figure_formats = ["svg"]`, see snippets/exercise/solution.py) and print text'
    )


def notebook_markdown(source: str, where: str, download: str = "") -> str:
    """The notebook (its JSON text) as Markdown; `download`: a link to the .ipynb, shown under the title."""
    try:
        nb = json.loads(source)
    except json.JSONDecodeError as err:
        raise ClaimError(f"{where}: not a notebook ({err}); run `nox -s tests` to write it again") from None
    blocks: list[str] = []
    for cell in nb.get("cells", []):
        text = _joined(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            blocks.append(_markdown_cell(text, where))
        elif cell.get("cell_type") == "code" and text.strip():
            if "--8<--" in text:  # the page's Markdown would include a file there (pymdownx.snippets)
                raise ClaimError(f"{where}: a code cell contains '--8<--', which the page would read as an include")
            blocks.append(_fence(text, "python"))
            blocks.extend(_output(out, where) for out in cell.get("outputs", []))
    if download:
        name = PurePosixPath(download).name
        button = f'[Download the notebook ({name})]({download}){{ .md-button download="{name}" }}'
        at = 1 if blocks and blocks[0].startswith("# ") else 0
        if at:  # the title is the first cell's heading; the button goes under its first line
            title, _, rest = blocks[0].partition("\n")
            blocks[0:1] = [title, button, rest.strip()] if rest.strip() else [title, button]
        else:
            blocks.insert(0, button)
    # A blank first line: a notebook that starts with "Key: value" or "---" is not read as the page's metadata.
    return "\n" + "\n\n".join(b for b in blocks if b) + "\n"


@macro
def notebook(ctx: Context, source: str, download: str = "") -> str:
    """`source`: the executed notebook, a repository path; `download`: its published docs path, linked."""
    path = ROOT / source
    where = f"docs/{ctx.page}: notebook({source!r})"
    if not path.is_file():
        raise ClaimError(f"{where}: {source} is missing; the tests write it: run `nox -s tests` first")
    text = path.read_text(encoding="utf-8")
    unbound = [str(u) for u in numbers_notebook.check_notebook(text, ctx.page)]
    if unbound and ctx.strict:
        raise ClaimError("numbers typed by hand (sitekit/numbers_notebook.py):\n  " + "\n  ".join(unbound))
    for problem in unbound:  # preview: say it, show the page
        log.warning(problem)
    return notebook_markdown(text, where, ctx.link(download) if download else "")
