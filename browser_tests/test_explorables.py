"""The explorables: a reader moves the slider and flips the toggle; every value shown is a recorded one.

Expected values are read here from results/cpu.json (what the claim tests recorded), not from the JSON
the page carries, so a page that showed anything else would fail.
"""

from __future__ import annotations

import json
import math
from typing import Any

from browser_tests.harness import ROOT, site_pages, soup

RESULTS = ROOT / "results" / "cpu.json"
GRADIENT = "input-gradient-vs-depth"
STREAM = "stream-rms-vs-depth"


def recorded(cid: str) -> dict[str, Any]:
    return json.loads(RESULTS.read_text())["claims"][cid]["values"]


def shown(v: float) -> str:
    """The site's notation for a value, three significant digits, as explorables.js writes it and a reader's
    text shows it (the exponent in a <sup>: 4.43 × 10−29)."""
    if v == 0:
        return "0"
    if 0.01 <= abs(v) < 10000:
        return f"{float(f'{v:.3g}'):g}"
    mantissa, exponent = f"{v:.2e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).replace('-', '−')}"


def page_of(name: str) -> str:
    found = [p for p in site_pages() if soup(p).select_one(f'figure[data-explorable="{name}"]') is not None]
    assert found, f"no page shows the explorable {name!r}"
    return found[0]


def _open(new_context: Any, base_url: str, name: str, **options: Any) -> tuple[Any, Any]:
    page = new_context(**options).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url + page_of(name), wait_until="load")
    page.errors = errors
    return page, page.locator(f"#figure-{name}")


def _read(figure: Any, series: str) -> tuple[float, str]:
    dd = figure.locator(f'dd[data-series="{series}"]')
    return float(dd.get_attribute("data-value")), dd.inner_text()


def _slide_to(figure: Any, index: int) -> None:
    handle = figure.locator('input[type="range"]')
    handle.focus()
    handle.press("Home")
    for _ in range(index):
        handle.press("ArrowRight")
    assert int(handle.input_value()) == index


def test_gradient_explorable_shows_the_recorded_medians_at_every_depth(
    new_context: Any, base_url: str, scheme: str
) -> None:
    page, figure = _open(new_context, base_url, GRADIENT, scheme=scheme)
    assert figure.locator(".rs-explorable").is_visible()
    assert not figure.locator("svg.rs-svg").first.is_visible()  # the static figure gives way
    tables = {
        "default": recorded("plain_stack_input_gradient_vanishes_by_depth_50")["table"],
        "he": recorded("he_init_makes_both_stacks_explode")["table"],
    }
    for init, table in tables.items():
        figure.locator(f'input[type="radio"][value="{init}"]').check()
        for i, row in enumerate(table["rows"]):
            _slide_to(figure, i)
            assert figure.locator("output").inner_text() == str(row[0])
            for series, column in (("plain", 1), ("residual", 4)):
                value, text = _read(figure, series)
                assert value == row[column], (init, row[0], series)
                assert text.startswith(shown(row[column])), (text, shown(row[column]))
                assert shown(row[column + 1]) in text and shown(row[column + 2]) in text  # the seeds' range
    assert not page.errors


def test_stream_explorable_shows_the_recorded_series_block_by_block(new_context: Any, base_url: str) -> None:
    page, figure = _open(new_context, base_url, STREAM)
    series = recorded("stream_growth_over_50_blocks_at_default_init")["series"]
    boxes = figure.locator('input[type="checkbox"]')
    assert boxes.count() == len(series)
    for i in range(boxes.count()):
        boxes.nth(i).check()
    for block in (0, 1, 7, 25, len(series["residual"]) - 1):
        _slide_to(figure, block)
        for name, values in series.items():
            value, text = _read(figure, name)
            assert value == values[block], (name, block)
            assert text.startswith(shown(values[block]))
    boxes.nth(0).uncheck()
    assert figure.locator(f'dd[data-series="{next(iter(series))}"]').count() == 0
    assert not page.errors


def _outside_the_labelled_axis(figure: Any) -> list[float]:
    """The chart's points that lie above its top labelled gridline or below its bottom one (SVG y grows down)."""
    return figure.locator("svg.rs-x-chart").evaluate(
        """svg => {
          const grid = [...svg.querySelectorAll('.rs-x-grid')].map(g => parseFloat(g.getAttribute('y1')));
          const top = Math.min(...grid), bottom = Math.max(...grid);
          return [...svg.querySelectorAll('.rs-x-line, polygon')]
            .flatMap(line => line.getAttribute('points').trim().split(/\\s+/).map(p => parseFloat(p.split(',')[1])))
            .filter(y => y < top - 0.5 || y > bottom + 0.5);
        }"""
    )


def test_the_explorables_label_the_axis_above_and_below_every_point(new_context: Any, base_url: str) -> None:
    """The y axis ends on labelled ticks that enclose the data (the residual curve once ran past the top label),
    and Part 5's chart says which scale it uses: ticking He init selects "log scale", which the reader can undo."""
    page, figure = _open(new_context, base_url, GRADIENT)
    for init in ("default", "he"):
        figure.locator(f'input[type="radio"][value="{init}"]').check()
        assert not _outside_the_labelled_axis(figure), init
    page, figure = _open(new_context, base_url, STREAM)
    assert figure.locator('input[type="radio"][value="linear"]').is_checked()
    assert not _outside_the_labelled_axis(figure)
    figure.locator('input[type="checkbox"]').last.check()  # He init, whose growth spans eleven decades
    assert figure.locator('input[type="radio"][value="log"]').is_checked()
    assert not _outside_the_labelled_axis(figure)
    figure.locator('input[type="radio"][value="linear"]').check()
    assert not _outside_the_labelled_axis(figure)
    assert not page.errors


def test_without_javascript_the_static_figures_remain(new_context: Any, base_url: str) -> None:
    for name in (GRADIENT, STREAM):
        _, figure = _open(new_context, base_url, name, java_script_enabled=False)
        static = figure.locator("svg.rs-svg").first
        assert static.is_visible() and figure.locator(".rs-explorable").count() == 0
        # text_content: a block far down the page is not drawn (site.css) until a reader scrolls near it
        assert "Figure" in (figure.locator("figcaption").text_content() or "")


# The size of each label of an SVG (a function of the svg, in its own units): a <text>'s own size where it
# holds text itself, else its largest <tspan>'s (matplotlib sets a formula glyph by glyph), so an exponent or
# a subscript, set smaller as in print, does not stand for the label it belongs to.
LABEL_SIZES = """svg => [...svg.querySelectorAll('text')].map(t => {
  const size = node => parseFloat(getComputedStyle(node).fontSize);
  const own = [...t.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
  const spans = [...t.querySelectorAll('tspan')].map(size);
  return Math.max(...(own || !spans.length ? [size(t)] : []), ...spans);
})"""


def test_figure_text_is_at_least_9pt_at_1280px_and_no_larger_than_the_prose(new_context: Any, base_url: str) -> None:
    """Tick labels and legends of every plot, as displayed: 9 pt is 12 CSS px; and none louder than the
    paragraph text beside it."""
    small: list[str] = []
    large: list[str] = []
    for path in site_pages():
        if soup(path).select_one("figure.rs-figure svg.rs-svg") is None:
            continue
        page = new_context(java_script_enabled=False).new_page()
        page.goto(base_url + path, wait_until="load")
        body, sizes = page.evaluate(
            "() => { const sizesOf = "
            + LABEL_SIZES
            + """;
              const body = parseFloat(getComputedStyle(document.querySelector('.md-content .md-typeset')).fontSize);
              return [body, [...document.querySelectorAll('figure.rs-figure svg.rs-svg')]
                .filter(svg => svg.getBoundingClientRect().width > 0)  // the phone's drawing is hidden here
                .map(svg => {
                  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
                  const sizes = sizesOf(svg).map(px => px * scale);
                  return [svg.closest('figure').id, Math.min(...sizes), Math.max(...sizes)];
              })]; }"""
        )
        small += [f"/{path} {fid}: {px:.1f}px" for fid, px, _ in sizes if math.isfinite(px) and px < 11.5]
        large += [f"/{path} {fid}: {px:.1f}px" for fid, _, px in sizes if math.isfinite(px) and px > body + 0.5]
    assert not small, f"figure text under 9 pt at 1280 px: {small}"
    assert not large, f"figure text larger than the prose at 1280 px: {large}"


PHONE_PLOT_PX = 10.0  # the smallest plot text a 390 px phone shows (tick labels come out near 14 px)


def test_every_figure_fits_a_390px_phone_with_readable_text(new_context: Any, base_url: str) -> None:
    """At 390 px each figure shows the drawing made for a phone's column (panels stacked, a long row
    turned upright), whole, with plot text at PHONE_PLOT_PX or more; an explorable draws its chart for
    the column too."""
    cropped: list[str] = []
    small: list[str] = []
    seen = 0
    for path in site_pages():
        if soup(path).select_one("figure.rs-figure") is None:
            continue
        for scripts in (False, True):
            page = new_context(java_script_enabled=scripts).new_page()
            page.set_viewport_size({"width": 390, "height": 844})
            page.goto(base_url + path, wait_until="load")
            rows = page.evaluate(
                "() => { const sizesOf = "
                + LABEL_SIZES
                + """;
                  return [...document.querySelectorAll('figure.rs-figure')].map(f => {
                    const shown = [...f.querySelectorAll('svg.rs-svg, svg.rs-x-chart')]
                      .filter(svg => svg.getBoundingClientRect().width > 0);
                    const plots = shown.filter(svg => !svg.hasAttribute('style'));
                    const text = plots.map(svg => {
                      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
                      return Math.min(...sizesOf(svg).map(px => px * scale));
                    });
                    return {id: f.id, scroll: f.scrollWidth, width: f.clientWidth, shown: shown.length,
                            narrow: shown.every(svg => !svg.classList.contains('rs-svg-wide')),
                            text: Math.min(...text)};
                }); }"""
            )
            for r in rows:
                where = f"/{path} {r['id']} ({'with' if scripts else 'without'} scripts)"
                seen += 1
                if r["shown"] == 0 or not r["narrow"]:
                    cropped.append(f"{where}: shows {r['shown']} drawings, the desktop's among them")
                elif r["scroll"] > r["width"] + 1:
                    cropped.append(f"{where}: {r['scroll']} px wide in a {r['width']} px column")
                if math.isfinite(r["text"]) and r["text"] < PHONE_PLOT_PX:
                    small.append(f"{where}: {r['text']:.1f} px")
    assert seen >= 60, f"only {seen} figures found"
    assert not cropped, f"figures cropped at 390 px: {cropped}"
    assert not small, f"plot text under {PHONE_PLOT_PX} px at 390 px: {small}"


def test_diagram_labels_are_at_least_11px_on_a_390px_phone(new_context: Any, base_url: str) -> None:
    """Box labels of every block diagram, as displayed on a phone: the diagram stops shrinking at 11 px."""
    small: list[str] = []
    seen = 0
    for path in site_pages():
        if soup(path).select_one("figure.rs-figure svg.rs-svg[style]") is None:  # diagrams carry a max-width
            continue
        page = new_context(java_script_enabled=False).new_page()
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(base_url + path, wait_until="load")
        sizes = page.evaluate(
            """() => [...document.querySelectorAll('figure.rs-figure svg.rs-svg[style]')]
              .filter(svg => svg.getBoundingClientRect().width > 0)  // the desktop's drawing, where stacked
              .map(svg => {
                const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
                const sizes = [...svg.querySelectorAll('text')]
                  .map(t => parseFloat(t.getAttribute('font-size')) * scale);
                return [svg.closest('figure').id, Math.min(...sizes)];
            })"""
        )
        small += [f"/{path} {fid}: {px:.1f}px" for fid, px in sizes if math.isfinite(px) and px < 10.9]
        seen += len(sizes)
    assert seen >= 5, f"only {seen} diagrams found"  # every block diagram in figures/diagrams.py is shown
    assert not small, f"diagram labels under 11 px at 390 px: {small}"


def test_the_stream_explorables_toggles_show_each_series_line_not_only_its_colour(
    new_context: Any, base_url: str
) -> None:
    """Post-norm and He init sit side by side in the toggles: each label draws its line's dash pattern."""
    page, figure = _open(new_context, base_url, STREAM)
    labels = figure.locator('.rs-x-toggle[aria-label="series shown"] label')  # not the scale's
    looks = [
        (
            (labels.nth(i).text_content() or "").strip(),
            labels.nth(i).locator("svg.rs-x-swatch line").get_attribute("style"),
        )
        for i in range(labels.count())
    ]
    assert len(looks) == len(recorded("stream_growth_over_50_blocks_at_default_init")["series"])
    dashes = [style.split("stroke-dasharray:")[1].strip() for _, style in looks]
    colours = [style.split(";")[0] for _, style in looks]
    assert len(set(colours)) == len(colours), looks
    named = dict(zip((name for name, _ in looks), dashes, strict=True))
    assert named["post-norm"] != named["residual, He init"], named  # dotted against dash-dot
    assert not page.errors
