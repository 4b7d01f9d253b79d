"""Block diagrams that cannot drift from the listings they depict.

A diagram declares, for each panel, the module it shows (built from the listing's own class), the
nodes it draws (named as `torch.fx` names them when it traces that module, with the operation each
one is and where it sits) and the arrows between them. `check()` traces the module and compares
operations and data flow with the declaration; `svg()` refuses to draw a diagram that disagrees, so a
listing whose shortcut is removed or whose norm moves stops the build until its picture is redrawn.
The SVG is drawn here, without matplotlib: `currentColor` text and lines, boxes filled with the page's
background, colours from sitekit/style.py.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from html import escape
from typing import Any

from sitekit.style import LOOKS, look

# Operations drawn as circles (or small boxes) that arrows enter from the side.
OPERATORS = {"add": "+", "mul": "×", "cat": "concat", "sub": "1 − T"}
FUNCTIONS = {operator.add: "add", operator.mul: "mul", operator.sub: "sub"}


@dataclass(frozen=True)
class Node:
    """One drawn node: the fx name, what it is (a module class or function name), label, grid cell."""

    name: str
    op: str
    label: str
    col: float
    row: float
    look: str = ""  # a sitekit/style.py look for the outline ("" = currentColor)


@dataclass(frozen=True)
class Panel:
    """One module drawn as a graph; `source` names the listing for error messages."""

    title: str
    source: str
    build: Callable[[], Any]
    nodes: tuple[Node, ...]
    edges: tuple[tuple[str, ...], ...]  # (src, dst) or (src, dst, route) with route "hv", "vh", "arc"
    leaves: tuple[str, ...] = ()  # class names or qualified names traced as one node
    stream: tuple[str, ...] = ()  # nodes whose outgoing arrows are the stream (drawn thick, coloured)
    col: float = 104.0  # column width (a row of many nodes draws them closer)


@dataclass(frozen=True)
class Diagram:
    """A titled set of panels, side by side ("row") or one above the other ("column")."""

    name: str
    title: str
    desc: str
    panels: tuple[Panel, ...]
    direction: str = "row"
    stream_look: str = "residual"
    notes: dict[str, str] = field(default_factory=dict)
    # For a phone's column: the same panels placed otherwise (one under another, a row turned into a
    # column), checked against the listings like the panels above, and the description of that drawing.
    narrow: tuple[Panel, ...] = ()
    narrow_desc: str = ""

    def for_phone(self) -> Diagram | None:
        """The diagram as a phone shows it: its own phone panels, or side-by-side panels stacked; None
        where the desktop drawing is already a single column."""
        if self.narrow:
            return replace(self, panels=self.narrow, direction="column", desc=self.narrow_desc or self.desc)
        if self.direction == "row" and len(self.panels) > 1:
            return replace(self, direction="column")
        return None


def traced(panel: Panel) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """The module's graph as torch.fx sees it: {node name: operation}, {(from, to)}."""
    import torch.fx

    leaves = set(panel.leaves)

    class Tracer(torch.fx.Tracer):
        def is_leaf_module(self, m: Any, qualname: str) -> bool:
            return type(m).__name__ in leaves or qualname in leaves or super().is_leaf_module(m, qualname)

    module = panel.build()
    graph = Tracer().trace(module)
    ops: dict[str, str] = {}
    edges: set[tuple[str, str]] = set()
    for n in graph.nodes:
        if n.op == "placeholder":
            ops[n.name] = "input"
        elif n.op == "output":
            ops[n.name] = "output"
        elif n.op == "call_module":
            ops[n.name] = type(module.get_submodule(str(n.target))).__name__
        elif n.op == "call_function":
            ops[n.name] = FUNCTIONS.get(n.target, getattr(n.target, "__name__", str(n.target)))
        else:
            ops[n.name] = str(n.target)
        edges |= {(a.name, n.name) for a in n.all_input_nodes}
    return ops, edges


def check(diagram: Diagram) -> list[str]:
    """Every way the diagram's declared graph differs from the traced modules (empty: they agree)."""
    problems = []
    phone = [(p, " (phone layout)") for p in diagram.narrow if p not in diagram.panels]
    for panel, layout in [(p, "") for p in diagram.panels] + phone:
        ops, edges = traced(panel)
        drawn = {n.name: n.op for n in panel.nodes}
        arrows = {(e[0], e[1]) for e in panel.edges}
        where = f"diagram {diagram.name!r}, panel {panel.title!r}{layout} (figures/diagrams.py) against {panel.source}"
        for name in sorted(ops.keys() - drawn.keys()):
            problems.append(f"{where}: the listing has {ops[name]} {name!r}, which the diagram does not draw")
        for name in sorted(drawn.keys() - ops.keys()):
            problems.append(f"{where}: the diagram draws {drawn[name]} {name!r}, which the listing does not have")
        for name in sorted(ops.keys() & drawn.keys()):
            if ops[name] != drawn[name]:
                problems.append(f"{where}: {name!r} is {ops[name]} in the listing, {drawn[name]} in the diagram")
        for a, b in sorted(edges - arrows):
            problems.append(f"{where}: the listing feeds {a!r} into {b!r}; the diagram has no such arrow")
        for a, b in sorted(arrows - edges):
            problems.append(f"{where}: the diagram draws {a!r} -> {b!r}; the listing has no such data flow")
    return problems


class DiagramError(ValueError):
    """A diagram disagrees with its listing."""


# Geometry, in SVG user units (CSS px at 1:1).
ROW, MARGIN, TITLE = 46.0, 16.0, 30.0
BOX_W, BOX_H, RADIUS = 94.0, 26.0, 11.0
LABEL_PX = 12.5  # the smallest text a diagram draws: its box labels
READABLE_PX = 11.0  # a diagram shrinks with a narrow column only until its box labels are this size


def _size(n: Node) -> tuple[float, float]:
    if n.op in ("input", "output"):
        return 22.0, 20.0
    if n.op in ("add", "mul"):
        return 2 * RADIUS, 2 * RADIUS
    return min(BOX_W, max(44.0, 18 + 7.0 * len(n.label))), BOX_H


def _anchor(n: Node, xy: tuple[float, float], toward: str) -> tuple[float, float]:
    """Where an arrow leaves or enters node n, on its side facing `toward` (l, r, t, b)."""
    w, h = _size(n)
    x, y = xy
    return {"l": (x - w / 2, y), "r": (x + w / 2, y), "t": (x, y - h / 2), "b": (x, y + h / 2)}[toward]


def _route(a: Node, b: Node, pa: tuple[float, float], pb: tuple[float, float], how: str) -> list[tuple[float, float]]:
    """The arrow's points: a polyline, or for "arc" the four points of one cubic curve."""
    (x1, y1), (x2, y2) = pa, pb
    if how == "arc":  # over the top of a row: DenseNet's every-earlier-layer connections
        s, e = _anchor(a, pa, "t"), _anchor(b, pb, "t")
        lift = 14 + 0.16 * abs(x2 - x1)
        return [s, (s[0], s[1] - lift), (e[0], e[1] - lift), e]
    if how == "side":  # the same, round the left of a column
        s, e = _anchor(a, pa, "l"), _anchor(b, pb, "l")
        lift = 14 + 0.16 * abs(y2 - y1)
        return [s, (s[0] - lift, s[1]), (e[0] - lift, e[1]), e]
    if x1 == x2:
        return [_anchor(a, pa, "b" if y2 > y1 else "t"), _anchor(b, pb, "t" if y2 > y1 else "b")]
    if y1 == y2:
        return [_anchor(a, pa, "r" if x2 > x1 else "l"), _anchor(b, pb, "l" if x2 > x1 else "r")]
    if how == "hv":  # leave sideways, turn, enter from above or below
        s = _anchor(a, pa, "r" if x2 > x1 else "l")
        e = _anchor(b, pb, "t" if y2 > y1 else "b")
        return [s, (e[0], s[1]), e]
    s = _anchor(a, pa, "b" if y2 > y1 else "t")  # "vh": leave downwards, turn, enter from the side
    e = _anchor(b, pb, "l" if x2 > x1 else "r")
    return [s, (s[0], e[1]), e]


def _arrow(points: list[tuple[float, float]], curve: bool, color: str, width: float) -> str:
    """The line, stopped short of its end, and a filled arrowhead there (no SVG markers: they do not
    take the colour of the line in every browser)."""
    (px, py), (ex, ey) = points[-2], points[-1]
    length = max(((ex - px) ** 2 + (ey - py) ** 2) ** 0.5, 1e-9)
    ux, uy = (ex - px) / length, (ey - py) / length
    head = 5.0 + width
    bx, by = ex - ux * head, ey - uy * head
    pts = [*points[:-1], (bx, by)]
    if curve:
        d = f"M{pts[0][0]:.1f},{pts[0][1]:.1f} C" + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts[1:])
    else:
        d = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in pts)
    half = 0.5 * head
    tip = f"{ex:.1f},{ey:.1f} {bx - uy * half:.1f},{by + ux * half:.1f} {bx + uy * half:.1f},{by - ux * half:.1f}"
    return (
        f'<path d="{d}" style="fill: none; stroke: {color}; stroke-width: {width}"/>'
        f'<polygon points="{tip}" style="fill: {color}"/>'
    )


def _node(n: Node, x: float, y: float) -> str:
    stroke = look(n.look).color if n.look else "currentColor"
    bg = "var(--md-default-bg-color, #fff)"
    label = escape(n.label)
    text = 'text-anchor="middle" dominant-baseline="central" style="fill: currentColor"'
    if n.op in ("input", "output"):
        return f'<text x="{x:.1f}" y="{y:.1f}" {text} font-style="italic" font-size="15">{label}</text>'
    if n.op in ("add", "mul"):
        return (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{RADIUS}" style="fill: {bg}; stroke: {stroke}; stroke-width: 1.5"/>'
            f'<text x="{x:.1f}" y="{y:.1f}" {text} font-size="16">{label}</text>'
        )
    w, h = _size(n)
    return (
        f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="5" '
        f'style="fill: {bg}; stroke: {stroke}; stroke-width: {2 if n.look else 1.2}"/>'
        f'<text x="{x:.1f}" y="{y:.1f}" {text} font-size="{LABEL_PX}">{label}</text>'
    )


def _panel(d: Diagram, p: Panel, ox: float, oy: float) -> tuple[str, float, float]:
    """SVG of one panel with its top-left corner at (ox, oy); returns it with its width and height."""
    cols = max(n.col for n in p.nodes) + 1
    rows = max(n.row for n in p.nodes) + 1
    arc_room = 40.0 if any(len(e) > 2 and e[2] == "arc" for e in p.edges) else 0.0
    side_room = 40.0 if any(len(e) > 2 and e[2] == "side" for e in p.edges) else 0.0
    top = oy + TITLE + arc_room
    left = ox + MARGIN + side_room
    at = {n.name: (left + p.col * (n.col + 0.5), top + ROW * (n.row + 0.5)) for n in p.nodes}
    by_name = {n.name: n for n in p.nodes}
    stream = look(d.stream_look).color
    out = [
        f'<text x="{ox + MARGIN:.1f}" y="{oy + 18:.1f}" font-size="14" font-weight="bold" '
        f'style="fill: currentColor">{escape(p.title)}</text>'
    ]
    for edge in p.edges:
        a, b = by_name[edge[0]], by_name[edge[1]]
        how = edge[2] if len(edge) > 2 else ("vh" if b.op in OPERATORS else "hv")
        on_stream = a.name in p.stream and b.name in p.stream
        points = _route(a, b, at[a.name], at[b.name], how)
        curve = how in ("arc", "side")
        out.append(_arrow(points, curve, stream if on_stream else "currentColor", 3 if on_stream else 1.3))
    out += [_node(n, *at[n.name]) for n in p.nodes]
    return "".join(out), 2 * MARGIN + side_room + p.col * cols, TITLE + arc_room + ROW * rows + MARGIN / 2


def svg(d: Diagram) -> str:
    """The diagram as a standalone SVG; raises DiagramError where it disagrees with its listings."""
    problems = check(d)
    if problems:
        raise DiagramError(
            "a diagram no longer matches its listing; redraw it in figures/diagrams.py:\n  " + "\n  ".join(problems)
        )
    parts, x, y, width, height = [], 0.0, 0.0, 0.0, 0.0
    for p in d.panels:
        body, w, h = _panel(d, p, x, y)
        parts.append(body)
        if d.direction == "row":
            x, width, height = x + w, x + w, max(height, h)
        else:
            y, width, height = y + h, max(width, w), y + h
    # On a phone the diagram shrinks with the column down to READABLE_PX labels, then scrolls sideways.
    smallest = width * READABLE_PX / LABEL_PX
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" height="{height:.0f}" font-family="sans-serif" '
        f'style="max-width: {width:.0f}px; min-width: {smallest:.0f}px"'
        + (' data-wide=""' if width > 520 else "")
        + ">"
        f"<title>{escape(d.title)}</title><desc>{escape(d.desc)}</desc>{''.join(parts)}</svg>\n"
    )


__all__ = ["LOOKS", "Diagram", "DiagramError", "Node", "Panel", "check", "svg", "traced"]
