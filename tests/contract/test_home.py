"""The home page lists every encyclopedia entry and every lab as a card, and opens with its call to action."""

from __future__ import annotations

import re

from sitekit.claims import ROOT

HOME = ROOT / "docs" / "index.md"
NAV = ROOT / "mkdocs.yml"
CALL_TO_ACTION = "[Start with Part 1](module/degradation.md){ .md-button .md-button--primary }"


def nav_pages(nav: str) -> list[str]:
    """The encyclopedia entries and the labs in the nav, as docs paths (the encyclopedia's index aside)."""
    entries = re.findall(r"^\s*-\s*(?:\"[^\"]*\"\s*:\s*|[^:\n]+:\s*)?(encyclopedia/[\w-]+\.md)\s*$", nav, re.M)
    labs = re.findall(r"^\s*-\s*\"?Lab \d+ ·[^:\n]*\"?\s*:\s*(module/[\w-]+\.md)\s*$", nav, re.M)
    return [p for p in entries if p != "encyclopedia/index.md"] + labs


def cards(home: str) -> list[str]:
    """The pages the home page's cards link to: the first link of each item in a `grid cards` block."""
    blocks = re.findall(r'<div class="grid cards" markdown>(.*?)</div>', home, re.S)
    return [m for block in blocks for m in re.findall(r"^-\s+\*\*\[[^\]]+\]\(([^)#\s]+)\)\*\*", block, re.M)]


def missing_cards(nav: str, home: str) -> list[str]:
    shown = set(cards(home))
    return [
        f"docs/index.md has no card for docs/{page}, which the nav lists: add one to the home page's "
        f"`grid cards` block ({'The encyclopedia' if page.startswith('encyclopedia/') else 'The labs'}), "
        f"a linked title, `---`, and one line on what the page does: -   **[Title]({page})**"
        for page in nav_pages(nav)
        if page not in shown
    ]


def test_every_encyclopedia_entry_and_lab_in_the_nav_has_a_card_on_the_home_page():
    nav, home = NAV.read_text(encoding="utf-8"), HOME.read_text(encoding="utf-8")
    pages = nav_pages(nav)
    assert len([p for p in pages if p.startswith("module/lab-")]) >= 2, pages
    assert "encyclopedia/residual-stream.md" in pages, pages
    problems = missing_cards(nav, home)
    assert not problems, "\n".join(problems)


def test_a_new_entry_without_a_card_is_named_with_what_to_do():
    nav, home = NAV.read_text(encoding="utf-8"), HOME.read_text(encoding="utf-8")
    added = nav.replace(
        '      - "Long Skips: U-Nets": encyclopedia/unet-skips.md\n',
        '      - "Long Skips: U-Nets": encyclopedia/unet-skips.md\n'
        '      - "A Future Entry": encyclopedia/future-entry.md\n',
    )
    assert added != nav, "the nav's last encyclopedia line moved: update this test"
    (problem,) = missing_cards(added, home)
    assert "docs/encyclopedia/future-entry.md" in problem and "grid cards" in problem
    dropped = home.replace("(module/lab-transformer-stream.md)**", "(module/quiz.md)**")
    assert any("module/lab-transformer-stream.md" in p for p in missing_cards(nav, dropped))


def test_the_call_to_action_comes_right_after_the_opening_paragraph():
    home = HOME.read_text(encoding="utf-8")
    assert CALL_TO_ACTION in home, "docs/index.md: keep the 'Start with Part 1' primary button"
    before = home.split(CALL_TO_ACTION, 1)[0]
    assert "<figure" not in before and "\n## " not in before, (
        "docs/index.md: the 'Start with Part 1' button must come before the diagram and the first section, "
        "so that it shows above the fold on a laptop and a phone"
    )
