"""The only MkDocs-specific code: wires sitekit's checks, figures and macros into the build.

Moving to another generator means rewriting these few functions, not the pipeline.
Set SITE_ALLOW_STALE=1 (the `serve` session does) to show problems on the page instead of failing.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from sitekit import (
    claims,
    contract,
    csp,
    facts,
    figures,
    html_stage,
    lightpage,
    mathrender,
    notebooks,
    numbers,
    numbers_notebook,
    preview,
    render,
    rendered,
    typesetting,
)
from sitekit import parts as part_refs

_state: dict[str, Any] = {}
log = logging.getLogger("mkdocs.hooks.sitekit")

# Files kept outside docs/ and published at a docs path: site path -> source (repository path).
# An .ipynb here becomes a page through mkdocs-jupyter; anything else is copied for download.
PUBLISHED = {
    "module/exercise-solution.ipynb": "results/build/exercise-solution.ipynb",  # tests/exercise write it
    "module/exercise_residual.py": "snippets/exercise/exercise_residual.py",
    "module/check_exercise.py": "snippets/exercise/check.py",  # the self-check, standalone
    "module/lab_paths_tasks.py": "snippets/lab_paths/tasks.py",  # Lab 1's tasks and their self-check
    "module/lab_stream_tasks.py": "snippets/lab_transformer/tasks.py",  # Lab 2's
}
STAGE = claims.ROOT / "results" / "build" / "published"


def on_config(config: Any) -> Any:
    claims.clear_cache()  # serve rebuilds in one process: see every edit
    cpu, cpu_prov = claims.load("cpu")
    cuda, cuda_prov = claims.load("cuda")
    _state.update(
        strict=os.environ.get("SITE_ALLOW_STALE") != "1",
        cpu=cpu,
        cuda=cuda,
        cpu_prov=cpu_prov,
        cuda_prov=cuda_prov,
        drawn={},
        cited={},
        receipts={},
    )
    if not cpu and _state["strict"]:
        raise PluginError("results/cpu.json is missing: run `nox -s tests` first (`nox -s docs` does).")
    reused = sorted(cid for cid, c in cpu.items() if c.reused)
    if reused and os.environ.get("SITE_PUBLISH") == "1":
        raise PluginError(
            f"SITE_PUBLISH=1: {len(reused)} claims in results/cpu.json were reused from an earlier run "
            f"instead of run ({', '.join(reused[:3])}{', ...' if len(reused) > 3 else ''}); a published "
            "site comes from a fresh run: `SITE_PUBLISH=1 nox -s tests docs` (or `nox -s docs -- --fresh`)."
        )
    return config


def on_startup(command: str, dirty: bool) -> None:
    """`mkdocs serve --dirty` (nox -s serve): later rebuilds redo only what an edit touched (sitekit/preview.py)."""
    preview.SESSION.dirty = command == "serve" and dirty


@event_priority(50)  # before the plugins, so mkdocs-jupyter sees the published notebook
def on_files(files: Files, config: Any) -> Files:
    problems = contract.check_tree()
    if problems and _state["strict"]:
        raise PluginError("the site breaks its contract:\n  " + "\n  ".join(problems))
    for problem in problems:  # preview: say it, keep serving
        log.warning(problem)
    session = preview.SESSION
    _state["rebuild_all"] = False  # set below for a dirty preview that must rebuild every page (see on_nav)
    if session.rebuild_all():
        session.figures, session.drawn = [], {}
        for name, key, uri, svg in _draw_figures():
            session.figures.append((uri, svg))
            session.drawn.setdefault(name, {})[key] = uri
        _state["rebuild_all"] = session.dirty  # a snippet, record or the pipeline changed: see on_nav
        session.notebooks, session.notebook_files = _notebooks()
    for uri, svg in session.figures:
        files.append(File.generated(config, uri, content=svg))
    for uri, text in session.notebook_files:
        files.append(File.generated(config, uri, content=text))
    _state["drawn"] = session.drawn
    _state["notebooks"] = session.notebooks
    listed = sorted({inc.path for page in (claims.ROOT / "docs").rglob("*.md") for inc in contract.includes(page)})
    _state["sources"] = set()
    for path in listed:  # the source a listing's title links to: site/src/snippets/<topic>/<name>.py
        source = claims.ROOT / path
        if source.is_file():
            files.append(File.generated(config, f"{render.SOURCE_DIR}/{path}", content=source.read_bytes()))
            rendered.write(f"{render.SOURCE_DIR}/{path}", source.read_bytes())
            _state["sources"].add(path)
    for uri, source in PUBLISHED.items():
        path = claims.ROOT / source
        if path.is_file():
            # A real file under a src_dir (not File.generated): mkdocs-jupyter's wrapper needs one.
            _stage(path, STAGE / uri)
            rendered.write(uri, path.read_bytes())
            files.append(File(uri, str(STAGE), config.site_dir, config.use_directory_urls))
        elif _state["strict"]:
            raise PluginError(f"{source} is missing: the tests write it; run `nox -s tests` first.")
        else:
            log.warning(f"{source} is missing (run `nox -s tests`): docs/{uri} is left out")
    return files


def _draw_figures() -> list[tuple[str, str, str, bytes]]:
    """Every figure for each device with a record, desktop and phone layouts: (name, key, site path, SVG)."""
    out = []
    for name, spec in sorted(figures.load_all().items()):
        for device, recorded in (("cpu", _state["cpu"]), ("cuda", _state["cuda"])):
            for narrow in (False, True):  # the second laid out for a phone's column
                svg = figures.draw(spec, recorded, narrow)
                if svg is None:
                    continue
                uri = f"figures/{name}{'' if device == 'cpu' else '.cuda'}{'.narrow' if narrow else ''}.svg"
                rendered.write(uri, svg)
                figures.DRAWN[uri] = svg  # the `figure` macro puts the drawing itself into the page
                out.append((name, device + ("-narrow" if narrow else ""), uri, svg))
    return out


def _notebooks() -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Each page's notebook, as a script and an .ipynb (sitekit/notebooks.py), from this build's call log."""
    books, out = notebooks.plan("cpu"), []
    for book in books.values():
        text = notebooks.script(book)
        base = f"{notebooks.FOLDER}/{book.slug}"
        for uri, data in ((f"{base}.py", text), (f"{base}.ipynb", notebooks.ipynb(text))):
            rendered.write(uri, data)
            out.append((uri, data))
    return books, out


def _stage(source: Path, staged: Path) -> None:
    """Copy `source` to `staged` only when its bytes differ: `mkdocs serve` watches results/, and a
    rewrite of the same bytes would start another build, forever (one every few seconds)."""
    data = source.read_bytes()
    if staged.is_file() and staged.read_bytes() == data:
        return
    staged.parent.mkdir(parents=True, exist_ok=True)
    tmp = staged.with_name(f".{staged.name}.{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, staged)  # atomic: builds may run side by side


# The notebook template adds MathJax (from `custom_mathjax_url`, empty here) and a loader that imports
# mermaid from a CDN: drop both, so that a notebook page, like every page, needs no other host.
NOTEBOOK_SCRIPTS = re.compile(
    r'<script src="">\s*</script>|<script type="text/x-mathjax-config">.*?</script>'
    r"|<script\b[^>]*>(?:(?!</script>).)*?https?://(?:(?!</script>).)*</script>",
    re.S,
)


def on_nav(nav: Any, config: Any, files: Files) -> Any:
    """Reading order and titles for the ledger; "Part N of M" for the module's parts."""
    if _state.get("rebuild_all"):  # a dirty preview whose snippets, records or pipeline changed: every page,
        for file in files.documentation_pages():  # as a full build would (here, after the plugins' own on_files)
            file.is_modified = lambda: True  # type: ignore[method-assign]
    pages = [p for p in nav.pages if p.file is not None]
    _state["order"] = [p.file.src_uri for p in pages]
    _state["titles"] = {p.file.src_uri: p.title or p.file.src_uri for p in pages}

    def numbered(word: str) -> dict[str, int]:  # "Part 4 · ..." in the nav -> {"module/....md": 4}
        return {p.file.src_uri: int(m[1]) for p in pages if p.title and (m := re.match(rf"{word} (\d+)\b", p.title))}

    parts, labs = numbered("Part"), numbered("Lab")
    _state.update(part_numbers=parts, labs=labs, parts={uri: (n, len(parts)) for uri, n in parts.items()})
    # The Sources page shows each work's cited_for, which names parts: held to the same rule as a page.
    try:
        works = facts.registry().works.values()
    except facts.FactError:
        works = []  # the Sources page's sources() macro reports it, naming the fact
    wrong = [
        f"facts/facts.toml: work {work.id!r}, cited_for: {problem.split(': ', 1)[1]}"
        for work in works
        for problem in part_refs.check(work.cited_for, "module/sources.md", parts, labs=labs)
    ]
    if wrong and _state["strict"]:
        raise PluginError("part numbers (sitekit/parts.py):\n  " + "\n  ".join(wrong))
    for problem in wrong:
        log.warning(problem)
    return nav


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    def site_file(uri: str) -> bytes | None:
        file = files.get_file_from_path(uri)
        return file.content_bytes if file else None

    if getattr(page, "nb_url", None) is None:  # set by mkdocs-jupyter on notebook pages only
        html = html_stage.content(html, page.file.src_uri, page.url, site_file)
        data = _state["receipts"].get(page.file.src_uri)
        if data:  # what the receipts' popovers show (docs/assets/js/receipts.js)
            blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
            html += f'\n<script type="application/json" id="receipt-data">{blob}</script>\n'
        return html
    # include_source copies the .ipynb next to the page; this theme draws no button for it.
    name = os.path.basename(page.file.abs_src_path)
    button = f'<p><a class="md-button" href="{name}" download>Download the notebook ({name})</a></p>\n'
    html = lightpage.focusable_code(lightpage.lazy_images(html, page.url, site_file))
    html = NOTEBOOK_SCRIPTS.sub("", html)
    try:
        html = figures.notebook_plots(html)  # plots in the site's colours, with their descriptions
    except ValueError as err:
        if _state["strict"]:
            raise PluginError(f"docs/{page.file.src_uri}: {err}") from None
        log.warning(str(err))
    return button + typesetting.powers_html(render.typeset_html(html))


_katex = mathrender.KaTeX()  # one Node process per build; its cache lives as long as `mkdocs serve`


def on_post_page(output: str, page: Any, config: Any) -> str:
    # After the search plugin has read the page: the index keeps the TeX, not KaTeX's markup.
    output, problems = html_stage.finish(output, _katex)
    if problems and _state["strict"]:
        raise PluginError(
            f"docs/{page.file.src_uri}: math that KaTeX cannot typeset "
            "(fix the TeX; see https://katex.org/docs/supported):\n  " + "\n  ".join(problems)
        )
    for problem in problems:
        log.warning(f"docs/{page.file.src_uri}: {problem}")
    if getattr(page, "nb_url", None) is not None:
        output = lightpage.slim_notebook(output)
    return csp.protect(output, f"docs/{page.file.src_uri}")  # last: the policy hashes the final scripts


def on_post_template(output: str, template_name: str, config: Any) -> str:
    """The theme's own pages (404.html) carry the same policy as every other page."""
    return csp.protect(output, template_name) if template_name.endswith(".html") and "<head" in output else output


def on_post_build(config: Any) -> None:
    _katex.close()
    rendered.copy_static()


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    typed = []
    if page.file.src_uri.endswith(".md"):  # a notebook page's Markdown is its JSON
        typed = numbers.check_markdown(markdown, page.file.src_uri, page.file.content_string, figures.REGISTRY)
        typed += part_refs.check(
            markdown,
            page.file.src_uri,
            _state.get("part_numbers", {}),
            page.file.content_string,
            labs=_state.get("labs", {}),
        )
    elif page.file.src_uri.endswith(".ipynb"):  # its markdown cells, bound by its own code and outputs
        typed = [str(u) for u in numbers_notebook.check_notebook(markdown, page.file.src_uri)]
    if typed and _state["strict"]:
        raise PluginError("numbers typed by hand (sitekit/numbers.py, sitekit/parts.py):\n  " + "\n  ".join(typed))
    for problem in typed:  # preview: say it, keep serving
        log.warning(problem)
    ctx = render.Context(
        page=page.file.src_uri,
        cpu=_state["cpu"],
        cuda=_state["cuda"],
        cpu_provenance=_state["cpu_prov"],
        cuda_provenance=_state["cuda_prov"],
        figures=_state["drawn"],
        strict=_state["strict"],
        page_order=_state.get("order", []),
        page_titles=_state.get("titles", {}),
        sources=_state.get("sources", set()),
    )
    try:
        out = render.render(markdown, ctx)
    except claims.ClaimError as err:
        raise PluginError(str(err)) from None
    uri = page.file.src_uri
    _state["cited"][uri] = ctx.cited
    _state.setdefault("receipts", {})[uri] = ctx.receipts
    if ctx.cited or uri in _state.get("parts", {}):
        book = _state.get("notebooks", {}).get(uri)
        line = render.page_facts(ctx, _state["parts"].get(uri), render.reading_minutes(markdown), book)
        out = render.with_page_facts(out, line)
    if uri.endswith(".md"):  # the same page for any other generator (sitekit/rendered.py, nox -s zensical)
        rendered.page(uri, out, ctx.receipts)
    return out


def on_env(env: Any, config: Any, files: Files) -> Any:
    if not _state["strict"]:
        return env
    uncited = render.uncited(_state["cpu"], _state["cited"])
    if uncited:
        raise PluginError("claims that no page shows:\n  " + "\n  ".join(uncited))
    return env
