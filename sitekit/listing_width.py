"""How many characters a listing's line may have before it overflows its code block at 1280 px.

Snippets are included as they are (pymdownx.snippets does not dedent a section), so a listing shows each
line of its file at full length, and a line wider than its block makes the reader scroll sideways. The
browser suite measures that on the built site (browser_tests, `WIDE_LISTINGS`); this check counts
characters on the plain files, so the build refuses a wide line in its first seconds instead of late in CI.

How many columns a block holds depends on where it sits. Measured in Chromium at 1280 px on the built
site (scripts/listing_columns.py prints them): 93 in the page's body or on a tab, 113 in an admonition
or fold (their code is set smaller), and 4 fewer for each list the listing is nested in (89 in a list
item). Those are the numbers below; the browser check stays the judge where they would be wrong.
"""

from __future__ import annotations

import re
from pathlib import Path

BODY_COLUMNS = 93  # a listing in the page's body, or on a tab
FOLD_COLUMNS = 113  # a listing in an admonition or a fold (`!!!`, `???`)
LIST_INDENT_COLUMNS = 4  # what each enclosing list item takes from the width
SLACK = 1  # one column kept free: a font's rounding differs a little across machines

LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s")
SECTION = re.compile(r"#\s*--8<--\s*\[(?P<kind>start|end):(?P<name>[\w-]+)\]")


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))


def containers(lines: list[str], at: int) -> list[str]:
    """The blocks around line `at` (0-based) of a page, innermost first: 'fold', 'tab' or 'list'."""
    found: list[str] = []
    indent = _indent(lines[at])
    for row in reversed(lines[:at]):
        if not row.strip() or _indent(row) >= indent:
            continue
        head = row.strip()
        if head.startswith(("!!!", "???")):
            found.append("fold")
        elif head.startswith("==="):
            found.append("tab")
        elif LIST_ITEM.match(head):
            found.append("list")
        else:
            continue  # a paragraph's lazy continuation: not a block of its own
        indent = _indent(row)
        if indent == 0:
            break
    return found


def columns(lines: list[str], at: int) -> int:
    """How many characters of code fit on one line of a listing included at line `at` of a page."""
    around = containers(lines, at)
    base = FOLD_COLUMNS if "fold" in around else BODY_COLUMNS
    return base - LIST_INDENT_COLUMNS * around.count("list")


def section_lines(snippet: Path, section: str | None) -> list[tuple[int, str]]:
    """(line number, text) of each line a listing shows: one section of the file, or all of it."""
    rows = snippet.read_text(encoding="utf-8").splitlines()
    if section is None:
        return list(enumerate(rows, start=1))
    shown, inside = [], False
    for n, row in enumerate(rows, start=1):
        m = SECTION.search(row)
        if m:
            if m["name"] == section:
                inside = m["kind"] == "start"
            continue  # markers of this and nested sections are not shown
        if inside:
            shown.append((n, row))
    return shown


def wide_lines(page_lines: list[str], at: int, snippet: Path, section: str | None, shown_as: str) -> list[str]:
    """A problem for each line of the listing included at line `at` that is wider than its block."""
    room = columns(page_lines, at) - SLACK
    return [
        f"{shown_as}:{n} is {len(row)} characters wide, and this listing's block holds {room} at 1280 px: the "
        f"reader would scroll sideways. Break the line (or move a long comment above the code it describes)"
        for n, row in section_lines(snippet, section)
        if len(row.expandtabs()) > room
    ]
