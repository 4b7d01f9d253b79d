"""Small defects a reader saw, kept fixed: no macro left unrendered on any page, index columns of integers
printed as integers, and code named in a recorded table set as code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitekit import macros, render

ROOT = Path(__file__).resolve().parents[2]
MACRO_CALL = re.compile(r"\{\{\s*[a-z_]+\(")  # `{{ value(` ...; a BibTeX record's {{Title}} is no macro
# The contributors' guide shows the macros' syntax on purpose, as code.
SHOWS_THE_SYNTAX = {"contributing.md", "contributing/index.html"}


@pytest.mark.parametrize("folder, suffix", [("build/rendered", ".md"), ("site", ".html")])
def test_no_rendered_page_shows_a_macro(folder: str, suffix: str) -> None:
    base = ROOT / folder
    if not base.is_dir():
        pytest.skip(f"{folder}/ is not built here")
    shown = [
        f"{path.relative_to(base)}: {m[0]!r}"
        for path in sorted(base.rglob(f"*{suffix}"))
        if path.relative_to(base).as_posix() not in SHOWS_THE_SYNTAX
        for m in [MACRO_CALL.search(path.read_text(encoding="utf-8", errors="replace"))]
        if m
    ]
    assert not shown, f"unrendered macros (a macro inside a code span is not expanded): {shown}"


def test_an_index_column_of_integers_stays_integers_under_a_decimal_spec() -> None:
    data = {"columns": ["block", "error"], "rows": [[1, 0.5], [2, 0.25]]}
    assert macros._md_table(data, ".2f", "here").split("\n")[2:] == ["| 1 | 0.50 |", "| 2 | 0.25 |"]
    floats = {"columns": ["rate", "error"], "rows": [[0.5, 0.5], [1.0, 0.25]]}
    assert macros._md_table(floats, ".2f", "here").split("\n")[2] == "| 0.50 | 0.50 |"


def test_table_code_sets_the_named_code_as_code_spans(monkeypatch) -> None:
    table = "| mistake | hint |\n| --- | --- |\n| no zero_grad, += | call optimizer.zero_grad() first; `x += y` stays |"
    monkeypatch.setattr(macros, "table", lambda ctx, cid, key: table)
    ctx = render.Context(page="module/exercise.md", cpu={})
    out = macros.table_code(ctx, "c", "table", "zero_grad", "optimizer.zero_grad()", "+=")
    assert out.split("\n")[2] == "| no `zero_grad`, `+=` | call `optimizer.zero_grad()` first; `x += y` stays |"
    with pytest.raises(render.ClaimError, match="no longer shows"):
        macros.table_code(ctx, "c", "table", "model.eval()")


def test_the_ledger_keeps_the_site_navigation_and_folds_its_groups_on_phones() -> None:
    head = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8").split("\n---\n", 1)[0]
    assert "navigation" not in head, "docs/claims.md hides the site's navigation"
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "assets/js/ledger.js" in config
    script = (ROOT / "docs" / "assets" / "js" / "ledger.js").read_text(encoding="utf-8")
    assert "(max-width: 44.9375em)" in script and "d.open = false" in script
