"""Pictures that cannot drift: diagrams against the traced listings, one colour map, numbered figures.

Each counterfactual is a modified copy of a listing's module made here, never an edit of the snippet.
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET

import pytest
import torch
from torch import nn

from figures import diagrams
from sitekit import diagram, figure_phone, figures, render, style
from sitekit.claims import ROOT
from snippets.encyclopedia.transformer_block import PreNormBlock
from snippets.residual_block.identity_shortcut import ResidualBlock


def panel(d: diagram.Diagram, title: str) -> diagram.Panel:
    return next(p for p in d.panels if p.title == title)


@pytest.mark.parametrize("d", diagrams.DIAGRAMS, ids=lambda d: d.name)
def test_every_diagram_matches_the_module_it_depicts(d):
    assert diagram.check(d) == []


def test_removing_the_shortcut_from_the_listing_breaks_the_residual_block_diagram():
    class NoShortcut(ResidualBlock):
        """The listing's block with its shortcut taken out of forward()."""

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.branch(x)

    d = diagrams.RESIDUAL_BLOCK
    original = panel(d, "identity shortcut")
    broken = dataclasses.replace(d, panels=(dataclasses.replace(original, build=lambda: NoShortcut(8)),))
    problems = diagram.check(broken)
    assert any("draws Identity 'shortcut', which the listing does not have" in p for p in problems), problems
    assert any("draws add 'add'" in p for p in problems), problems
    assert all("snippets/residual_block/identity_shortcut.py" in p for p in problems)
    with pytest.raises(diagram.DiagramError, match=r"redraw it in figures/diagrams\.py"):
        diagram.svg(broken)


def test_moving_the_norm_onto_the_stream_breaks_the_prenorm_diagram():
    class NormMoved(PreNormBlock):
        """The listing's pre-norm block with its first norm moved after the addition (post-norm order)."""

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.norm1(x + self.attn(x))  # (B, T, d)
            x = x + self.mlp(self.norm2(x))  # (B, T, d)
            return x

    d = diagrams.TRANSFORMER
    broken = dataclasses.replace(d, panels=(dataclasses.replace(panel(d, "pre-norm"), build=lambda: NormMoved(8, 2)),))
    problems = diagram.check(broken)
    assert any("feeds 'add' into 'norm1'" in p for p in problems), problems
    assert any("draws 'x' -> 'norm1'" in p for p in problems), problems


def test_a_swapped_operation_is_named_in_the_message():
    class GeluBranch(ResidualBlock):
        def __init__(self, d: int) -> None:
            super().__init__(d)
            self.branch[1] = nn.GELU()

    d = diagrams.RESIDUAL_BLOCK
    broken = dataclasses.replace(
        d, panels=(dataclasses.replace(panel(d, "identity shortcut"), build=lambda: GeluBranch(8)),)
    )
    assert diagram.check(broken) == [
        "diagram 'residual-block-diagram', panel 'identity shortcut' (figures/diagrams.py) against "
        "snippets/residual_block/identity_shortcut.py: 'branch_1' is GELU in the listing, ReLU in the diagram"
    ]


@pytest.mark.parametrize("d", diagrams.DIAGRAMS, ids=lambda d: d.name)
def test_diagrams_are_accessible_theme_aware_and_self_contained(d):
    drawn = diagram.svg(d)
    assert drawn == diagram.svg(d)  # byte-identical between two draws
    page = figures.inline(drawn.encode(), "fig-x", "Figure 1", "")
    root = ET.fromstring(page)
    assert root.get("role") == "img" and root.get("viewBox")
    assert root.find("{http://www.w3.org/2000/svg}title").text == "Figure 1"
    assert root.find("{http://www.w3.org/2000/svg}desc").text == d.desc
    assert "currentColor" in page and "var(--md-default-bg-color" in page
    assert not re.search(r"(href|src)=\"(https?:)?//", page)
    colours = {c.upper() for c in re.findall(r"#[0-9A-Fa-f]{6}\b", page)} - {"#FFFFFF"}  # bg fallback
    assert colours <= {look.color.upper() for look in style.LOOKS.values()}


def test_colours_are_defined_once_in_sitekit_style():
    """No figure or diagram module names a colour of its own: each takes a look from sitekit/style.py."""
    literal = re.compile(r"#[0-9A-Fa-f]{3,8}\b|\bcolor\s*=\s*['\"]|['\"](red|blue|green|black|grey|gray)['\"]")
    for path in sorted((ROOT / "figures").glob("*.py")):
        found = [(i, line) for i, line in enumerate(path.read_text().splitlines(), 1) if literal.search(line)]
        assert not found, f"{path.name} names colours itself: {found}"


def test_the_looks_are_distinct():
    colours = [look.color.upper() for name, look in style.LOOKS.items() if name != "neutral"]
    assert len(colours) == len(set(colours))
    cues = [(look.line, look.marker) for look in style.LOOKS.values()]
    assert len(cues) == len(set(cues))  # a second cue besides colour
    with pytest.raises(KeyError, match="add it to LOOKS"):
        style.look("magenta")


def test_a_plot_is_themed_transparent_and_typeset():
    figures.load_all()
    spec = figures.REGISTRY["input-gradient-vs-depth"]
    table = {"columns": list("abcdefg"), "rows": [[L, 1.0, 0.5, 2.0, 3.0, 2.5, 3.5] for L in (5, 10, 20, 50)]}
    svg = figures._render(spec, {cid: {"table": table} for cid in spec.claims}).decode()
    assert style.INK.lower() not in svg.lower() and "currentColor" in svg
    assert "#ffffff" not in svg.lower()  # no white plate
    assert "font-style: italic" in svg  # $L$ typeset as math, not a raw letter
    # in the page's own face (the body's font stack), whichever face matplotlib laid the text out with
    families = set(re.findall(r"font-family: ([^;\"]*)", svg))
    assert families == {style.FONT_STACK} and "Source Serif 4" in style.FONT_STACK
    sizes = [float(s) for s in re.findall(r"font-size: ([0-9.]+)px", svg)]
    # tick labels 8.5, their exponents 0.7 of that; nothing above 9: drawn for a column that shows it about
    # 1.55 times its size (style.MAX_WIDTH), so no plot text is larger than the 16 px prose
    assert min(sizes) >= 5.9 and max(sizes) <= 9


def test_the_figure_macro_numbers_figures_and_links_them(monkeypatch):
    figures.load_all()
    name = "residual-block-diagram"
    uri = f"figures/{name}.svg"
    monkeypatch.setitem(figures.DRAWN, uri, diagram.svg(diagrams.RESIDUAL_BLOCK).encode())
    ctx = render.Context(page="module/residual-block.md", cpu={}, figures={name: {"cpu": uri}})
    page = f'See {{{{ figref("{name}") }}}}.\n\n{{{{ figure("{name}", "", "Two blocks.") }}}}\n'
    out = render.render(page, ctx)
    assert f"See [Figure 1](#figure-{name})." in out
    html = out.split("\n\n", 1)[1]
    assert html.count("<figure") == 1 and html.count("</figure>") == 1
    assert f'id="figure-{name}"' in html and "Figure 1.</span> Two blocks." in html
    assert 'role="img"' in html and "\n\n" not in html.strip()  # one raw-HTML block for Markdown
    with pytest.raises(render.ClaimError, match="does not show"):
        render.render('{{ figref("nope") }}', ctx)


def test_a_figure_too_heavy_to_inline_is_refused_with_its_name():
    import matplotlib.pyplot as plt
    import numpy as np

    def mesh(values):
        fig, ax = plt.subplots()
        ax.pcolormesh(np.random.default_rng(0).random((120, 120)))  # one SVG element per cell
        return fig

    def curve(values):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        return fig

    heavy = figures.FigureSpec("too-heavy", ("a_claim",), mesh)
    with pytest.raises(ValueError, match=r"figure 'too-heavy' .* bytes of SVG, over"):
        figures._render(heavy, {})
    assert len(figures._render(figures.FigureSpec("light", ("a_claim",), curve), {})) < figures.MAX_SVG_BYTES


# ---- the phone layout (sitekit/figure_phone.py `narrowed`) -------------------------------------------------


def _two_panels(values=None):
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.4), sharey=True)
    for ax in (left, right):
        ax.plot([1, 2, 3], [1, 4, 9], label="a curve")
        ax.set_title("a panel")
    fig.tight_layout()
    return fig


def test_a_phone_gets_side_by_side_panels_one_under_the_other():
    import matplotlib.pyplot as plt

    figures.style()
    fig = _two_panels()
    assert figure_phone.narrowed(fig) is True
    (top, bottom) = (ax.get_position() for ax in fig.axes)
    assert fig.get_size_inches()[0] == figure_phone.NARROW_WIDTH
    assert top.y0 > bottom.y1  # stacked, the first panel on top
    assert abs(top.x0 - bottom.x0) < 0.02 and top.width > 0.7  # each across the column
    assert fig.axes[1].yaxis.get_ticklabels()[1].get_visible()  # the shared axis labelled on both
    plt.close(fig)
    svg = figures._render(figures.FigureSpec("two", ("a_claim",), _two_panels), {}, narrow=True)
    assert figure_phone.is_stacked(svg) and not figure_phone.is_stacked(
        figures._render(figures.FigureSpec("two", ("a_claim",), _two_panels), {})
    )


def test_a_single_panel_is_narrowed_but_not_said_to_be_stacked():
    import matplotlib.pyplot as plt

    figures.style()
    fig, ax = plt.subplots(figsize=(style.MAX_WIDTH, 3.6))
    ax.plot([1, 2, 3], [3, 1, 2])
    assert figure_phone.narrowed(fig) is False and fig.get_size_inches()[0] == figure_phone.NARROW_WIDTH
    plt.close(fig)


def test_a_legend_that_would_cover_the_data_on_a_phone_moves_off_it():
    import matplotlib.pyplot as plt
    import numpy as np

    figures.style()
    fig, ax = plt.subplots(figsize=(style.MAX_WIDTH, 3.6))
    grid = np.linspace(0, 1, 15)
    for y in grid:  # points everywhere: no corner of the axes is free
        ax.plot(grid, np.full_like(grid, y), "o", color=style.INK, label="_nolegend_" if y else "points")
    ax.legend(loc="upper left")
    renderer = fig.canvas.get_renderer()
    fig.set_size_inches(figure_phone.NARROW_WIDTH, 3.6)
    fig.canvas.draw()
    assert figure_phone._covers(ax, ax.get_legend(), renderer)  # the counterfactual: left where it was drawn
    figure_phone.narrowed(fig)
    fig.canvas.draw()
    legend = fig.legends[0] if fig.legends else ax.get_legend()
    assert ax.get_legend() is None and legend is not None  # under the figure now
    assert legend.get_window_extent(renderer).y1 <= ax.get_tightbbox(renderer).y0 + 1
    plt.close(fig)


def test_crowded_tick_labels_thin_out_if_numbers_and_stand_up_if_names():
    import matplotlib.pyplot as plt

    figures.style()
    fig, (numbers, names) = plt.subplots(2, 1, figsize=(style.MAX_WIDTH, 5))
    ticks = [0.00625, 0.0125, 0.025, 0.05, 0.1, 0.2, 0.4]
    numbers.plot(ticks, ticks)
    numbers.set_xscale("log")
    numbers.set_xticks(ticks, [f"{t:g}" for t in ticks])
    names.bar(range(6), [1] * 6)
    names.set_xticks(range(6), ["pre-norm", "post-norm", "post-norm + warm-up", "DeepNorm", "ReZero", "scaled"])
    fig.set_size_inches(figure_phone.NARROW_WIDTH, 5)
    fig.tight_layout()
    renderer = fig.canvas.get_renderer()
    assert figure_phone._uncrowd_ticks(numbers, renderer) == 0.0
    fig.canvas.draw()
    shown = [t.get_text() for t in numbers.get_xticklabels()]
    assert shown[0] and not shown[1] and shown[2]  # every other number
    assert figure_phone._uncrowd_ticks(names, renderer) > 0  # upright names are taller
    assert all(t.get_rotation() == 90 and t.get_text() for t in names.get_xticklabels())
    plt.close(fig)


def test_captions_name_stacked_panels_by_where_they_are():
    text = "Left: the stream (left, linear scale). Right, its gradient; the right character's logit, left of x."
    assert figure_phone.panel_words(text) == (
        "Top: the stream (top, linear scale). Bottom, its gradient; the right character's logit, left of x."
    )
    html = figure_phone.panel_words("the loss (right)", html=True)
    assert html == 'the loss (<span class="rs-at-wide">right</span><span class="rs-at-narrow">bottom</span>)'


def test_a_figure_shows_both_layouts_and_says_top_where_the_phone_stacks(monkeypatch):
    figures.load_all()
    name = "residual-block-diagram"
    spec = figures.REGISTRY[name]
    wide, narrow = figures.draw(spec, {}), figures.draw(spec, {}, narrow=True)
    assert narrow is not None and figure_phone.is_stacked(narrow) and not figure_phone.is_stacked(wide)
    for uri, svg in ((f"figures/{name}.svg", wide), (f"figures/{name}.narrow.svg", narrow)):
        monkeypatch.setitem(figures.DRAWN, uri, svg)
    drawn = {name: {"cpu": f"figures/{name}.svg", "cpu-narrow": f"figures/{name}.narrow.svg"}}
    ctx = render.Context(page="module/residual-block.md", cpu={}, figures=drawn)
    html = render.render(f'{{{{ figure("{name}", "", "Left: one block. Right: another.") }}}}\n', ctx)
    assert html.count('class="rs-svg rs-svg-wide"') == 1 and html.count('class="rs-svg rs-svg-narrow"') == 1
    assert '<span class="rs-at-narrow">Top</span>: one block.' in html
    assert "fig-residual-block-diagram-narrow-title" in html  # ids stay unique on the page
    # a diagram without a phone layout of its own is shown once, for every screen
    assert figures.draw(figures.FigureSpec("one-column", (), lambda values: "<svg></svg>"), {}, narrow=True) is None


def test_a_phone_layout_is_checked_against_the_listing_like_the_desktop_one():
    d = diagrams.STREAM
    phone = d.for_phone()
    assert phone is not None and diagram.check(d) == []
    assert "runs down" in phone.desc and "left to right" in d.desc  # each drawing described as drawn
    upright = diagram.svg(phone)
    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', upright).groups())
    assert height > width  # the bus stands up
    broken_panel = dataclasses.replace(d.narrow[0], edges=d.narrow[0].edges[1:])  # an arrow left out
    problems = diagram.check(dataclasses.replace(d, narrow=(broken_panel,)))
    assert problems and all("(phone layout)" in p for p in problems), problems
