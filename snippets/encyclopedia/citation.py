"""Encyclopedia, The Residual Stream: the one record behind every "Cite this entry" format.

BibTeX, CSL-JSON and RIS are all generated from WORKS below; nothing on the page is typed by hand.
Run `python -m snippets.encyclopedia.citation` to print the three formats.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

# The address the site is published at: mkdocs.yml reads the same SITE_URL (the Pages workflow sets
# it). Without one, the entry's records carry no URL rather than an invented one; a test checks.
SITE_URL = os.environ.get("SITE_URL", "").strip()


# --8<-- [start:record]
@dataclass(frozen=True)
class Person:
    """One author, split the way every format needs it."""

    given: str
    family: str


@dataclass(frozen=True)
class Work:
    """A citable work; `authors` holds people, `organisation` a group author instead."""

    key: str
    kind: str  # "entry" (this encyclopedia entry) or "preprint" (an arXiv e-print)
    title: str
    year: int
    url: str
    authors: tuple[Person, ...] = ()
    organisation: str = ""
    container: str = ""  # the work this one is part of (the site, for an entry)
    arxiv: str = ""
    primary_class: str = ""
    note: str = ""


# --8<-- [end:record]


# --8<-- [start:works]
def entry(key: str, title: str, slug: str, year: int = 2026) -> Work:
    """The record of one entry of this site's encyclopedia (later entries reuse it)."""
    return Work(
        key=key,
        kind="entry",
        title=title,
        year=year,
        url=f"{SITE_URL.rstrip('/')}/encyclopedia/{slug}/" if SITE_URL else "",
        organisation="The Residual Stream contributors",
        container="The Residual Stream: an encyclopedia of residual connections",
    )


WORKS = (
    entry("residualstream2026", "The Residual Stream", "residual-stream"),
    Work(
        key="he2015deep",
        kind="preprint",
        title="Deep Residual Learning for Image Recognition",
        year=2015,
        url="https://arxiv.org/abs/1512.03385",
        authors=(
            Person("Kaiming", "He"),
            Person("Xiangyu", "Zhang"),
            Person("Shaoqing", "Ren"),
            Person("Jian", "Sun"),
        ),
        arxiv="1512.03385",
        primary_class="cs.CV",
        note="Published in the Proceedings of CVPR 2016, pages 770-778",
    ),
)
# --8<-- [end:works]


# --8<-- [start:bibtex]
def bibtex(w: Work) -> str:
    """BibTeX: people joined by `and`; a group author braced so it stays one name."""
    names = (
        " and ".join(f"{p.family}, {p.given}" for p in w.authors)
        or "{" + w.organisation + "}"
    )
    fields = {
        "author": names,
        "title": "{" + w.title + "}",
        "year": str(w.year),
    }
    if w.url:
        fields["url"] = w.url
    if w.kind == "entry":
        fields["howpublished"] = w.container
    else:
        fields.update(
            eprint=w.arxiv,
            archiveprefix="arXiv",
            primaryclass=w.primary_class,
            note=w.note,
        )
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items())
    return f"@misc{{{w.key},\n{body}\n}}"


# --8<-- [end:bibtex]


# --8<-- [start:csl]
def csl(w: Work) -> dict:
    """CSL-JSON item: each person a {family, given} object, the date as date-parts."""
    item = {
        "id": w.key,
        "title": w.title,
        "issued": {"date-parts": [[w.year]]},
    }
    if w.url:
        item["URL"] = w.url
    item["author"] = [{"family": p.family, "given": p.given} for p in w.authors] or [
        {"literal": w.organisation}
    ]
    if w.kind == "entry":
        item.update(type="entry-encyclopedia", **{"container-title": w.container})
    else:
        item.update(
            type="article",
            publisher="arXiv",
            number=w.arxiv,
            DOI=f"10.48550/arXiv.{w.arxiv}",
            note=w.note,
        )
    return item


# --8<-- [end:csl]


# --8<-- [start:ris]
def ris(w: Work) -> str:
    """RIS: one AU line per person as `Family, Given`; ER closes the record."""
    tags = [("TY", "ENCYC" if w.kind == "entry" else "UNPB"), ("TI", w.title)]
    tags += [("AU", f"{p.family}, {p.given}") for p in w.authors] or [
        ("AU", w.organisation)
    ]
    tags += [("PY", str(w.year))] + ([("UR", w.url)] if w.url else [])
    if w.kind == "entry":
        tags.append(("T2", w.container))
    else:
        tags += [
            ("DB", "arXiv"),
            ("AN", f"arXiv:{w.arxiv}"),
            ("DO", f"10.48550/arXiv.{w.arxiv}"),
            ("N1", w.note),
        ]
    return "\n".join(f"{t}  - {v}" for t, v in tags) + "\nER  - "


# --8<-- [end:ris]


@dataclass(frozen=True)
class Result:
    """The three formats, each holding every work in WORKS."""

    bibtex: str
    csl_json: str
    ris: str


def measure(device: str = "cpu", seed: int = 0) -> Result:
    """Generate every format from WORKS (device and seed are unused: nothing here is random)."""
    return Result(
        bibtex="\n\n".join(bibtex(w) for w in WORKS),
        csl_json=json.dumps([csl(w) for w in WORKS], indent=2, ensure_ascii=False),
        ris="\n\n".join(ris(w) for w in WORKS) + "\n",
    )


if __name__ == "__main__":
    r = measure()
    print(r.bibtex, r.csl_json, r.ris, sep="\n\n")
