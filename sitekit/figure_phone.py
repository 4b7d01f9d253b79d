"""A figure laid out again for a phone's column: panels stacked, legends and tick labels that fit.

`figures.draw()` calls `narrowed()` on the second drawing of every plot; `panel_words()` rewrites a caption
for the stacked layout. Nothing here knows about claims or pages.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

# ---- the phone layout --------------------------------------------------------------------------------
# A phone's column is about 358 px wide at 390 px. A plot drawn MAX_WIDTH wide (490 pt) would show its
# 8.5 pt tick labels at 6 px there, or scroll sideways; so every plot is drawn a second time NARROW_WIDTH
# wide (230 pt: the same labels near 13 px, as on a desktop), with side-by-side panels stacked, and the page
# shows the one that fits (site.css; browser_tests/test_explorables.py measures what a phone shows).
NARROW_WIDTH = 3.2  # inches
PANEL_HEIGHT = 2.4  # inches, each stacked panel


def stacked(svg: bytes) -> bytes:
    """Mark a drawing whose panels, side by side on a desktop, stand one under another: its page then says
    "top" and "bottom" where the desktop caption says "left" and "right" (`panel_words`)."""
    return svg.replace(b"<svg ", b'<svg data-stacked="" ', 1)


def is_stacked(svg: bytes) -> bool:
    head = svg[: svg.find(b">", svg.find(b"<svg")) + 1]
    return b"data-stacked" in head


_PANEL_WORD = re.compile(r"\b(Left|left|Right|right)\b(?=[,:;)])|(?<=\()(left|right)\b")
_STACKED_WORD = {"Left": "Top", "left": "top", "Right": "Bottom", "right": "bottom"}


def panel_words(text: str, html: bool = False) -> str:
    """A caption or description of side-by-side panels, for the same panels stacked: "Left:", "(left)",
    "right," become "Top:", "(top)", "bottom,". Other senses of the words are left alone (the right
    character, to the left of a curve): only a word followed by , : ; ) or after ( is a panel's name.
    With html, the caption shows each word on the screen its layout is drawn for (site.css)."""

    def one(m: re.Match[str]) -> str:
        word = m[0]
        if not html:
            return _STACKED_WORD[word]
        return f'<span class="rs-at-wide">{word}</span><span class="rs-at-narrow">{_STACKED_WORD[word]}</span>'

    return _PANEL_WORD.sub(one, text)


def narrowed(fig: Any) -> bool:
    """Lay a drawn figure out again for a phone's column, in place; True where it stacked its panels.

    Panels side by side (one row of a grid) go one under another, the figure becomes NARROW_WIDTH wide,
    a figure legend takes as many columns as fit, a legend that now covers data moves to where matplotlib
    finds the least overlap or else under its panel, plain titles wrap, and tick labels that would now
    collide show every other one. Positions in data or axes coordinates are left alone.
    """
    from matplotlib.gridspec import GridSpec

    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    _, height = fig.get_size_inches()
    grid = panels[0].get_subplotspec().get_gridspec() if panels else None
    restack = grid is not None and len(panels) > 1 and grid.nrows == 1
    if restack:
        column = GridSpec(len(panels), 1, figure=fig)
        for i, ax in enumerate(panels):
            ax.set_subplotspec(column[i])
            ax.tick_params(labelleft=True)  # a shared y axis hid the right panel's labels; now it has its own row
        height = PANEL_HEIGHT * len(panels)
    elif grid is None or grid.nrows * grid.ncols == 1:
        height = max(PANEL_HEIGHT, 0.72 * height)  # as tall for its width as the desktop drawing, near enough
    else:  # a grid of its own (images, heatmaps): keep its shape, scaled to the width
        width, _ = fig.get_size_inches()
        height = height * NARROW_WIDTH / width
    fig.set_size_inches(NARROW_WIDTH, height)
    renderer = fig.canvas.get_renderer()
    for ax in panels:
        for text in (ax.title, ax.xaxis.label):
            if "$" not in text.get_text():
                text.set_wrap(True)
            elif text.get_window_extent(renderer).width > 0.9 * fig.bbox.width:
                _break_between_math(text)  # matplotlib would wrap mathtext as plain text
    foot: list[tuple[list[Any], list[str], float, bool]] = []  # legends to draw under the panels
    for old in list(fig.legends):
        foot.append(_legend_parts(old))
        old.remove()
    fig.tight_layout()
    height += sum(_uncrowd_ticks(ax, renderer) for ax in panels)  # upright names add their height
    fig.set_size_inches(NARROW_WIDTH, height)
    fig.tight_layout()
    for ax in panels:
        legend = ax.get_legend()
        if legend is None or not _covers(ax, legend, renderer):
            continue
        legend.set_loc("best")
        fig.canvas.draw()
        if not _covers(ax, legend, renderer):
            continue
        if len(panels) == 1:  # under the figure, where it may take the figure's whole width
            foot.append(_legend_parts(legend))
            legend.remove()
        else:  # under its own panel
            legend.set_loc("upper center")
            legend.set_bbox_to_anchor((0.5, 0), transform=_below(ax, renderer))
            _fit_width(legend, 0.95 * ax.bbox.width, renderer)
            height += legend.get_window_extent(renderer).height / fig.dpi + 0.1
    room = 0.0
    if foot:  # one legend for all of them, in as many columns as fit
        handles = [h for parts in foot for h in parts[0]]
        labels = [label for parts in foot for label in parts[1]]
        _, _, size, frame = foot[0]
        for ncol in range(len(labels), 0, -1):
            new = fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=size, frameon=frame)
            if ncol == 1 or new.get_window_extent(renderer).width <= 0.98 * fig.bbox.width:
                break
            new.remove()
        _fit_width(new, 0.98 * fig.bbox.width, renderer)
        room = new.get_window_extent(renderer).height / fig.dpi + 0.05
    fig.set_size_inches(NARROW_WIDTH, height + room)  # the panels keep their height; legends add theirs
    fig.tight_layout(rect=(0, room / (height + room), 1, 1))
    return restack


def _break_between_math(text: Any) -> None:
    """Put a long title with formulas on two lines, after the semicolon (or else the comma) nearest its
    middle that is outside every $...$."""
    words = text.get_text()
    marks = ";" if ";" in words else ","
    outside = [i for i, c in enumerate(words) if c in marks and words[:i].count("$") % 2 == 0]
    if outside:
        at = min(outside, key=lambda i: abs(i - len(words) / 2))
        text.set_text(words[: at + 1] + "\n" + words[at + 1 :].lstrip())


def _legend_parts(legend: Any) -> tuple[list[Any], list[str], float, bool]:
    texts = legend.get_texts()
    return list(legend.legend_handles), [t.get_text() for t in texts], texts[0].get_fontsize(), legend.get_frame_on()


def _fit_width(legend: Any, width: float, renderer: Any) -> None:
    """Wrap a legend's labels until the legend is at most `width` pixels wide: a legend under a panel
    wider than the panel would push the panel's margins apart as the layout makes room for it, and
    one wider than the figure would widen the drawing."""
    import textwrap

    texts = [t for t in legend.get_texts() if t.get_text()]
    longest = max((len(t.get_text()) for t in texts), default=0)
    while longest > 12 and legend.get_window_extent(renderer).width > width:
        longest -= 2
        for t in texts:
            t.set_text(textwrap.fill(t.get_text().replace("\n", " "), longest))


def _covers(ax: Any, legend: Any, renderer: Any) -> bool:
    """Whether a legend's box holds a plotted point, a bar or a piece of text of its axes."""
    import numpy as np

    box = legend.get_window_extent(renderer)
    points = [line.get_transform().transform(np.asarray(line.get_xydata(), float)) for line in ax.get_lines()]
    points += [c.get_offset_transform().transform(c.get_offsets()) for c in ax.collections if len(c.get_offsets())]
    for xy in points:
        xy = xy[np.isfinite(xy).all(axis=1)]
        inside = (xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0) & (xy[:, 1] <= box.y1)
        if inside.any():
            return True
    shapes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text()]
    shapes += [p.get_window_extent(renderer) for p in ax.patches]  # bars
    return any(box.overlaps(shape) for shape in shapes)


def _below(ax: Any, renderer: Any) -> Any:
    """A transform whose (0.5, 0) is just under everything the axes draws (tick labels, x label), in a
    distance that stays put when the layout resizes the axes."""
    from matplotlib.transforms import ScaledTranslation

    legend = ax.get_legend()
    legend.set_visible(False)
    drop = (ax.get_window_extent(renderer).y0 - ax.get_tightbbox(renderer).y0) / ax.figure.dpi + 0.05
    legend.set_visible(True)
    return ax.transAxes + ScaledTranslation(0, -drop, ax.figure.dpi_scale_trans)


def _uncrowd_ticks(ax: Any, renderer: Any) -> float:
    """Where neighbouring x tick labels would touch: label every other tick if they are numbers (the
    axis still reads), or turn names upright, since each names its own bar or point. Returns the
    inches of height the upright names add."""
    from matplotlib.ticker import FuncFormatter

    labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
    boxes = [t.get_window_extent(renderer) for t in labels]
    if not any(a.x1 + 2 > b.x0 for a, b in itertools.pairwise(boxes)):
        return 0.0
    numeric = set("0123456789.,-+^{}$×eE \N{MINUS SIGN}")  # 0.025, 10⁻³ as mathtext, 2e-3
    if not all(set(t.get_text().replace("\\mathdefault", "")) <= numeric for t in labels):
        before = max(b.height for b in boxes)
        for t in labels:
            t.set_rotation(90)
            t.set_horizontalalignment("center")
        return max(0.0, max(t.get_window_extent(renderer).height for t in labels) - before) / ax.figure.dpi
    label = ax.xaxis.get_major_formatter()
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, pos: label(x, pos) if (pos or 0) % 2 == 0 else ""))
    return 0.0
