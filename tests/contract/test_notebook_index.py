"""The Run it yourself page (sitekit/notebook_index.py) lists every page's notebook in reading order, counts
each one's long experiments as the notebook check does (a call with a tolerance), links both downloads from
the page's own folder, and says how often the experiments are run again."""

from __future__ import annotations

from sitekit import notebook_index, notebooks, rotations
from sitekit.page_context import Context


def _book(page: str, title: str, tolerances: list[float | None], seconds: float) -> notebooks.Notebook:
    calls = [{"tolerance": t, "seconds": seconds / len(tolerances)} for t in tolerances]
    return notebooks.Notebook(page, title, calls=calls, needs=["torch==2.13.0"])


def test_rows_follow_reading_order_and_count_experiments() -> None:
    ctx = Context(
        page="run-it-yourself.md",
        cpu={},
        page_order=["module/degradation.md", "module/residual-block.md"],
        page_titles={"module/degradation.md": "Part 1 · Degradation"},
    )
    books = {
        "module/residual-block.md": _book("module/residual-block.md", "Part 2", [None, 0.1, None], 0.5),
        "module/degradation.md": _book("module/degradation.md", "unused title", [0.25, None], 300.0),
    }
    out = notebook_index.index_markdown(ctx, books, rotations.NOTEBOOKS)
    rows = [line for line in out.splitlines() if line.startswith("| [")]
    assert [r.split("]")[0] for r in rows] == ["| [Part 1 · Degradation", "| [Part 2"]
    assert rows[0].split(" | ")[1:] == ["2", "1", "about 5 min |"]
    assert rows[1].split(" | ")[1:] == ["3", "1", "about 1 s |"]
    assert "[notebook](notebooks/module-degradation.ipynb) · [script](notebooks/module-degradation.py)" in rows[0]
    assert "](module/degradation.md)" in rows[0]
    assert f"each run again within {rotations.NOTEBOOKS} builds" in out
    assert "2 notebooks, 5 measurements" in out and "the 2 long experiments take turns" in out
    assert "`pip install torch==2.13.0`" in out
    quiet = {"module/residual-block.md": _book("module/residual-block.md", "Part 2", [None], 0.5)}
    assert "take turns" not in notebook_index.index_markdown(ctx, quiet, rotations.NOTEBOOKS)


def test_no_logged_calls_says_how_to_get_them() -> None:
    out = notebook_index.index_markdown(Context(page="run-it-yourself.md", cpu={}), {}, rotations.NOTEBOOKS)
    assert "nox -s tests" in out
