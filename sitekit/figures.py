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
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitekit.claims import ROOT, Claim

Values = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class FigureSpec:
    """A registered figure: its name, the claims it draws from, and the drawing function."""

    name: str
    claims: tuple[str, ...]
    draw: Callable[[Values], Any]


REGISTRY: dict[str, FigureSpec] = {}


def figure(name: str, claims: list[str]) -> Callable[[Callable[[Values], Any]], Callable[[Values], Any]]:
    """Register a figure function under `name`, drawn from `claims`."""

    def register(fn: Callable[[Values], Any]) -> Callable[[Values], Any]:
        if name in REGISTRY and REGISTRY[name].draw.__module__ != fn.__module__:
            raise ValueError(f"figure {name!r} is defined twice ({fn.__module__})")
        REGISTRY[name] = FigureSpec(name, tuple(claims), fn)
        return fn

    return register


def load_all() -> dict[str, FigureSpec]:
    """Import every module in figures/ so that its figures register."""
    import figures as package

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"figures.{info.name}")
    return REGISTRY


def style() -> None:
    """One look for every figure; fixed salt and no dates so the SVG bytes repeat."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams.update(
        {
            "svg.hashsalt": "residual-stream",
            "svg.fonttype": "none",
            "font.family": "sans-serif",
            "font.size": 11,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "figure.facecolor": "white",
            "figure.dpi": 100,
            "lines.linewidth": 2,
        }
    )


CACHE = ROOT / "results" / "build" / "figures"


def draw(spec: FigureSpec, claims: dict[str, Claim]) -> bytes | None:
    """SVG bytes of one figure, or None where a claim it needs has not passed on this code.

    Drawing is cached under results/build/figures by a hash of the figure's module source, the
    values it draws and the matplotlib version, so an unchanged figure is not drawn again.
    """
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
            [Path(module.__file__ or "").read_text(), json.dumps(needed, sort_keys=True), matplotlib.__version__]
        ).encode()
    ).hexdigest()[:20]
    cached = CACHE / f"{spec.name}-{key}.svg"
    if cached.is_file():
        return cached.read_bytes()
    svg = _render(spec, needed)
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".tmp")
    tmp.write_bytes(svg)
    tmp.replace(cached)
    return svg


def _render(spec: FigureSpec, needed: Values) -> bytes:
    style()
    import matplotlib.pyplot as plt

    fig = spec.draw(needed)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return buffer.getvalue()


__all__ = ["REGISTRY", "ROOT", "FigureSpec", "Values", "draw", "figure", "load_all", "style"]
