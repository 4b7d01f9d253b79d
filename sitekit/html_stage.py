"""The pipeline's HTML stage, after a generator has turned a rendered page into HTML: listing titles become
links to the published source, images get their sizes and code blocks their focus, formulas are typeset by
KaTeX (the page's Content-Security-Policy, sitekit/csp.py, comes last). mkdocs_hook.py calls it during
`mkdocs build`; scripts/zensical_build.py calls it on Zensical's pages. No MkDocs here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sitekit import lightpage, mathrender, render, typesetting

# A listing's title is "What the code is · snippets/<topic>/<name>.py" (or the bare path): the path
# becomes a link to the published source, and the first listing of a file gets an id receipts link to.
LISTING_TITLE = re.compile(
    r'<div class="(?P<cls>[^"]*highlight[^"]*)"><span class="filename">(?P<label>(?:[^<]*? · )?)'
    r"(?P<path>snippets/[\w/.-]+\.py)</span>"
)


def listing_links(html: str, page_uri: str) -> str:
    seen: set[str] = set()
    here = render.Context(page=page_uri, cpu={})

    def link(m: re.Match[str]) -> str:
        path = m["path"]
        ident = "" if path in seen else f' id="{render.listing_anchor(path)}"'
        seen.add(path)
        href = here.url(f"{render.SOURCE_DIR}/{path}")
        return (
            f'<div class="{m["cls"]} listing"{ident}><span class="filename">{m["label"]}'
            f'<a href="{href}" title="The whole file">{path}</a></span>'
        )

    return LISTING_TITLE.sub(link, html)


def content(html: str, page_uri: str, page_url: str, site_file: Callable[[str], bytes | None]) -> str:
    """A Markdown page's article HTML: sized lazy images, focusable code, linked listing titles, powers
    of ten set with <sup>."""
    html = listing_links(lightpage.focusable_code(lightpage.lazy_images(html, page_url, site_file)), page_uri)
    return typesetting.powers_html(html)


def finish(output: str, katex: mathrender.KaTeX) -> tuple[str, list[str]]:
    """A whole page: formulas typeset and math fonts preloaded. Returns the page and the formulas KaTeX
    rejected (the caller decides whether to fail); the caller adds the policy last (`csp.protect`), once
    every script is final, since the policy hashes them."""
    output, problems = mathrender.typeset(output, katex)
    return mathrender.preload_fonts(output), problems


# What sitekit/rendered.page appends to a page, which the generator passes through as raw HTML (footnotes may
# follow it).
RECEIPT_DATA = re.compile(r'\n?(<script type="application/json" id="receipt-data">.*?</script>)\n?', re.S)


def page_content(html: str, page_uri: str, page_url: str, site_file: Callable[[str], bytes | None]) -> str:
    """`content` for a page from build/rendered/: its receipts' data block stays out of the stage and closes
    the article, as it always has."""
    found = RECEIPT_DATA.search(html)
    if found is None:
        return content(html, page_uri, page_url, site_file)
    html = html[: found.start()] + html[found.end() :]  # "</p>\n<script>…</script>\n\n<div…" -> "</p>\n<div…"
    return content(html, page_uri, page_url, site_file) + f"\n{found[1]}\n"
