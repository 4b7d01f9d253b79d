"""Every internal link and #anchor of the built site resolves (a crawler over the HTML files, no browser)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlparse

from bs4 import BeautifulSoup

from browser_tests.harness import SITE, site_pages, soup

ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src", "source": "src", "iframe": "src"}
SKIP_SCHEMES = {"mailto", "data", "javascript", "tel", "blob"}


def parsed(file: Path) -> Any:
    """A built HTML file as the suite's shared parse (harness.soup: once per process) has it."""
    return soup(file.relative_to(SITE).as_posix())


def _site_url() -> str:
    """The site_url the build used (the sitemap's shortest entry): absolute links to it are internal."""
    text = (SITE / "sitemap.xml").read_text(encoding="utf-8")
    locs = [part.split("</loc>")[0].strip() for part in text.split("<loc>")[1:]]
    return min(locs, key=len)


@functools.cache
def _ids(file: Path) -> frozenset[str]:
    soup = parsed(file)
    ids = {el["id"] for el in soup.find_all(id=True)}
    ids |= {el["name"] for el in soup.find_all("a", attrs={"name": True})}
    return frozenset(ids)


def _target(url: str, page_url: str, base: str) -> Path | None:
    """The file an internal URL names, or None when it points off the site."""
    absolute = urljoin(page_url, url)
    if not absolute.startswith(base):
        return None
    rel = unquote(urlparse(absolute).path).removeprefix(urlparse(base).path)
    target = SITE / rel
    return target / "index.html" if rel.endswith("/") or rel == "" or target.is_dir() else target


def broken_links() -> list[str]:
    base = _site_url()
    problems = []
    for file in sorted(SITE.rglob("*.html")):
        rel = file.relative_to(SITE).as_posix()
        page_url = urljoin(base, rel.removesuffix("index.html"))
        soup = parsed(file)
        for tag, attr in ATTRS.items():
            for el in soup.find_all(tag, attrs={attr: True}):
                url = el[attr].strip()
                if not url or urlparse(url).scheme in SKIP_SCHEMES:
                    continue
                target = _target(url, page_url, base)
                if target is None:
                    continue  # another site: not ours to check offline
                if not target.is_file():
                    problems.append(f"{rel}: <{tag} {attr}={url!r}> -> {target.relative_to(SITE)} does not exist")
                    continue
                fragment = unquote(urlparse(url).fragment)
                if fragment and target.suffix == ".html" and fragment not in _ids(target):
                    where = target.relative_to(SITE)
                    problems.append(f"{rel}: <{tag} {attr}={url!r}> -> no id {fragment!r} in {where}")
    return problems


def test_every_internal_link_and_anchor_resolves() -> None:
    site_pages()  # a clear error when there is no build
    problems = broken_links()
    assert not problems, f"{len(problems)} broken internal link(s):\n  " + "\n  ".join(problems[:60])


def test_every_nav_page_is_in_the_sitemap() -> None:
    pages = set(site_pages())
    soup = BeautifulSoup((SITE / "index.html").read_text(encoding="utf-8"), "html.parser")
    nav = {
        a["href"].removeprefix("./").replace(".", "", 1) if a["href"] == "." else a["href"].removeprefix("./")
        for a in soup.select("nav.md-nav--primary a.md-nav__link[href]")
        if not a["href"].startswith("#")
    }
    assert nav <= pages, f"nav entries missing from the sitemap: {sorted(nav - pages)}"
