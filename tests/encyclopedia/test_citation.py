"""Claims of the encyclopedia entry's "Cite this entry" block: three formats, one record, real parsers."""

import json
import re

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser import middlewares

from sitekit.claims import ROOT
from snippets.encyclopedia import citation as snippet

PAGE = "encyclopedia/residual-stream.md"
HE = ["He", "Zhang", "Ren", "Sun"]
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
            "url": e["url"],
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
            "url": i["URL"],
        }
        for i in items
    ]
    from_ris = [
        {
            "title": e["title"],
            "year": int(e["year"]),
            "family": [a.split(",")[0] for a in e["authors"]],
            "arxiv": e.get("accession_number", "").removeprefix("arXiv:"),
            "url": e["urls"][0],
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


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from one record parse (bibtexparser, a CSL schema, rispy) to the same "
    "works: one key each, He et al. with four separate authors, 2015, arXiv 1512.03385 and its URL.",
    page=PAGE,
    device_independent="parses text files the snippet writes; no tensor is involved",
)
def test_citation_formats_parse_to_the_same_works(claim, device):
    r = snippet.measure(device)
    he = claim.check(agree, r.bibtex, r.csl_json, r.ris)
    people = snippet.WORKS[1].authors
    assert [p.given for p in people] == GIVEN
    one_person = r.bibtex.replace(" and ", ", ", 3)  # authors joined by commas: BibTeX reads one person
    claim.rejects(agree, one_person, r.csl_json, r.ris, because="BibTeX authors joined by commas")
    claim.rejects(agree, r.bibtex + "\n\n" + r.bibtex.split("\n\n")[1], r.csl_json, r.ris, because="a duplicated key")
    claim.rejects(agree, r.bibtex, r.csl_json, r.ris.replace("arXiv:1512.03385", "arXiv:1512.03358"), because="a typo")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.WORKS), year=he["year"])


@pytest.mark.claim(
    "The entry's citation URL is built from the site_url that mkdocs.yml publishes.",
    page=PAGE,
    device_independent="compares two strings from files",
)
def test_citation_url_matches_site_url(claim, device):
    configured = re.search(r"^site_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)[1]

    def same_base(url: str) -> None:
        assert url == configured.rstrip("/") + "/encyclopedia/residual-stream/", (url, configured)

    claim.check(same_base, snippet.WORKS[0].url)
    claim.rejects(same_base, snippet.WORKS[1].url, because="the cited paper's URL, on another host")
    claim.record(url=snippet.WORKS[0].url)
