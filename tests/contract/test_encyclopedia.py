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


# "Xiong et al. (2020", "Haber and Ruthotto 2017", "Zhang, Botev and Martens 2022": a work cited by author and year.
CITED = re.compile(
    r"\b(?P<first>[A-Z][\w-]+)(?: et al\.|(?:, [A-Z][\w-]+)* and [A-Z][\w-]+)'?s?,? \(?(?P<year>(?:19|20)\d\d)(?![\d.])"
)
# Works the pages cite by name that facts/facts.toml does not hold yet (so no list can show them): add each
# there (cite, title, published, url, group, cited_for), name it in the page's references() call, and drop it here.
NOT_YET_IN_FACTS = {("Shleifer", "2021"), ("Touvron", "2021"), ("Touvron", "2023")}


def listed_works(slug: str, text: str) -> set[str]:
    """facts/facts.toml ids of the works an entry's reference list shows (as references() gathers them)."""
    from sitekit import facts

    reg = facts.registry()
    urls = {w.url for w in citation.ENTRIES[slug][1:]}
    ids = {w.id for w in reg.works.values() if w.url in urls}
    for fid in re.findall(r"\{\{\s*fact\(\s*['\"]([^'\"]+)", text):
        ids |= {f.work for f in reg.sources(fid)} if fid in reg.facts else set()
    call = re.search(r"\{\{\s*references\((.*?)\)\s*\}\}", text)
    return ids | (set(re.findall(r"['\"]([\w-]+)['\"]", call[1])[1:]) if call else set())


def unlisted(slug: str, text: str) -> list[str]:
    """The works a page cites by author and year that its reference list does not show."""
    from sitekit import facts

    reg = facts.registry()
    listed = listed_works(slug, text)
    problems = []
    for m in CITED.finditer(text):
        first, year = m["first"], m["year"]
        candidates = {
            w.id
            for w in reg.works.values()
            if re.split(r",| and | et al\.| \(", w.cite, maxsplit=1)[0].strip() == first
            and (year in w.id or year in w.published)
        }
        if (first, year) in NOT_YET_IN_FACTS:
            assert not candidates, f"{first} {year} is in facts/facts.toml now: drop it from NOT_YET_IN_FACTS"
        elif not candidates:
            problems.append(f"docs/encyclopedia/{slug}.md cites {m[0]!r}, which facts/facts.toml has no work for")
        elif not candidates & listed:
            problems.append(
                f"docs/encyclopedia/{slug}.md cites {m[0]!r} but its reference list has none of "
                f"{sorted(candidates)}: name the right one in its references() call"
            )
    return problems


def test_every_work_an_entry_cites_by_author_and_year_is_in_its_reference_list():
    problems = [p for slug in entries() for p in unlisted(slug, (SECTION / f"{slug}.md").read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)
    dropped = (SECTION / "depth-scaling.md").read_text(encoding="utf-8").replace('"haber2017", ', "")
    assert any("Haber and Ruthotto" in p for p in unlisted("depth-scaling", dropped)), "a dropped work was not caught"
