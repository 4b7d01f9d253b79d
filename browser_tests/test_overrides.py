"""Theme overrides stay copies of Material's templates except for the line they exist to change."""

from __future__ import annotations

from pathlib import Path

import material

from browser_tests.harness import ROOT

MATERIAL = Path(material.__file__).resolve().parent / "templates"


def _code(text: str) -> list[str]:
    """Template lines without the leading {#- ... -#} comment."""
    return text.split("-#}", 1)[1].strip().splitlines() if text.lstrip().startswith("{#-") else text.splitlines()


def test_search_partial_differs_from_material_only_by_the_dialog_name() -> None:
    ours = _code((ROOT / "overrides" / "partials" / "search.html").read_text(encoding="utf-8"))
    theirs = _code((MATERIAL / "partials" / "search.html").read_text(encoding="utf-8"))
    changed = [(a, b) for a, b in zip(ours, theirs, strict=True) if a != b]
    assert changed == [
        (
            theirs[0].replace('role="dialog">', 'role="dialog" aria-label="{{ lang.t(\'search\') }}">'),
            theirs[0],
        )
    ], "overrides/partials/search.html drifted from Material's: re-copy it and re-add aria-label"


def test_palette_partial_differs_from_material_only_by_the_form_s_marker() -> None:
    """The form is Material's; only the marker that makes the theme's palette component mount is swapped
    for the one the partial's own script finds (test_interactions.py checks what the toggle does)."""
    ours = _code((ROOT / "overrides" / "partials" / "palette.html").read_text(encoding="utf-8"))
    theirs = _code((MATERIAL / "partials" / "palette.html").read_text(encoding="utf-8"))
    form = ours[: ours.index("</form>") + 1]
    assert form == [theirs[0].replace('data-md-component="palette"', "data-palette"), *theirs[1:]], (
        "overrides/partials/palette.html drifted from Material's: re-copy the form, marked data-palette"
    )
