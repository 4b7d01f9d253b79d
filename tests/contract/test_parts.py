"""A "Part N" on a page is bound to the nav: it links to the page the nav numbers N, or the build fails."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sitekit import parts, site_render
from sitekit.site_render import RenderError

NAV = {"module/degradation.md": 1, "module/initialisation.md": 4, "module/residual-stream.md": 5}


def problems(markdown: str, page: str = "module/page.md") -> list[str]:
    return parts.check(markdown, page, NAV)


def test_a_part_linked_to_its_own_page_passes():
    assert (
        problems(
            "As [Part 4](initialisation.md#zero-the-last-layer) showed, and [Part 5's stacks](residual-stream.md)."
        )
        == []
    )
    assert problems("See [Part 1](../module/degradation.md).", page="encyclopedia/entry.md") == []
    assert problems("| [4 · Initialisation and scale](initialisation.md) | the forward view |") == []


def test_a_part_number_that_disagrees_with_the_nav_fails_naming_line_and_the_right_number():
    (message,) = problems("Intro.\n\nAs [Part 5](initialisation.md) measured.")
    assert message.startswith("docs/module/page.md:3: 'Part 5' links to 'initialisation.md'")
    assert "numbers Part 4: write 4." in message
    (ordinal,) = problems("| [5 · Initialisation](initialisation.md) | ... |")
    assert "numbers Part 4" in ordinal


def test_an_unlinked_part_fails_and_the_fix_names_the_link_to_write():
    (message,) = problems("Part 4 measured it.", page="encyclopedia/entry.md")
    assert "'Part 4' is not a link" in message
    assert "[Part 4](../module/initialisation.md)" in message


def test_a_link_across_a_line_break_is_still_a_link():
    assert problems("as [Part\n4](initialisation.md) found") == []


def test_code_and_macros_are_not_prose():
    assert problems("```python\n# Part 7 of the course\n```\n`Part 9` and {{ figure('x', 'Part 3 data') }}") == []


def test_several_parts_in_one_link_fail():
    (message,) = problems("[Parts 4 and 5](initialisation.md)")
    assert "link each to its own page" in message


def test_a_part_page_whose_heading_disagrees_with_the_nav_fails():
    (message,) = problems("# Part 5 · Initialisation and scale\n\nText.", page="module/initialisation.md")
    assert "the heading says Part 5" in message and "numbers this page Part 4" in message
    assert problems("# Part 4 · Initialisation and scale\n", page="module/initialisation.md") == []


def test_the_build_fails_on_an_unbound_part_reference():
    site = site_render.Site(strict=True, cpu={}, cuda={}, cpu_prov={}, cuda_prov={})
    site.part_numbers, site.parts = NAV, {uri: (n, 7) for uri, n in NAV.items()}
    with pytest.raises(RenderError) as err:
        site_render.page_markdown(site, "module/page.md", "See Part 4.\n", "See Part 4.\n")
    assert "docs/module/page.md:1: 'Part 4' is not a link" in str(err.value)


def test_a_works_cited_for_on_the_sources_page_is_held_to_the_same_rule(monkeypatch):
    """The Sources page lists each work's cited_for (facts/facts.toml), which names parts too."""
    work = SimpleNamespace(id="zhang2019", cited_for="Fixup, in [Part 5](initialisation.md).")
    monkeypatch.setattr(site_render.facts, "registry", lambda: SimpleNamespace(works={work.id: work}))
    site = site_render.Site(strict=True, cpu={}, cuda={}, cpu_prov={}, cuda_prov={})
    site.part_numbers = NAV
    with pytest.raises(RenderError) as err:
        site_render.check_cited_for(site)
    assert "facts/facts.toml: work 'zhang2019', cited_for: 'Part 5' links to 'initialisation.md'" in str(err.value)
    work.cited_for = "Fixup, in [Part 4](initialisation.md)."
    site_render.check_cited_for(site)


def test_a_lab_is_bound_to_the_nav_like_a_part():
    labs = {"module/lab-why-it-trains.md": 1, "module/lab-transformer-stream.md": 2}
    assert parts.check("[Lab 2](lab-transformer-stream.md) trains one.", "module/page.md", NAV, labs=labs) == []
    (wrong,) = parts.check("[Lab 1](lab-transformer-stream.md) trains one.", "module/page.md", NAV, labs=labs)
    assert "numbers Lab 2: write 2." in wrong
    (bare,) = parts.check("Lab 1 measured it.", "module/page.md", NAV, labs=labs)
    assert "'Lab 1' is not a link" in bare and "[Lab 1](lab-why-it-trains.md)" in bare
