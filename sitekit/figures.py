"""Figures drawn from recorded results, never by re-running an experiment.

A figure is a function in `figures/<topic>.py`::

    @figure("grad-norm-vs-depth", claims=["plain_stack_gradient_vanishes_by_depth_50"])
    def grad_norm_vs_depth(values: Values) -> Figure:
        rows = values["plain_stack_gradient_vanishes_by_depth_50"]["norms"]
        ...

It receives the recorded values of the claims it names (for one device) and returns a matplotlib
Figure. `draw()` turns it into SVG bytes that are identical from run to run on one machine.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import pkgutil
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from html import escape, unescape
from pathlib import Path
from typing import Any

from sitekit import figure_phone
from sitekit import style as site_style
from sitekit.claims import ROOT, Claim
from sitekit.figure_phone import narrowed, stacked

Values = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class FigureSpec:
    """A registered figure: its name, the claims it draws from, and the drawing function."""

    name: str
    claims: tuple[str, ...]
    draw: Callable[[Values], Any]
    caption: str = ""  # what to see in it, shown under the figure as "Figure n. caption"
    explore: Callable[[Values], dict[str, Any]] | None = None  # data for an explorable: recorded values only
    narrow: Callable[[Values], str] | None = None  # a diagram's phone layout (its panels stacked), if it has one


REGISTRY: dict[str, FigureSpec] = {}


def figure(
    name: str,
    claims: list[str],
    caption: str = "",
    explore: Callable[[Values], dict[str, Any]] | None = None,
    narrow: Callable[[Values], str] | None = None,
) -> Callable[[Callable[[Values], Any]], Callable[[Values], Any]]:
    """Register a figure function under `name`, drawn from `claims` (none: a diagram drawn from code).

    `explore`, where given, picks from the same recorded values the data an explorable on the page
    shows (docs/assets/js/explorables.js); the static drawing stays as its fallback. `narrow`, for a
    diagram, draws it for a phone's column with its panels one under another (a plot gets its phone
    layout from `narrowed`).
    """

    def register(fn: Callable[[Values], Any]) -> Callable[[Values], Any]:
        if name in REGISTRY and REGISTRY[name].draw.__module__ != fn.__module__:
            raise ValueError(f"figure {name!r} is defined twice ({fn.__module__})")
        REGISTRY[name] = FigureSpec(name, tuple(claims), fn, caption, explore, narrow)
        return fn

    return register


def load_all() -> dict[str, FigureSpec]:
    """Import every module in figures/ so that its figures register."""
    import figures as package

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"figures.{info.name}")
    return REGISTRY


def style() -> None:
    """One look for every figure (sitekit/style.py); fixed salt and no dates so the SVG bytes repeat."""
    from sitekit import style as site_style

    site_style.apply()


CACHE = ROOT / "results" / "build" / "figures"
# A figure's SVG is inlined into its page; the page as a whole has 1.5 MB (browser_tests/test_pages.py).
MAX_SVG_BYTES = 400_000


def draw(spec: FigureSpec, claims: dict[str, Claim], narrow: bool = False) -> bytes | None:
    """SVG bytes of one figure, or None where a claim it needs has not passed on this code; `narrow`:
    laid out for a phone's column (`narrowed`), None for a diagram, which scales itself (diagram.py).

    Drawing is cached under results/build/figures by a hash of the figure's module source, the
    values it draws and the matplotlib version, so an unchanged figure is not drawn again.
    """
    if not spec.claims:  # a diagram: drawn from (and checked against) code, not from records
        if not narrow:
            return _render(spec, {})
        return None if spec.narrow is None else spec.narrow({}).encode()
    needed = {}
    for cid in spec.claims:
        c = claims.get(cid)
        if c is None or c.status != "passed" or c.stale:
            return None
        needed[cid] = c.values
    import matplotlib

    module = sys.modules[spec.draw.__module__]
    key = hashlib.sha256(
        "\0".join(
            [
                Path(module.__file__ or "").read_text(),
                json.dumps(needed, sort_keys=True),
                matplotlib.__version__,
                Path(site_style.__file__).read_text(),
                Path(figure_phone.__file__).read_text() if narrow else "",  # the phone layout
            ]
        ).encode()
    ).hexdigest()[:20]
    cached = CACHE / f"{spec.name}-{key}{'.narrow' if narrow else ''}.svg"
    if cached.is_file():
        return cached.read_bytes()
    svg = _render(spec, needed, narrow)
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".tmp")
    tmp.write_bytes(svg)
    tmp.replace(cached)
    return svg


def _render(spec: FigureSpec, needed: Values, narrow: bool = False) -> bytes:
    style()
    import matplotlib.pyplot as plt

    fig = spec.draw(needed)
    if isinstance(fig, str):  # already SVG (a diagram)
        return fig.encode()
    restacked = narrowed(fig) if narrow else False
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    svg = site_style.themed(buffer.getvalue().decode()).encode()
    if restacked:
        svg = stacked(svg)
    if len(svg) > MAX_SVG_BYTES:
        raise ValueError(
            f"figure {spec.name!r} ({spec.draw.__module__}.{spec.draw.__name__}) drew {len(svg):,} bytes of SVG, "
            f"over {MAX_SVG_BYTES:,}: it is inlined into its page, whose weight is budgeted (browser_tests). Draw "
            "fewer elements: one path per shade rather than a mesh of cells, fewer points per curve."
        )
    return svg


# SVG bytes of every figure drawn in this build, by the site path it is published at (the hook fills it),
# so that the `figure` macro can put the drawing itself into the page.
DRAWN: dict[str, bytes] = {}

_PROLOG = re.compile(r"^.*?(?=<svg\b)", re.S)
_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(url\(#|href="#)([^")]+)')
_OWN = re.compile(r"<title>.*?</title>|<desc>.*?</desc>|<style[^>]*>.*?</style>", re.S)  # replaced or page-wide
_SIZE = re.compile(r'\s(width|height)="[^"]*"')


def inline(svg: bytes, prefix: str, title: str, desc: str, layout: str = "") -> str:
    """An SVG ready to sit inside a page: no XML prolog, ids unique on the page, a title and a
    description for screen readers, and sized by CSS (its viewBox keeps it sharp at any zoom)."""
    text = _PROLOG.sub("", svg.decode(), count=1)
    own = re.search(r"<desc>(.*?)</desc>", text, re.S)
    if not desc and own:  # a diagram describes itself
        desc = unescape(own[1])
    text = _OWN.sub("", text)
    text = _ID.sub(lambda m: f'id="{prefix}-{m[1]}"', text)
    text = _REF.sub(lambda m: f"{m[1]}{prefix}-{m[2]}", text)
    head, rest = text.split(">", 1)
    head = _SIZE.sub("", head)
    layout = f" rs-svg-{layout}" if layout else ""  # "wide" or "narrow": site.css shows the one that fits
    head += f' role="img" aria-labelledby="{prefix}-title {prefix}-desc" class="rs-svg{layout}"'
    return (
        f'{head}><title id="{prefix}-title">{escape(title)}</title><desc id="{prefix}-desc">{escape(desc)}</desc>{rest}'
    ).strip()


_NB_DESC = re.compile(r"<dc:description>(.*?)</dc:description>", re.S)


def notebook_svg(svg_text: str) -> str:
    """A notebook's SVG plot made like the site's figures: inline (it follows the colour scheme), its colours in
    CSS, shown at the size it was drawn or the column's width if that is narrower, and the description the plot
    cell gave (savefig metadata "Description") as its accessible name. A plot without one is an error (ValueError):
    screen readers would get "No description has been provided for this image"."""
    svg = _PROLOG.sub("", svg_text, count=1)
    svg = re.sub(r"<style[^>]*>.*?</style>", "", site_style.themed(svg), flags=re.S)  # page-wide rules
    desc = _NB_DESC.search(svg)
    if desc is None:
        raise ValueError(
            "a notebook plot has no description: set InlineBackend.print_figure_kwargs "
            '{"metadata": {"Description": "..."}} in its cell (see snippets/exercise/solution.py)'
        )
    head, rest = svg.split(">", 1)  # its width and height stay: drawn no larger than the plot was made
    return f'{head} role="img" class="rs-svg rs-notebook-plot"><title>{desc[1].strip()}</title>{rest}'


__all__ = [
    "DRAWN",
    "REGISTRY",
    "ROOT",
    "FigureSpec",
    "Values",
    "draw",
    "figure",
    "inline",
    "load_all",
    "notebook_svg",
    "style",
]
