"""A notebook page is rendered by the pipeline itself (sitekit/notebook_page.py): its Markdown cells as they are,
each code cell a listing with its outputs under it, a plot inline with its description as its name, and a
download link under the title; what a page cannot show (an error, a bitmap) stops the build, naming the file."""

from __future__ import annotations

import json

import pytest

from sitekit.claims import ClaimError
from sitekit.notebook_page import notebook_markdown

SVG = (
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="100pt" height="50pt" viewBox="0 0 100 50">'
    "\n <metadata><rdf:RDF><cc:Work><dc:description>Loss against epoch</dc:description></cc:Work></rdf:RDF></metadata>"
    '\n\n <path d="M 0 0 L 10 10" style="stroke: #1f77b4"/>\n</svg>\n'
)


def _nb(*cells: dict) -> str:
    return json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _code(source: str, *outputs: dict) -> dict:
    return {"cell_type": "code", "source": source, "outputs": list(outputs), "metadata": {}, "execution_count": 1}


def test_cells_outputs_and_download_in_order() -> None:
    md = notebook_markdown(
        _nb(
            {"cell_type": "markdown", "source": ["# The solution\n", "\n", "It trains."], "metadata": {}},
            _code("print('```')", {"output_type": "stream", "name": "stdout", "text": ["loss 0.5\n"]}),
            _code("plot()", {"output_type": "display_data", "data": {"image/svg+xml": SVG, "text/plain": "<F>"}}),
        ),
        "docs/x.md",
        "solution.ipynb",
    )
    assert md.startswith("\n#"), "a blank first line: no notebook text is read as the page's metadata"
    blocks = md.lstrip("\n").split("\n\n")
    assert blocks[0] == "# The solution"
    assert (
        blocks[1] == '[Download the notebook (solution.ipynb)](solution.ipynb){ .md-button download="solution.ipynb" }'
    )
    assert blocks[2] == "It trains."
    assert blocks[3] == "````python\nprint('```')\n````", "the fence outlasts the backticks inside"
    assert blocks[4] == '```text title="Output"\nloss 0.5\n```'
    assert blocks[5] == "```python\nplot()\n```"
    figure = blocks[6]
    assert figure.startswith('<figure class="rs-figure rs-notebook-figure" markdown="0">')
    assert "<title>Loss against epoch</title>" in figure and 'role="img"' in figure
    assert "\n\n" not in figure and 'width="100pt"' in figure, "drawn no larger than it was made"


def test_an_error_output_stops_the_build_naming_the_file() -> None:
    error = {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": []}
    with pytest.raises(ClaimError, match=r"docs/x\.md: a cell raised ValueError: bad"):
        notebook_markdown(_nb(_code("f()", error)), "docs/x.md")


def test_a_bitmap_plot_stops_the_build() -> None:
    png = {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<F>"}}
    with pytest.raises(ClaimError, match="draw plots as SVG with a description"):
        notebook_markdown(_nb(_code("f()", png)), "docs/x.md")


def test_a_plot_without_a_description_stops_the_build() -> None:
    bare = SVG.replace("<dc:description>Loss against epoch</dc:description>", "")
    out = {"output_type": "display_data", "data": {"image/svg+xml": bare}}
    with pytest.raises(ClaimError, match=r"docs/x\.md: a notebook plot has no description"):
        notebook_markdown(_nb(_code("f()", out)), "docs/x.md")


def test_what_would_not_read_the_same_stops_the_build() -> None:
    def markdown(text: str) -> str:
        return _nb({"cell_type": "markdown", "source": text, "metadata": {}})

    with pytest.raises(ClaimError, match="opens a code fence it does not close"):
        notebook_markdown(markdown("```python\nx = 1\n"), "docs/x.md")
    with pytest.raises(ClaimError, match=r"writes math as \$\.\.\.\$"):
        notebook_markdown(markdown("The loss $L$ falls."), "docs/x.md")
    assert "$L$" in notebook_markdown(markdown("Code: `$L$`, and\n\n```\n$L$\n```"), "docs/x.md")
    with pytest.raises(ClaimError, match="attached image"):
        notebook_markdown(markdown("![plot](attachment:plot.png)"), "docs/x.md")
    with pytest.raises(ClaimError, match="read as an include"):
        notebook_markdown(_nb(_code('print("--8<-- file.py")')), "docs/x.md")


def test_console_output_as_a_terminal_leaves_it_and_empty_outputs_dropped() -> None:
    stream = {"output_type": "stream", "name": "stdout", "text": "\x1b[31mred\x1b[0m\nstep 1\rstep 2\n"}
    empty = {"output_type": "stream", "name": "stdout", "text": ""}
    md = notebook_markdown(_nb(_code("f()", stream, empty)), "docs/x.md")
    assert md.strip().split("\n\n") == ["```python\nf()\n```", '```text title="Output"\nred\nstep 2\n```']
