"""The only MkDocs-specific code: MkDocs builds the site that sitekit/site_render.py rendered into build/rendered/.

Before each build the hook makes sure that folder is up to date (site_render.ensure: a full render, none when
`nox -s render` has just rendered the same inputs, or in `nox -s serve` only the edited pages) and points
MkDocs' docs_dir at it; after MkDocs has turned a page into HTML, the pipeline's HTML stage (html_stage.py,
csp.py, lightpage.py) finishes it. Moving to another generator means rewriting these few functions, not the
pipeline. Set SITE_ALLOW_STALE=1 (the `serve` session does) to show problems on the page instead of failing.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files

from sitekit import csp, html_stage, mathrender, preview, rendered, site_render

_state: dict[str, Any] = {}
log = logging.getLogger("mkdocs.hooks.sitekit")


def on_config(config: Any) -> Any:
    """MkDocs reads the rendered site, not docs/ (which `watch` in mkdocs.yml keeps under the preview's eye)."""
    _state["strict"] = site_render.strict_mode()
    rendered.DIR.mkdir(parents=True, exist_ok=True)
    config.docs_dir = str(rendered.DIR)
    return config


def on_startup(command: str, dirty: bool) -> None:
    """`mkdocs serve --dirty` (nox -s serve): later rebuilds redo only what an edit touched (sitekit/preview.py)."""
    preview.SESSION.dirty = command == "serve" and dirty


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    """The preview watches docs/ and the other inputs (mkdocs.yml's `watch`), not build/rendered/: the render
    writes there during a build, and a watched write would start another build."""
    server.unwatch(config.docs_dir)
    return server


def on_pre_build(config: Any) -> None:
    try:
        _state["rebuild_all"] = site_render.ensure(_state["strict"]) and preview.SESSION.dirty
    except site_render.RenderError as err:
        if err.page:
            log.error(f"Error reading page '{err.page}':")  # as MkDocs said when pages were rendered in its events
        raise PluginError(str(err)) from None


@event_priority(-100)  # after the plugins' own on_files
def on_files(files: Files, config: Any) -> Files:
    if _state.get("rebuild_all"):  # a dirty preview whose snippets, records or pipeline changed: every page,
        for file in files.documentation_pages():  # as a full build would
            file.is_modified = lambda: True  # type: ignore[method-assign]
    return files


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    def site_file(uri: str) -> bytes | None:
        file = files.get_file_from_path(uri)
        return file.content_bytes if file else None

    return html_stage.page_content(html, page.file.src_uri, page.url, site_file)


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
    return csp.protect(output, f"docs/{page.file.src_uri}")  # last: the policy hashes the final scripts


def on_post_template(output: str, template_name: str, config: Any) -> str:
    """The theme's own pages (404.html) carry the same policy as every other page."""
    return csp.protect(output, template_name) if template_name.endswith(".html") and "<head" in output else output


def on_post_build(config: Any) -> None:
    _katex.close()
