"""Encyclopedia entries keep the template's sections, sit in the nav and the index, and have a citation record."""

import re

from sitekit.claims import ROOT
from snippets.encyclopedia import citation

TEMPLATE = ROOT / "templates" / "encyclopedia-entry.md"
SECTION = ROOT / "docs" / "encyclopedia"


def sections(text: str) -> list[str]:
    """Level-2 headings, in order, outside code fences."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.findall(r"^## (.+)$", text, flags=re.M)


def entries() -> list[str]:
    return sorted(p.stem for p in SECTION.glob("*.md") if p.stem != "index")


def follows_template(text: str, required: list[str]) -> None:
    """The template's sections appear in the entry in the template's order (others may be added)."""
    found = [s for s in sections(text) if s in required]
    assert found == required, f"sections {found}, the template asks for {required} in this order"


def test_every_entry_keeps_the_templates_sections_in_order():
    required = sections(TEMPLATE.read_text(encoding="utf-8"))
    assert required[:2] == ["Premise", "Derivation"], required
    assert entries(), "no entries found"
    for slug in entries():
        text = (SECTION / f"{slug}.md").read_text(encoding="utf-8")
        try:
            follows_template(text, required)
        except AssertionError as e:
            raise AssertionError(f"docs/encyclopedia/{slug}.md: {e}; see templates/encyclopedia-entry.md") from None
    swapped = (SECTION / "ensembles.md").read_text(encoding="utf-8").replace("## Premise", "## Premise-moved")
    try:
        follows_template(swapped + "\n## Premise\n", required)
    except AssertionError:
        pass
    else:
        raise AssertionError("a section out of order was not caught")


def test_every_entry_is_in_the_nav_on_the_index_and_has_a_citation_record():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    index = (SECTION / "index.md").read_text(encoding="utf-8")
    assert "encyclopedia/index.md" in nav
    for slug in entries():
        assert f"encyclopedia/{slug}.md" in nav, f"docs/encyclopedia/{slug}.md: add it to nav in mkdocs.yml"
        assert f"]({slug}.md)" in index, f"docs/encyclopedia/index.md: add a summary of {slug}.md"
        assert slug in citation.ENTRIES, f"{slug}: add its record to ENTRIES in snippets/encyclopedia/citation.py"


def citation_claim(slug: str) -> str:
    """The id of the claim whose record generates an entry's citation formats."""
    return (
        "citation_formats_parse_to_the_same_works"
        if slug == "residual-stream"
        else (f"{slug.replace('-', '_')}_citation_parses_to_the_same_works")
    )


def test_every_entry_lists_its_references_from_its_citation_record():
    for slug in entries():
        text = (SECTION / f"{slug}.md").read_text(encoding="utf-8")
        section = text.split("\n## References\n", 1)[-1].split("\n## ", 1)[0]
        call = f'{{{{ references("{citation_claim(slug)}"'
        assert call in section, (
            f"docs/encyclopedia/{slug}.md: under '## References', write {call}, ...) }}}} "
            "(the list is generated; see templates/encyclopedia-entry.md)"
        )
        assert "\n- " not in section, f"docs/encyclopedia/{slug}.md: a reference list typed by hand; use references()"
