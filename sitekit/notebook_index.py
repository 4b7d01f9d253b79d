"""The `notebook_index` macro: the Run it yourself page's table of every page's notebook (sitekit/notebooks.py),
in reading order, with what each runs, how long it took where the site was built, and how often the build
runs it again and compares what it prints with the page (sitekit/notebook_check.py)."""

from __future__ import annotations

import os
import re

from sitekit import notebooks, rotations
from sitekit.page_context import Context, macro

# Open in Colab. The Pages workflow (.github/workflows/ci.yml, job `notebooks`) pushes the built notebooks,
# site/notebooks/*.ipynb, to the root of this branch of the repository the build names (SITE_REPOSITORY, as
# mkdocs.yml's extra.repository); Colab opens a notebook from there. A build that does not know the repository
# offers no Colab link (the plain download stays). Nothing is fetched when a page is viewed.
NOTEBOOKS_BRANCH = "notebooks"
GITHUB = re.compile(r"https://github\.com/(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?")


def colab_url(slug: str, repository: str | None = None) -> str | None:
    """The Colab address of notebook `slug` (notebooks/<slug>.ipynb on the site), or None where the build knows
    no GitHub repository. `repository` defaults to SITE_REPOSITORY."""
    m = GITHUB.fullmatch(os.environ.get("SITE_REPOSITORY", "") if repository is None else repository)
    if m is None:
        return None
    return f"https://colab.research.google.com/github/{m['owner']}/{m['name']}/blob/{NOTEBOOKS_BRANCH}/{slug}.ipynb"


def _order(ctx: Context, pages: list[str]) -> list[str]:
    rank = {page: i for i, page in enumerate(ctx.page_order)}
    return sorted(pages, key=lambda page: (rank.get(page, len(rank)), page))


def index_markdown(ctx: Context, books: dict[str, notebooks.Notebook], rotation: int) -> str:
    """The table (a row per notebook), then one line of totals; `rotation`: builds per experiment turn."""
    if not books:
        return "*No page has logged measurements yet: `nox -s tests` logs them, and the next build lists them.*"
    rows = [
        "| Page, and its notebook | Measurements | Long runs among them | Time where the site was built |",
        "| --- | ---: | ---: | --- |",
    ]
    for page in _order(ctx, list(books)):
        book = books[page]
        long = sum(1 for c in book.calls if c.get("tolerance") is not None)
        base = ctx.link(f"{notebooks.FOLDER}/{book.slug}")
        title = ctx.page_titles.get(page, book.title).replace("|", "\\|")
        rows.append(
            f"| [{title}]({ctx.link(page)})<br>[notebook]({base}.ipynb) · [script]({base}.py)"
            f"{f' · [Open in Colab]({colab})' if (colab := colab_url(book.slug)) else ''} | {len(book.calls)} "
            f"| {long or '–'} | {notebooks.duration(book.seconds)} |"
        )
    calls = sum(len(b.calls) for b in books.values())
    experiments = sum(1 for b in books.values() for c in b.calls if c.get("tolerance") is not None)
    seconds = sum(b.seconds for b in books.values())
    needs = sorted({n for b in books.values() for n in b.needs})
    turns = (
        f"; the {experiments} long experiments take turns, each run again within {rotation} builds on the kind of "
        "processor that recorded it (see below)"
        if experiments
        else ""
    )
    totals = (
        f"{len(books)} notebooks, {calls} measurements, {notebooks.duration(seconds)} in all where the site was "
        f"built. Every build runs each notebook's short measurements again{turns}. Together the notebooks need "
        f"`pip install {' '.join(needs)}`."
    )
    return "\n".join([*rows, "", totals])


@macro
def notebook_index(ctx: Context) -> str:
    """Every page's notebook, as this build planned them from its call log (the site's render plans them once)."""
    return index_markdown(ctx, ctx.notebooks, rotations.NOTEBOOKS)
