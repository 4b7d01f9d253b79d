"""Claims of the encyclopedia entry's "Cite this entry" block: three formats, one record, real parsers."""

import json
import os
from urllib.parse import urljoin, urlparse

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser import middlewares
from mkdocs.config import config_options, defaults
from mkdocs.structure.files import File
from mkdocs.utils.yaml import yaml_load

from sitekit.claims import ROOT
from snippets.encyclopedia import citation as snippet

PAGE = "encyclopedia/residual-stream.md"
HE = ["He", "Zhang", "Ren", "Sun"]
TEXT = "parses text the snippet writes from Python records; no tensor is involved"
# A round trip holds by construction: the snippet writes each format from the record's fields, and the check
# reads those fields back. What it shows is that three independent parsers read the text as written (one
# person per author, one entry per key); no alternative citation is staged for it to reject.
ROUND_TRIP = (
    "a round trip: the three formats are written from the record's fields and bibtexparser, a CSL schema and "
    "rispy read the same fields back (string and integer equality)"
)
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


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Veit, Wilber and Belongie, and Huang et al., each author separate.",
    page="encyclopedia/ensembles.md",
    device_independent=TEXT,
    identity=ROUND_TRIP,
)
def test_ensembles_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="ensembles")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "ensembles")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["ensembles"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Fixup, SkipInit and ReZero, each author separate.",
    page="encyclopedia/scaled-branches.md",
    device_independent=TEXT,
    identity=ROUND_TRIP,
)
def test_scaled_branches_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="scaled-branches")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "scaled-branches")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["scaled-branches"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Xiong et al., Liu et al. (Admin), Wang et al. (DeepNet) and Kim et al. (Peri-LN), "
    "each author separate.",
    page="encyclopedia/normalisation-placement.md",
    device_independent=TEXT,
    identity=ROUND_TRIP,
)
def test_normalisation_placement_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="normalisation-placement")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "normalisation-placement")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["normalisation-placement"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Zhu et al. (Hyper-Connections) and Xie et al. (mHC), each author separate.",
    page="encyclopedia/hyper-connections.md",
    device_independent=TEXT,
    identity=ROUND_TRIP,
)
def test_hyper_connections_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="hyper-connections")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "hyper-connections")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["hyper-connections"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Chen et al. (neural ODEs), Marion et al. and Dey et al. (CompleteP), each author "
    "separate.",
    page="encyclopedia/depth-scaling.md",
    device_independent=TEXT,
    identity=ROUND_TRIP,
)
def test_depth_scaling_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="depth-scaling")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "depth-scaling")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["depth-scaling"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Brock et al. (NF-ResNets), Hu et al. (LoRA) and Peebles and Xie (DiT), each author "
    "separate.",
    page="encyclopedia/norm-free.md",
    device_independent=TEXT,
    identity=ROUND_TRIP,
)
def test_norm_free_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="norm-free")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "norm-free")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["norm-free"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Ronneberger et al. (U-Net), Ho et al. (DDPM) and Bao et al. (U-ViT), each author "
    "separate.",
    page="encyclopedia/unet-skips.md",
    device_independent=TEXT,
    identity=ROUND_TRIP,
)
def test_unet_skips_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="unet-skips")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "unet-skips")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["unet-skips"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Belrose et al. (the tuned lens) and Turner et al. (activation addition), each "
    "author separate.",
    page="encyclopedia/trained-stream.md",
    device_independent=TEXT,
    identity=ROUND_TRIP,
)
def test_trained_stream_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="trained-stream")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "trained-stream")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["trained-stream"]))


@pytest.mark.claim(
    "BibTeX, CSL-JSON and RIS generated from the entry's one record parse (bibtexparser, a CSL schema, rispy) to "
    "the same works: the entry, Pagliardini et al. (DenseFormer), Zhou et al. (ResFormer), Menghani et al. "
    "(LAuReL) and Chowdhery et al. (PaLM), each author separate.",
    page="encyclopedia/variants.md",
    device_independent=TEXT,
    identity=ROUND_TRIP,
)
def test_variants_citation_parses_to_the_same_works(claim):
    r = snippet.measure(slug="variants")
    claim.check(agree_entry, r.bibtex, r.csl_json, r.ris, "variants")
    claim.record(bibtex=r.bibtex, csl_json=r.csl_json, ris=r.ris, works=len(snippet.ENTRIES["variants"]))


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
    identity=ROUND_TRIP,
)
def test_citation_formats_parse_to_the_same_works(claim, generated):
    r = generated
    he = claim.check(agree, r.bibtex, r.csl_json, r.ris)
    people = snippet.WORKS[1].authors
    assert [p.given for p in people] == GIVEN
    claim.record(
        bibtex=r.bibtex,
        csl_json=r.csl_json,
        ris=r.ris,
        works=len(snippet.WORKS),
        year=he["year"],
        authors=len(he["family"]),  # the "four separate authors", as the parsers read them
    )


# The address a published build is checked at when this build publishes none (the other branch of the claim
# below): a reserved example host, never shown on a page. CI's main-branch build sets SITE_URL to its Pages
# address instead, and then the unpublished build is the other branch.
OTHER_SITE_URL = "https://residual-stream.example/site/"


def published_entry_url(monkeypatch, site_url: str) -> str:
    """The address mkdocs gives this page in a build with SITE_URL = site_url ("" for a build without one).

    mkdocs.yml's site_url must read SITE_URL; a build without it is addressed as the local preview (or has
    no site_url at all, where SITE_URL is set but empty), never as a public host, and its entry has no URL.
    mkdocs's own rules make the address: site_url as a directory URL, then the page's URL under it.
    """
    with monkeypatch.context() as env:  # restored before the claim is recorded (its fingerprint reads SITE_URL)
        if site_url:
            env.setenv("SITE_URL", site_url)
        else:
            env.delenv("SITE_URL", raising=False)
        with open(ROOT / "mkdocs.yml", encoding="utf-8") as f:
            config = yaml_load(f)
    configured = str(config.get("site_url") or "")
    if not site_url:
        assert not configured or urlparse(configured).hostname in {"127.0.0.1", "localhost"}, configured
        return ""
    assert configured == site_url, f"mkdocs.yml's site_url should read SITE_URL, got {configured!r}"
    directory_urls = config.get("use_directory_urls", defaults.MkDocsConfig.use_directory_urls.default)
    page = File(PAGE, None, "site", directory_urls).url
    return urljoin(config_options.URL(is_dir=True).validate(configured), page)


def cites_at(expected: str):
    """A check that the entry's record cites `expected` in all three formats, read by their parsers, and
    that with `expected` = "" no format has a URL field at all (no placeholder)."""

    def cites(bib: str, csl_json: str, ris: str) -> None:
        parsed = parse_all(bib, csl_json, ris)
        parsed.pop("keys")
        for fmt, works in parsed.items():
            assert works[0]["url"] == expected, (fmt, works[0]["url"], expected)
        fields = (
            "url" in bibtexparser.parse_string(bib).entries[0].fields_dict,
            "URL" in json.loads(csl_json)[0],
            "urls" in rispy.loads(ris)[0],
        )
        assert fields == (bool(expected),) * 3, (fields, expected)

    return cites


@pytest.mark.claim(
    "The entry's citation URL is built from the site_url the build publishes (SITE_URL), and a build "
    "without one cites no URL at all rather than a placeholder.",
    page=PAGE,
    device_independent="compares strings from files and the environment",
    exact="in this build and in one of the other kind (published if this one is not, and the reverse), the "
    "cited URL is string-equal to the page's address under mkdocs's site_url, or absent where there is none",
)
def test_citation_url_matches_site_url(claim, generated, monkeypatch):
    this_site = os.environ.get("SITE_URL", "").strip()
    other_site = "" if this_site else OTHER_SITE_URL  # the other branch: runs in every build
    address_here = published_entry_url(monkeypatch, this_site)
    address_there = published_entry_url(monkeypatch, other_site)
    here, there = cites_at(address_here), cites_at(address_there)
    other = snippet.measure(site_url=other_site)  # the records a build of the other kind generates
    other_kind = "an unpublished build" if this_site else f"a build published at {other_site}"

    claim.check(here, generated.bibtex, generated.csl_json, generated.ris)
    claim.check(there, other.bibtex, other.csl_json, other.ris)
    claim.rejects(here, other.bibtex, other.csl_json, other.ris, because=f"the citation {other_kind} generates")
    claim.rejects(
        there, generated.bibtex, generated.csl_json, generated.ris, because=f"this build's citation, in {other_kind}"
    )
    claim.record(
        url=address_here or "(none: no SITE_URL set)",
        site_url=this_site or "(not set)",
        other_build_url=address_there or "(none: no SITE_URL set)",
    )
