"""The whole site, rendered into build/rendered/ as plain Markdown and files that need no hook: every page
(checks, macros, typesetting, receipts, the line under its title), the figures (desktop and phone), the
notebooks, the listings' sources, the published files and the static files. MkDocs builds from that folder
(mkdocs_hook.py points its docs_dir there); so can any generator that reads Markdown (`nox -s zensical`).

    python -m sitekit.site_render        (nox -s render; nox -s docs runs it before `mkdocs build`)

The checks and their messages are the build's: strict (the default) stops at the first stage with a problem
(RenderError); SITE_ALLOW_STALE=1 (the preview) logs each problem and renders on. No MkDocs here: reading
order, titles and "Part N"/"Lab N" come from mkdocs.yml's nav, read as YAML.

`render_site` renders everything, writes only the files whose bytes changed and removes what it did not write;
given the preview's last render, it renders only the pages whose Markdown changed (sitekit/preview.py). `ensure`
is what the hook calls per build: one of those, or nothing when `nox -s render` has just rendered these inputs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sitekit import claims, contract, experiments, facts, figures, notebooks, numbers, preview, render, rendered
from sitekit import parts as part_refs

ROOT = claims.ROOT
DOCS = ROOT / "docs"
STAMP = ROOT / "build" / "rendered.stamp"  # the inputs of the last complete full render (see `ensure`)
log = logging.getLogger("mkdocs.hooks.sitekit")  # under MkDocs, its warnings show as the hook's always did

# Files kept outside docs/ and published at a docs path: site path -> source (repository path).
# Each is copied for download; the worked solution's page (docs/module/exercise-solution.md) renders its notebook.
PUBLISHED = {
    "module/exercise-solution.ipynb": "results/build/exercise-solution.ipynb",  # tests/exercise write it
    "module/exercise_residual.py": "snippets/exercise/exercise_residual.py",
    "module/check_exercise.py": "snippets/exercise/check.py",  # the self-check, standalone
    "module/lab_paths_tasks.py": "snippets/lab_paths/tasks.py",  # Lab 1's tasks and their self-check
    "module/lab_stream_tasks.py": "snippets/lab_transformer/tasks.py",  # Lab 2's
    "module/lab_reading_tasks.py": "snippets/lab_transformer/reading_tasks.py",  # Lab 3's
}


class RenderError(Exception):
    """A strict render stops: the message is the one the build has always stopped with; `page` is the docs path
    of the page being rendered, if any (MkDocs named it: "Error reading page '...':")."""

    page: str | None = None


@dataclass
class Site:
    """What every page is rendered against, from the last full render (a one-page render reuses it)."""

    strict: bool
    cpu: dict[str, Any]
    cuda: dict[str, Any]
    cpu_prov: dict[str, Any]
    cuda_prov: dict[str, Any]
    drawn: dict[str, dict[str, str]] = field(default_factory=dict)  # the `figure` macro's map
    notebooks: dict[str, Any] = field(default_factory=dict)  # page -> its notebook (sitekit.notebooks)
    sources: set[str] = field(default_factory=set)  # snippet paths published under render.SOURCE_DIR
    order: list[str] = field(default_factory=list)  # docs paths in nav order
    titles: dict[str, str] = field(default_factory=dict)  # docs path -> nav title (or the path)
    part_numbers: dict[str, int] = field(default_factory=dict)
    labs: dict[str, int] = field(default_factory=dict)
    parts: dict[str, tuple[int, int]] = field(default_factory=dict)  # docs path -> (n, how many parts)
    cited: dict[str, set[str]] = field(default_factory=dict)  # docs path -> claims it shows
    sources_read: dict[str, str] = field(default_factory=dict)  # docs path -> the text it was rendered from
    written: set[str] = field(default_factory=set)  # every file of the render, as docs paths


def strict_mode() -> bool:
    return os.environ.get("SITE_ALLOW_STALE") != "1"


def _stop_or_warn(strict: bool, header: str, problems: list[str]) -> None:
    if problems and strict:
        raise RenderError(header + "\n  " + "\n  ".join(problems))
    for problem in problems:  # preview: say it, keep serving
        log.warning(problem)


def load(strict: bool) -> Site:
    """The claim records, refused where a build cannot use them."""
    claims.clear_cache()  # the preview renders in one process: see every edit
    cpu, cpu_prov = claims.load("cpu")
    cuda, cuda_prov = claims.load("cuda")
    if not cpu and strict:
        raise RenderError("results/cpu.json is missing: run `nox -s tests` first (`nox -s docs` does).")
    # An experiment file may rest on its committed records in CI's rotation, where CI's procedure reproduced them
    # as they stand (sitekit.experiments.rests); any other reuse is refused.
    due = experiments.due("cpu") if any(c.reused for c in cpu.values()) else {}
    reused = sorted(cid for cid, c in cpu.items() if c.reused and not experiments.rests(cid, asdict(c), "cpu", due))
    if reused and os.environ.get("SITE_PUBLISH") == "1":
        raise RenderError(
            f"SITE_PUBLISH=1: {len(reused)} claims in results/cpu.json were reused from an earlier run "
            f"instead of run ({', '.join(reused[:3])}{', ...' if len(reused) > 3 else ''}); a published "
            "site comes from a fresh run: `SITE_PUBLISH=1 nox -s tests docs` (or `nox -s docs -- --fresh`)."
        )
    return Site(strict=strict, cpu=cpu, cuda=cuda, cpu_prov=cpu_prov, cuda_prov=cuda_prov)


def _draw_figures(site: Site, out: dict[str, bytes | str]) -> None:
    """Every figure for each device with a record, desktop and phone layouts."""
    for name, spec in sorted(figures.load_all().items()):
        for device, recorded in (("cpu", site.cpu), ("cuda", site.cuda)):
            for narrow in (False, True):  # the second laid out for a phone's column
                svg = figures.draw(spec, recorded, narrow)
                if svg is None:
                    continue
                uri = f"figures/{name}{'' if device == 'cpu' else '.cuda'}{'.narrow' if narrow else ''}.svg"
                out[uri] = svg
                figures.DRAWN[uri] = svg  # the `figure` macro puts the drawing itself into the page
                site.drawn.setdefault(name, {})[device + ("-narrow" if narrow else "")] = uri


def _notebooks(site: Site, out: dict[str, bytes | str]) -> None:
    """Each page's notebook, as a script and an .ipynb (sitekit/notebooks.py), from this build's call log."""
    site.notebooks = notebooks.plan("cpu")
    for book in site.notebooks.values():
        text = notebooks.script(book)
        base = f"{notebooks.FOLDER}/{book.slug}"
        out[f"{base}.py"], out[f"{base}.ipynb"] = text, notebooks.ipynb(text)


def _files(site: Site, out: dict[str, bytes | str], last: Site | None) -> None:
    """The contract, then every file that is not a page: figures and notebooks (kept from `last`, a preview's
    previous render, when there is one), listing sources, published files."""
    _stop_or_warn(site.strict, "the site breaks its contract:", contract.check_tree())
    if last is None:
        _draw_figures(site, out)
        _notebooks(site, out)
    else:
        site.drawn, site.notebooks = last.drawn, last.notebooks
    listed = sorted({inc.path for page in DOCS.rglob("*.md") for inc in contract.includes(page)})
    for path in listed:  # the source a listing's title links to: site/src/snippets/<topic>/<name>.py
        source = ROOT / path
        if source.is_file():
            out[f"{render.SOURCE_DIR}/{path}"] = source.read_bytes()
            site.sources.add(path)
    for uri, source in PUBLISHED.items():
        path = ROOT / source
        if path.is_file():
            out[uri] = path.read_bytes()
        elif site.strict:
            raise RenderError(f"{source} is missing: the tests write it; run `nox -s tests` first.")
        else:
            log.warning(f"{source} is missing (run `nox -s tests`): docs/{uri} is left out")


class ConfigLoader(yaml.SafeLoader):
    """mkdocs.yml's `!ENV [NAME, default]` reads as the variable's default (a local build's value); the nav uses
    none. scripts/zensical_build.py reads the config with it too."""


ConfigLoader.add_constructor("!ENV", lambda loader, node: loader.construct_sequence(node)[-1])


def nav_pages(config: Path = ROOT / "mkdocs.yml") -> list[tuple[str, str | None]]:
    """(docs path, nav title or None) for every page in mkdocs.yml's nav, in reading order."""
    out: list[tuple[str, str | None]] = []

    def walk(entries: list) -> None:
        for entry in entries:
            title, value = next(iter(entry.items())) if isinstance(entry, dict) else (None, entry)
            if isinstance(value, list):
                walk(value)
            elif not re.match(r"^[a-z][a-z0-9+.-]*://", str(value)):  # a link to another site is no page
                out.append((str(value), title))

    walk(yaml.load(config.read_text(encoding="utf-8"), Loader=ConfigLoader).get("nav") or [])
    return out


def _nav(site: Site) -> None:
    """Reading order and titles for the ledger; "Part N of M" for the module's parts (as MkDocs' nav has them:
    a page listed without a title is titled by its path here, since MkDocs has read no page at that point)."""
    pages = [(uri, title) for uri, title in nav_pages() if (DOCS / uri).is_file()]
    site.order = [uri for uri, _ in pages]
    site.titles = {uri: title or uri for uri, title in pages}

    def numbered(word: str) -> dict[str, int]:  # "Part 4 · ..." in the nav -> {"module/....md": 4}
        return {uri: int(m[1]) for uri, title in pages if title and (m := re.match(rf"{word} (\d+)\b", title))}

    site.part_numbers, site.labs = numbered("Part"), numbered("Lab")
    site.parts = {uri: (n, len(site.part_numbers)) for uri, n in site.part_numbers.items()}
    check_cited_for(site)


def check_cited_for(site: Site) -> None:
    """The Sources page shows each work's cited_for, which names parts: held to the same rule as a page."""
    try:
        works = facts.registry().works.values()
    except facts.FactError:
        works = []  # the Sources page's sources() macro reports it, naming the fact
    wrong = [
        f"facts/facts.toml: work {work.id!r}, cited_for: {problem.split(': ', 1)[1]}"
        for work in works
        for problem in part_refs.check(work.cited_for, "module/sources.md", site.part_numbers, labs=site.labs)
    ]
    _stop_or_warn(site.strict, "part numbers (sitekit/parts.py):", wrong)


YAML_META = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)  # MkDocs' (mkdocs.utils.meta)
MMD_META, MMD_MORE = re.compile(r"^[ ]{0,3}[A-Za-z0-9_-]+:\s*.*"), re.compile(r"^([ ]{4}|\t)(\s*).*")


def split_meta(text: str) -> tuple[str, str]:
    """(the page's metadata as written, the Markdown MkDocs hands a page's hooks), split as MkDocs splits them:
    a YAML block that is a mapping, else MultiMarkdown-style `key: value` lines up to the first blank one."""
    if m := YAML_META.match(text):
        try:
            if isinstance(yaml.safe_load(m[1]), dict):
                return text[: m.end()], text[m.end() :].lstrip("\n")
        except yaml.YAMLError:
            pass
        return "", text
    lines, n, key = text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 0, False
    while n < len(lines) and (not lines[n].strip() or MMD_META.match(lines[n]) or (key and MMD_MORE.match(lines[n]))):
        n, key = n + 1, key or bool(MMD_META.match(lines[n]))
        if not lines[n - 1].strip():
            break  # a blank line ends the metadata, and is part of it
    return "".join(line + "\n" for line in lines[:n]), "\n".join(lines[n:]).lstrip("\n")


def check_page(site: Site, uri: str, markdown: str, raw: str) -> None:
    """Numbers typed by hand and part references (sitekit/numbers.py, sitekit/parts.py). A notebook's Markdown
    cells are checked against its own code and outputs where its page renders it (sitekit/notebook_page.py)."""
    typed = numbers.check_markdown(markdown, uri, raw, figures.REGISTRY)
    typed += part_refs.check(markdown, uri, site.part_numbers, raw, labs=site.labs)
    _stop_or_warn(site.strict, "numbers typed by hand (sitekit/numbers.py, sitekit/parts.py):", typed)


def page_markdown(site: Site, uri: str, markdown: str, raw: str) -> tuple[str, dict[str, Any]]:
    """One page's Markdown through the pipeline: (rendered Markdown, its receipts' popover data)."""
    try:
        return _page_markdown(site, uri, markdown, raw)
    except RenderError as err:
        err.page = uri
        raise


def _page_markdown(site: Site, uri: str, markdown: str, raw: str) -> tuple[str, dict[str, Any]]:
    check_page(site, uri, markdown, raw)
    ctx = render.Context(
        page=uri,
        cpu=site.cpu,
        cuda=site.cuda,
        cpu_provenance=site.cpu_prov,
        cuda_provenance=site.cuda_prov,
        figures=site.drawn,
        strict=site.strict,
        page_order=site.order,
        page_titles=site.titles,
        sources=site.sources,
        notebooks=site.notebooks,
    )
    try:
        out = render.render(markdown, ctx)
    except claims.ClaimError as err:
        raise RenderError(str(err)) from None
    site.cited[uri] = ctx.cited
    if ctx.cited or uri in site.parts:
        book = site.notebooks.get(uri)
        line = render.page_facts(
            ctx,
            site.parts.get(uri),
            render.reading_minutes(markdown),
            book,
            with_folds=render.reading_minutes(markdown, folds=True),
        )
        out = render.with_page_facts(out, line)
    return out, ctx.receipts


def _read(path: Path) -> str:
    with open(path, encoding="utf-8-sig", errors="strict") as f:  # as MkDocs reads a page
        return f.read()


def render_page(site: Site, uri: str, folder: Path = rendered.DIR) -> Path:
    """Render one page (a docs path: docs/<uri>) and write it where it changed."""
    raw = _read(DOCS / uri)
    site.sources_read[uri] = raw
    head, markdown = split_meta(raw)
    out, receipts = page_markdown(site, uri, markdown, raw)
    site.written.add(uri)
    return rendered.page(uri, head + out, receipts, folder)


def doc_pages() -> list[str]:
    """docs/'s pages, in the order MkDocs reads them (a folder's files, index first, then its folders)."""
    found = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")]
    found = [uri for uri in found if not any(part.startswith(".") for part in uri.split("/"))]  # MkDocs skips those

    def key(uri: str) -> tuple:
        *dirs, name = uri.split("/")
        return (*[(1, d) for d in dirs], (0, name not in ("index.md", "README.md"), name))

    return sorted(found, key=key)


def render_site(strict: bool | None = None, folder: Path = rendered.DIR, last: Site | None = None) -> Site:
    """Render the whole site into `folder`; raise RenderError where a strict build stops.

    With `last` (a dirty preview's previous render, whose inputs other than docs/ are unchanged) everything is
    done as before but drawing the figures and notebooks again and rendering the pages whose Markdown did not
    change: as a dirty `mkdocs serve` redid every build's steps but those of unchanged pages."""
    site = load(strict_mode() if strict is None else strict)
    out: dict[str, bytes | str] = {}
    _files(site, out, last)
    _nav(site)
    for uri, data in out.items():
        rendered.write(uri, data, folder)
    if last is not None:
        site.cited, site.sources_read, site.written = dict(last.cited), dict(last.sources_read), set(last.written)
    site.written |= set(out)
    for uri in doc_pages():
        if last is None or _read(DOCS / uri) != last.sources_read.get(uri):
            render_page(site, uri, folder)
    if site.strict:
        uncited = render.uncited(site.cpu, site.cited)
        if uncited:
            raise RenderError("claims that no page shows:\n  " + "\n  ".join(uncited))
    site.written |= set(rendered.copy_static(DOCS, folder))
    if last is None:
        _prune(folder, site.written)
    return site


def _prune(folder: Path, keep: set[str]) -> None:
    """Remove what the render did not write (a deleted page must not stay a page)."""
    for path in sorted(folder.rglob("*"), reverse=True):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and rel not in keep and not path.name.startswith("."):
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def _key(strict: bool, folder: Path = rendered.DIR) -> str:
    """Everything a render reads (the tree, DOCS, the commit, SITE_* variables) and how it renders (`strict`)."""
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("SITE_") and k != "SITE_ALLOW_STALE")
    docs = preview.tree_stamp(DOCS) if DOCS.parent != ROOT else None  # DOCS elsewhere: a test's copy
    blob = json.dumps([preview.tree_stamp(), docs, preview.head(), env, strict, str(folder)])
    return hashlib.sha256(blob.encode()).hexdigest()


def ensure(strict: bool, session: preview.Preview = preview.SESSION, folder: Path = rendered.DIR) -> bool:
    """Bring build/rendered/ up to date for a build; True when every page was rendered again (False: nothing,
    or in a dirty preview only the pages whose Markdown changed)."""
    if session.dirty and session.site is not None and not session.rebuild_all():
        if set(doc_pages()) != set(session.site.sources_read):  # a page added or removed: the nav, the ledger
            return _full(strict, session, folder)
        session.site = render_site(strict, folder, last=session.site)
        return False
    if not session.dirty and STAMP.is_file() and STAMP.read_text() == _key(strict, folder) and folder.is_dir():
        return False  # rendered by `nox -s render` (or the last build) from these very inputs
    return _full(strict, session, folder)


def _full(strict: bool, session: preview.Preview, folder: Path) -> bool:
    before, key = preview.stamp(), _key(strict, folder)  # taken first: an edit made while rendering is seen next
    STAMP.unlink(missing_ok=True)  # written again only when the render completes
    session.site = render_site(strict, folder)
    session.last = before
    STAMP.parent.mkdir(parents=True, exist_ok=True)
    STAMP.write_text(key)
    return True


def main() -> int:
    logging.basicConfig(format="%(levelname)s - %(message)s")
    strict = strict_mode()
    key = _key(strict)
    if STAMP.is_file() and STAMP.read_text() == key and rendered.DIR.is_dir():
        print(f"{rendered.DIR.relative_to(ROOT)}/ is up to date: nothing changed since the last complete render")
        return 0
    STAMP.unlink(missing_ok=True)
    try:
        site = render_site(strict)
    except RenderError as err:
        if err.page:
            log.error(f"Error reading page '{err.page}':")
        log.error(str(err))
        return 1
    STAMP.parent.mkdir(parents=True, exist_ok=True)
    STAMP.write_text(key)
    print(f"rendered {len(site.written)} files into {rendered.DIR.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
