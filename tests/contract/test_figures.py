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
from sitekit import diagram, figures, render, style
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
    assert "font-style: oblique" in svg  # $L$ typeset as math, not a raw letter
    sizes = [float(s) for s in re.findall(r"font-size: ([0-9.]+)px", svg)]
    assert min(sizes) >= 8.4  # tick labels 12, their exponents 0.7 of that


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
