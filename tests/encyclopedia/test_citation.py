"""Claims of the encyclopedia entry's "Cite this entry" block: three formats, one record, real parsers."""

import json
import os
from urllib.parse import urlparse

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser import middlewares
from mkdocs.utils.yaml import yaml_load

from sitekit.claims import ROOT
from snippets.encyclopedia import citation as snippet

PAGE = "encyclopedia/residual-stream.md"
HE = ["He", "Zhang", "Ren", "Sun"]
TEXT = "parses text the snippet writes from Python records; no tensor is involved"
ROUND_TRIP = "the three formats parse back to the record's works, field for field (string and integer equality)"
GIVEN = ["Kaiming", "Xiangyu", "Shaoqing", "Jian"]

# The parts of the CSL 1.0.2 input schema (csl-data.json) that these records use, restated here.
NAME = {
    "type": "object",
    "properties": {k: {"type": "string"} for k in ("family", "given", "literal")},
    "additionalProperties": False,
}
CSL_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["type", "id"],
        "properties": {
            "type": {"enum": ["article", "entry-encyclopedia", "article-journal", "paper-conference", "webpage"]},
            "id": {"type": ["string", "number"]},
            "author": {"type": "array", "items": NAME},
            "issued": {
                "type": "object",
                "properties": {"date-parts": {"type": "array", "items": {"type": "array", "maxItems": 3}}},
                "additionalProperties": False,
            },
            **{k: {"type": "string"} for k in ("title", "URL", "DOI", "publisher", "note", "container-title")},
            "number": {"type": ["string", "number"]},
        },
        "additionalProperties": False,
    },
}


# --- the other entries: one record each, the same three parsers -------------------------------------


def agree_entry(bib: str, csl_json: str, ris: str, slug: str) -> None:
    """All three formats parse to the same works, and those are the entry's record, work by work."""
    parsed = parse_all(bib, csl_json, ris)
    keys = parsed.pop("keys")
    record = snippet.ENTRIES[slug]
    assert keys == [w.key for w in record] and len(set(keys)) == len(keys), keys
    first = parsed["bibtex"]
    for fmt, works in parsed.items():
        assert works == first, (fmt, works, first)
    for work, got in zip(record, first, strict=True):
        family = [p.family for p in work.authors] or [work.organisation]
        assert (got["title"], got["year"], got["family"], got["arxiv"], got["url"]) == (
            work.title,
            work.year,
            family,
            work.arxiv,
            work.url,
        ), (got, work)


def rejects_corrupted(claim, r, slug: str, arxiv_id: str) -> None:
    """The check fails on the three mistakes a hand-typed citation makes."""
    one_person = r.bibtex.replace(" and ", ", ", 3)  # authors joined by commas: BibTeX reads one person
    claim.rejects(agree_entry, one_person, r.csl_json, r.ris, slug, because="BibTeX authors joined by commas")
    claim.rejects(
        agree_entry, r.bibtex + "\n\n" + r.bibtex.split("\n\n")[1], r.csl_json, r.ris, slug, because="a duplicated key"
    )
    typo = arxiv_id[:-2] + arxiv_id[-1] + arxiv_id[-2]
    claim.rejects(
        agree_entry, r.bibtex, r.csl_json, r.ris.replace(f"arXiv:{arxiv_id}", f"arXiv:{typo}"), slug, because="a typo"
    )


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Veit, Wilber and Belongie, and Huang et al., each author separate.",
    page="encyclopedia/ensembles.md",
    device_independent=TEXT,
    exact=ROUND_TRIP,
)
def test_ensembles_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="ensembles")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "ensembles")
    rejects_corrupted(claim, r, "ensembles", "1605.06431")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["ensembles"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Fixup, SkipInit and ReZero, each author separate.",
    page="encyclopedia/scaled-branches.md",
    device_independent=TEXT,
    exact=ROUND_TRIP,
)
def test_scaled_branches_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="scaled-branches")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "scaled-branches")
    rejects_corrupted(claim, r, "scaled-branches", "2003.04887")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["scaled-branches"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Xiong et al., Liu et al. (Admin), Wang et al. (DeepNet) and Kim et al. (Peri-LN), "
    "each author separate.",
    page="encyclopedia/normalisation-placement.md",
    device_independent=TEXT,
    exact=ROUND_TRIP,
)
def test_normalisation_placement_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="normalisation-placement")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "normalisation-placement")
    rejects_corrupted(claim, r, "normalisation-placement", "2002.04745")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["normalisation-placement"]))


def parse_all(bib: str, csl_json: str, ris: str) -> dict[str, list[dict]]:
    """Each format through a real parser, reduced to (key/title, year, family names, arXiv id, URL) per work."""
    library = bibtexparser.parse_string(
        bib, append_middleware=[middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()]
    )
    assert not library.failed_blocks, library.failed_blocks
    from_bib = [
        {
            "title": e["title"].strip("{}"),
            "year": int(e["year"]),
            "family": [" ".join(n.last).strip("{}") for n in e["author"]],
            "arxiv": e.fields_dict["eprint"].value if "eprint" in e.fields_dict else "",
            "url": e.fields_dict["url"].value if "url" in e.fields_dict else "",
        }
        for e in library.entries
    ]
    items = json.loads(csl_json)
    jsonschema.validate(items, CSL_SCHEMA)
    from_csl = [
        {
            "title": i["title"],
            "year": i["issued"]["date-parts"][0][0],
            "family": [a.get("family", a.get("literal")) for a in i["author"]],
            "arxiv": str(i.get("number", "")),
            "url": i.get("URL", ""),
        }
        for i in items
    ]
    from_ris = [
        {
            "title": e["title"],
            "year": int(e["year"]),
            "family": [a.split(",")[0] for a in e["authors"]],
            "arxiv": e.get("accession_number", "").removeprefix("arXiv:"),
            "url": e.get("urls", [""])[0],
        }
        for e in rispy.loads(ris)
    ]
    return {"bibtex": from_bib, "csl": from_csl, "ris": from_ris, "keys": [e.key for e in library.entries]}


def agree(bib: str, csl_json: str, ris: str) -> dict:
    parsed = parse_all(bib, csl_json, ris)
    keys = parsed.pop("keys")
    assert len(keys) == len(set(keys)) == len(snippet.WORKS), keys
    first = parsed["bibtex"]
    for fmt, works in parsed.items():
        assert works == first, (fmt, works, first)
    he = next(w for w in first if w["arxiv"] == "1512.03385")
    assert he["family"] == HE and he["year"] == 2015 and he["url"] == "https://arxiv.org/abs/1512.03385", he
    return he


@pytest.fixture(scope="module")
def generated():
    """The three formats, generated once for both claims (nothing is random or on a device)."""
    return snippet.measure()


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from one record parse (bibtexparser, a CSL schema, rispy) to the same "
    "works: one key each, He et al. with four separate authors, 2015, arXiv 1512.03385 and its URL.",
    page=PAGE,
    device_independent=TEXT,
    exact=ROUND_TRIP,
)
def test_citation_formats_parse_to_the_same_works(claim, generated):
    r = generated
    he = claim.check(agree, r.bibtex, r.csl_json, r.ris)
    people = snippet.WORKS[1].authors
    assert [p.given for p in people] == GIVEN
    one_person = r.bibtex.replace(" and ", ", ", 3)  # authors joined by commas: BibTeX reads one person
    claim.rejects(agree, one_person, r.csl_json, r.ris, because="BibTeX authors joined by commas")
    claim.rejects(agree, r.bibtex + "\n\n" + r.bibtex.split("\n\n")[1], r.csl_json, r.ris, because="a duplicated key")
    claim.rejects(agree, r.bibtex, r.csl_json, r.ris.replace("arXiv:1512.03385", "arXiv:1512.03358"), because="a typo")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.WORKS), year=he["year"])


def published_site_url() -> str:
    """The address the build publishes: SITE_URL, which mkdocs.yml's site_url reads; "" where unset."""
    with open(ROOT / "mkdocs.yml", encoding="utf-8") as f:
        configured = str(yaml_load(f).get("site_url") or "")
    published = os.environ.get("SITE_URL", "").strip()
    if published:
        assert configured == published, f"mkdocs.yml's site_url should read SITE_URL, got {configured!r}"
    else:  # an unpublished build is addressed as the local preview, never as a public host
        assert urlparse(configured).hostname in {"127.0.0.1", "localhost"}, configured
    return published


@pytest.mark.claim(
    "The entry's citation URL is built from the site_url the build publishes (SITE_URL), and a build "
    "without one cites no URL at all rather than a placeholder.",
    page=PAGE,
    device_independent="compares strings from files and the environment",
    exact="the cited URL is string-equal to the one built from SITE_URL, or absent without it",
)
def test_citation_url_matches_site_url(claim, generated):
    configured = published_site_url()
    expected = configured.rstrip("/") + "/encyclopedia/residual-stream/" if configured else ""
    r = generated

    def cites(url: str, bib: str, ris: str) -> None:
        assert url == expected, (url, expected)
        entry_bib, entry_ris = bib.split("\n\n")[0], ris.split("\n\n")[0]
        assert ("url = " in entry_bib) == bool(expected) and ("UR  - " in entry_ris) == bool(expected)

    claim.check(cites, snippet.WORKS[0].url, r.bibtex, r.ris)
    claim.rejects(cites, snippet.WORKS[1].url, r.bibtex, r.ris, because="the cited paper's URL, on another host")
    claim.record(url=snippet.WORKS[0].url or "(none: no SITE_URL set)", site_url=configured or "(not set)")
