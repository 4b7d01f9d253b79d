"""What a live preview keeps between rebuilds, so that a prose edit rebuilds one page, not the site.

`mkdocs serve --dirty` (nox -s serve) rebuilds only the pages whose Markdown changed. That is right for a
prose edit and wrong for anything a page is built from elsewhere (a snippet, a record, a fact, a figure's
code, the pipeline itself): then every page is rebuilt, as a full build would. `Preview` tells the two apart
by a stamp of those inputs taken at each build, and keeps the last full render (sitekit/site_render.py: the
figures, notebooks, nav and records every page is rendered against), so that a prose edit re-renders that
page alone into build/rendered/. `tree_stamp` and `head` tell a build whether `nox -s render` has just rendered
the tree as it is (then MkDocs renders nothing again). Nothing here imports MkDocs.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitekit.claims import OUTPUTS, ROOT

# What a page is built from besides its own Markdown (docs/ itself is MkDocs' to watch page by page).
INPUTS = ("snippets", "tests", "sitekit", "figures", "facts", "overrides", "results", "mkdocs.yml", "requirements")
SKIP = {"__pycache__", "build", ".pytest_cache"}  # results/build is what a build writes, not what it reads


def _walk(todo: list[Path], skip: set[str]) -> tuple[int, int, int]:
    """(files, newest mtime in ns, total size) of every file under the paths in `todo`, folders named in
    `skip` left out: any edit, addition or removal changes it."""
    count = newest = size = 0
    while todo:
        path = todo.pop()
        try:
            if path.is_dir():
                todo += [p for p in path.iterdir() if p.name not in skip]
                continue
            stat = path.stat()
        except FileNotFoundError:  # removed while walking: the next stamp differs anyway
            continue
        count, newest, size = count + 1, max(newest, stat.st_mtime_ns), size + stat.st_size
    return count, newest, size


def stamp(root: Path = ROOT) -> tuple[int, int, int]:
    """The walk over INPUTS: what a page is built from besides its own Markdown, with the files tests write that
    a page shows (claims.OUTPUTS: the executed worked solution, under results/build/, which the walk skips)."""
    written = [root / path for paths in OUTPUTS.values() for path in paths]
    return _walk([root / name for name in INPUTS] + written, SKIP)


SKIP_KEY = {
    ".git",
    ".nox",
    ".venv",
    "node_modules",
    "site",
    "screenshots",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
}


def tree_stamp(root: Path = ROOT) -> tuple[int, int, int]:
    """The walk over everything under `root` but what builds and tools write (build/, site/, environments): what
    `nox -s render` reads (pages, snippets, records, call logs, facts, templates, its own code), for a build
    that follows it to tell whether anything changed since (sitekit/site_render.py)."""
    return _walk([p for p in root.iterdir() if p.name not in SKIP_KEY and p.name != "build"], SKIP_KEY)


def head() -> str:
    """The commit checked out: the What changed page is made from the history up to it."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip()


@dataclass
class Preview:
    """One `mkdocs serve` session's memory (module state survives the hook's reload on every rebuild)."""

    dirty: bool = False  # serving with --dirty: pages whose Markdown did not change keep their last HTML
    last: tuple[int, int, int] | None = None  # stamp() at the last build
    site: Any = None  # the last full render's state (sitekit.site_render.Site): a one-page render reuses it

    def rebuild_all(self) -> bool:
        """Whether this build must rebuild every page: always, except in a dirty preview whose other inputs
        did not change since its last build (then only the edited pages are rebuilt)."""
        now = stamp()
        unchanged = self.dirty and self.last == now and self.site is not None
        self.last = now
        return not unchanged


SESSION = Preview()  # the hook sets `dirty` when `mkdocs serve` starts
