"""The references() macro: an encyclopedia entry's reference list, formatted from data the site holds."""

from __future__ import annotations

import dataclasses
import json

import pytest

from sitekit import claims, facts, render
from sitekit.macros import reference_list
from snippets.encyclopedia import citation

PAGE = "encyclopedia/ensembles.md"
CID = "ensembles_citation_parses_to_the_same_works"


def record(**changes: object) -> claims.Claim:
    """A passing, fresh record of the entry's citation claim, holding what the snippet generates now."""
    test = "tests/encyclopedia/test_citation.py"
    base = claims.Claim(
        id=CID,
        statement="s",
        page=PAGE,
        snippet="snippets/encyclopedia/citation.py",
        test=f"{test}::test_{CID}",
        values={"csl_json": citation.measure(slug="ensembles", site_url="").csl_json},
        status="passed",
        device="cpu",
        torch="2.13.0",
        hash=claims.code_hash(claims.ROOT / test, "cpu", "2.13.0"),
        recorded_at="2026-12-01T00:00:00+00:00",
        duration_s=0.1,
        counterfactuals=[],
    )
    return dataclasses.replace(base, **changes)


def expand(text: str, *records: claims.Claim) -> str:
    ctx = render.Context(page=PAGE, cpu={r.id: r for r in records})
    return render.render(text, ctx)


def test_the_list_holds_the_records_works_the_pages_facts_and_the_named_works_once_each():
    fid = next(f.id for f in facts.registry().facts.values() if f.work == "veit2016")
    page = (
        f'Veit et al. {{{{ fact("{fid}") }}}} {{{{ claim("{CID}") }}}}\n\n'
        f'{{{{ references("{CID}", "balduzzi2017", "veit2016") }}}}'
    )
    lines = expand(page, record()).split("\n\n", 1)[1].splitlines()
    # The entry itself is no reference; Veit et al. is listed once, though the record, a fact and the call name it.
    assert [line.split("</span>")[1].split(" (")[0] for line in lines] == [
        "Balduzzi, Frean, Leary, Lewis, Ma and McWilliams",
        "Gao Huang, Yu Sun, Zhuang Liu, Daniel Sedra and Kilian Q. Weinberger",
        "Andreas Veit, Michael Wilber and Serge Belongie",
    ]  # by first author; full names where the citation record has them
    veit = lines[2]
    assert "(2016). *[Residual Networks Behave Like Ensembles of Relatively Shallow Networks]" in veit
    assert veit.endswith("(https://arxiv.org/abs/1605.06431)*. arXiv 1605.06431, May 2016; NeurIPS 2016.")
    assert 'id="ref-veit2016residual"' in veit


def test_a_work_the_registry_does_not_hold_is_refused_with_what_to_do():
    with pytest.raises(claims.ClaimError, match=r"'nosuch2099'.*facts/facts.toml"):
        expand('{{ references("%s", "nosuch2099") }}' % CID, record())


def test_a_stale_citation_record_stops_the_list():
    with pytest.raises(claims.ClaimError, match="out of date"):
        expand('{{ references("%s") }}' % CID, record(hash="0" * 64))


def test_many_authors_are_shortened_and_years_never_come_from_an_arxiv_id():
    people = [{"family": f"F{c}", "given": "G"} for c in "abcdefg"]
    item = {
        "id": "k",
        "type": "article",
        "title": "T",
        "issued": {"date-parts": [[2020]]},
        "URL": "u",
        "author": people,
    }
    assert "G Fa, G Fb, G Fc et al. (2020)." in reference_list([item], [])
    work = facts.Work("w", "Xiong et al.", "T2", "v", "g", "x", "arXiv 2002.04745, February 2020; ICML 2020")
    assert "Xiong et al. (2020). *[T2](v)*. arXiv 2002.04745, February 2020; ICML 2020." in reference_list([], [work])
    assert json.loads(citation.measure(slug="ensembles", site_url="").csl_json)[0]["type"] == "entry-encyclopedia"
