"""The build refuses a number typed by hand: in prose, a table, an admonition, a figure's alt text or labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitekit import notebook_page, numbers, numbers_notebook, site_render
from sitekit.site_render import RenderError


def typed(markdown: str) -> list[str]:
    return [u.number for u in numbers.check_page(markdown, "module/page.md")]


def build_page(markdown: str, strict: bool = True) -> str:
    """Run the build's page step on one page, as `nox -s render` (and so `mkdocs build`) does."""
    site = site_render.Site(strict=strict, cpu={}, cuda={}, cpu_prov={}, cuda_prov={})
    return site_render.page_markdown(site, "module/page.md", markdown, markdown)[0]


def test_a_number_typed_into_prose_fails_the_build_naming_page_line_and_fix():
    with pytest.raises(RenderError) as err:
        build_page("# Title\n\nThe plain stack's gradient falls by 10⁻³³.\n\nTrained for 320 steps.\n")
    message = str(err.value)
    assert "docs/module/page.md:5: unbound number '320'" in message
    assert "{{ value(...) }}" in message and '{{ fact("id") }}' in message  # the fix
    assert "docs/module/page.md:3: unbound number '10'" in message


def test_a_number_typed_into_a_figure_alt_text_fails_the_build():
    page = '{{ figure("gradient-vs-depth", "The gradient falls from about 8 to about 29 over the blocks.") }}\n'
    with pytest.raises(RenderError) as err:
        build_page(page)
    assert "docs/module/page.md:1 (figure alt text): unbound number '8'" in str(err.value)


def test_a_preview_warns_instead_of_failing(caplog):
    out = build_page("Five seeds, 320 steps.\n", strict=False)
    assert out == "Five seeds, 320 steps.\n"
    assert "unbound number '320'" in caplog.text


def test_numbers_in_tables_and_admonitions_are_prose():
    assert typed("| model | top-1 |\n| --- | ---: |\n| ResNet-50 | 76.13 |\n") == ["76.13"]
    assert typed('!!! note "Why 12 bytes"\n    An add moves 12 bytes.\n') == ["12", "12"]


def test_numbers_filled_in_by_macros_are_bound():
    assert typed('At depth {{ value("c", "depth") }} it is {{ fact("resnet50_top1") }}.') == []


@pytest.mark.parametrize(
    "notation",
    [
        "See [Part 3](gradient-highway.md) and Common mistakes §5.",  # the module's own part numbers
        "He et al. 2015, Table 2; Zagoruyko & Komodakis (2016), Section 3.1, Eq. 3, Tables 3–4.",
        "arXiv:1512.03385, published at CVPR 2016 in June 2016.",  # citation years and identifiers
        "ResNet-50, Wide ResNet-50-2, CIFAR-10, float32, GPT-2 and OLMo&nbsp;2 are names.",
        "The update \\(x_{l+1} = x_l + F(x_l)\\) with \\(\\frac{1}{2} \\lVert x \\rVert^2\\) and \\(f = 0\\).",
        "The listing sets it: `d = 128`, and `torch.randn(64, 128)`.",
        "```text\nepoch 320: loss 0.25\n```",
        "1. A numbered step, under [a heading](#5-hoping-hyperparameters).",
        "## 5. Hoping hyperparameters rescue a plain network",
        '<span id="claim-x2"></span>{ #a1 .b2 }',
    ],
)
def test_notation_and_citations_are_recognised_by_rule(notation):
    assert typed(notation) == []


def test_a_value_written_into_math_is_a_number_not_notation():
    assert typed("With \\(k = 32\\) channels and \\(\\approx 10^{-33}\\), the ratio is 2.") == ["32", "10^{-33}", "2"]


def test_a_multiline_formula_is_notation_except_its_values():
    assert typed("\\[\n  P(d, h) = 2dh + h + d,\n  \\quad d = 256.\n\\]\n") == ["256"]


def test_a_figure_label_with_a_typed_number_is_reported():
    def draw(values):
        ax = values["ax"]
        ax.set_title("stream norm after 50 blocks")
        ax.set_xlabel(f"block (of {values['n']:d})")
        ax.plot([0], [1], label=f"ρ² = {values['rho']:.2f}")

    found = numbers.check_figure(draw)
    assert [u.number for u in found] == ["50"]
    assert "(figure label)" in found[0].where and "test_numbers.py" in found[0].where


def test_a_year_that_dates_an_event_is_a_fact_but_a_citation_year_is_not():
    assert typed("Before 2015 each jump in accuracy came with depth.") == ["2015"]
    assert typed("In 2015 they showed it.") == ["2015"]
    assert typed("as Hochreiter's 1991 thesis and (Bengio, Simard and Frasconi, 1994) showed") == []


def test_zero_and_one_are_constants_but_other_small_numbers_are_not():
    assert typed("A gate near 1 or 0, a ratio of 1.0.") == []
    assert typed("After 2 blocks and 3 seeds.") == ["2", "3"]


def test_the_sites_figures_type_no_numbers_into_their_labels():
    from sitekit import figures

    found = [str(u) for spec in figures.load_all().values() for u in numbers.check_figure(spec.draw)]
    assert found == []


def test_a_fact_inside_math_is_refused_because_its_link_would_break_the_formula():
    found = numbers.check_page('GPT-3 has \\(d = {{ fact("gpt3_d_model") }}\\).', "module/page.md")
    assert len(found) == 1 and "move it out of the math" in str(found[0])


def test_a_spelled_out_quantity_fails_the_build_naming_page_line_and_fix():
    with pytest.raises(RenderError) as err:
        build_page("# Title\n\nThe wide stack is four times wider.\n\nIt trains ten-fold faster over fifty blocks.\n")
    message = str(err.value)
    assert "docs/module/page.md:3: unbound spelled-out number 'four times'" in message
    assert "docs/module/page.md:5: unbound spelled-out number 'ten-fold'" in message
    assert "docs/module/page.md:5: unbound spelled-out number 'over fifty'" in message
    assert "a quantity in words is a number too" in message and "{{ value(...) }}" in message  # the fix


@pytest.mark.parametrize(
    ("prose", "found"),
    [
        ("It runs a third of the blocks, two thirds of the time.", ["a third of", "two thirds of"]),
        ("Five seeds, about thirty orders of magnitude, half a point.", ["Five seeds", "about thirty", "half a point"]),
        ("Twice as fast at more than three tokens.", ["Twice as", "more than three"]),
    ],
)
def test_spelled_out_multiples_fractions_and_counts_with_units_are_numbers(prose, found):
    assert typed(prose) == found


def test_ordinary_language_with_number_words_passes():
    assert typed("One block, two stacks, the first layer, the three details, one of the two models.") == []
    assert typed("The two orders of normalisation and activation; half of the threads each.") == []


def notebook(markdown: str, code: str = "DEPTH, SEEDS = 50, range(5)\n", output: str = "loss 0.25\n") -> str:
    """A minimal executed notebook: one markdown cell, one code cell with its output."""
    import json

    return json.dumps(
        {
            "cells": [
                {"cell_type": "markdown", "metadata": {}, "source": markdown},
                {
                    "cell_type": "code",
                    "metadata": {},
                    "source": code,
                    "outputs": [{"output_type": "stream", "name": "stdout", "text": output}],
                },
            ]
        }
    )


def build_notebook(source: str, folder: Path, monkeypatch: pytest.MonkeyPatch, strict: bool = True) -> str:
    """The page docs/module/nb.md, which renders the notebook `source` (sitekit/notebook_page.py)."""
    (folder / "nb.ipynb").write_text(source, encoding="utf-8")
    monkeypatch.setattr(notebook_page, "ROOT", folder)
    site = site_render.Site(strict=strict, cpu={}, cuda={}, cpu_prov={}, cuda_prov={})
    page = '{{ notebook("nb.ipynb") }}\n'
    return site_render.page_markdown(site, "module/nb.md", page, page)[0]


def test_a_number_in_a_notebooks_markdown_fails_the_build_naming_notebook_cell_and_fix(tmp_path, monkeypatch):
    with pytest.raises(RenderError) as err:
        build_notebook(notebook("Trained for 320 steps, with gradients below 1.2e-38.\n"), tmp_path, monkeypatch)
    message = str(err.value)
    assert "docs/module/nb.md: cell 1 (markdown), line 1: unbound number '320'" in message
    assert "docs/module/nb.md: cell 1 (markdown): unbound number '1.2e-38'" in message
    assert "set it in one of the notebook's code cells (configuration) or print it in an executed output" in message


def test_the_preview_shows_a_notebook_with_a_typed_number_and_says_so(tmp_path, monkeypatch, caplog):
    out = build_notebook(notebook("Trained for 320 steps.\n"), tmp_path, monkeypatch, strict=False)
    assert "Trained for 320 steps." in out and "loss 0.25" in out
    assert "docs/module/nb.md: cell 1 (markdown), line 1: unbound number '320'" in caplog.text


def test_a_notebooks_markdown_is_bound_by_its_code_literals_and_its_outputs():
    bound = notebook("Five seeds, 50 blocks deep; the loss ends at 0.25 (printed below), about 2.5e-1.\n")
    assert numbers_notebook.check_notebook(bound, "module/nb.ipynb") == []
    assert [u.number for u in numbers_notebook.check_notebook(notebook("Six seeds, 0.26."), "module/nb.ipynb")] == [
        "0.26",
        "Six seeds",
    ]


def test_a_scale_word_after_a_filled_in_number_is_its_unit():
    assert typed('It does {{ fact("wide_resnet50_2_ops") }} billion multiply–adds.') == []
    assert typed("It does a billion multiply–adds.") == ["billion"]


# The eleven gaps the honesty audit found in this lint, each on a sample line: every one is now reported.
GAPS = {
    "math with no relation": "the ratio is \\(0.47\\), or \\(3\\times\\), with \\(r = 0.47 \\pm 0.02\\)",
    "quantity words": "it grows by a factor of ten, an order of magnitude; the second-highest rate",
    "a four-digit number read as a year": "we trained it (2000 steps) and then, 2048 tokens",
    "a locator word exempting a number": "see version 3 and rules 42 and 17",
    "hyphen- and letter-glued numbers": "a depth-56 stack of width-4096 runs x10 slower",
    "Unicode fractions": "about ½ of the paths",
    "a code span holding a number": "the loss ends at `0.0042` after training",
    "an HTML attribute": '<span title="0.47">the ratio</span>',
    "spelled numbers in prose": "each He block triples the second moment and the ReLU halves it",
    "one half spelled": "post-norm stays near one half",
    "roughly twice": "every block adds roughly twice the stream's energy",
}


@pytest.mark.parametrize("line", GAPS.values(), ids=GAPS.keys())
def test_each_gap_the_audit_found_is_reported(line):
    assert typed(line), f"nothing reported in {line!r}"


def test_a_listing_comment_that_states_a_result_is_reported(tmp_path):
    from sitekit.contract import result_comments

    listing = tmp_path / "x.py"
    listing.write_text(
        "# --8<-- [start:a]\nx = 1  # the squares of ~1e-33 entries underflow\ny = 2  # why, not what\n"
        "# --8<-- [end:a]\n",
        encoding="utf-8",
    )
    found = result_comments(listing, "a")
    assert len(found) == 1 and "'~1e-33'" in found[0]


def test_numbers_in_recorded_label_strings_are_checked_against_the_record():
    from sitekit.render import label_numbers_unbound

    assert label_numbers_unbound({"rows": [["plain, 8 layers", 0.3]], "depth": 8}) == []
    assert label_numbers_unbound({"rows": [["plain, 8 layers", 0.3]], "depth": 22}) == ["8 (in 'plain, 8 layers')"]


def test_a_table_takes_one_format_per_column():
    from sitekit.claims import ClaimError
    from sitekit.macros import _md_table

    data = {"columns": ["variant", "learning rate", "loss"], "rows": [["a", 0.0003, 2.43021], ["b", 0.001, 2.2381]]}
    shared = _md_table(data, ".3f", "here")
    assert "0.000 |" in shared  # one spec for all: the rate's figures are lost
    table = _md_table(data, ";.1g;.3f", "here")
    assert "| a | 0.0003 | 2.430 |" in table and "| b | 0.001 | 2.238 |" in table, table
    with pytest.raises(ClaimError, match="2 column formats"):
        _md_table(data, ".1g;.3f", "here")


def test_powers_of_ten_are_set_with_sup_in_text_only():
    from sitekit.typesetting import powers_html

    page = (
        '<p>4.4 × 10⁻²⁹ and 10¹²</p><a title="10⁻³" data-x="10⁻³">10⁻³</a><code>10⁻²</code><svg><text>10⁻¹</text></svg>'
    )
    assert powers_html(page) == (
        '<p>4.4 × 10<sup>−29</sup> and 10<sup>12</sup></p><a title="10⁻³" data-x="10⁻³">10<sup>−3</sup></a>'
        "<code>10⁻²</code><svg><text>10⁻¹</text></svg>"
    )
    assert powers_html("<p>ρ² and 210²</p>") == "<p>ρ² and 210²</p>"  # a square, and not a power of ten
