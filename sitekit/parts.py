"""Part numbers are bound to the nav: "Part 4" on any page means the page the nav calls Part 4.

The module's parts are numbered by their titles in mkdocs.yml's nav ("Part 4 · Initialisation and
scale"). A page that says "Part 4" in prose would go stale the day the parts are reordered, so every
"Part N" must be the text of a link to the page the nav numbers N (`[Part 4](initialisation.md)`,
`[Part 4's stacks](initialisation.md#anchor)`); the build then checks the number against the link's
target. The same holds for a part's ordinal before its title (`[4 · Initialisation](initialisation.md)`)
and for a part page's own heading (`# Part 4 · ...`). "Parts 1 and 4" cannot be one link: link each.

Code (fences, `code spans`) and macro calls are not prose; a macro's text (a figure's alt text) cannot
hold a link, so it names the topic instead of a part number.
"""

from __future__ import annotations

import posixpath
import re

from sitekit.render import outside_fences

CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
MACRO = re.compile(r"\{\{.*?\}\}", re.S)
# A Markdown link: [text](target "title"); the text may wrap over lines but holds no brackets.
LINK = re.compile(r"\[(?P<text>[^\[\]]*)\]\((?P<target>[^)\s]*)(?:\s+\"[^\"]*\")?\)")
PART = re.compile(r"\bParts?\s+(\d+)\b")
ORDINAL = re.compile(r"^\s*(\d+)\s+·")  # "[4 · Initialisation and scale](...)"
HEADING = re.compile(r"\A(?:---\n.*?\n---\n)?\s*#\s+Part\s+(\d+)\b", re.S)


def _blank(text: str, start: int, end: int) -> str:
    """Spaces over text[start:end], newlines kept (line numbers stay right)."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def check(markdown: str, page: str, parts: dict[str, int], source: str = "") -> list[str]:
    """Problems with the part references of a page (docs path `page`); `parts`: docs path -> number;
    `source`, the file as written, puts line numbers right after front matter."""
    at = source.find(markdown) if source and markdown else -1
    first = source[:at].count("\n") if at > 0 else 0
    prose = "\n".join(line if is_prose else "" for line, is_prose in outside_fences(markdown))
    for pattern in (CODE_SPAN, MACRO):
        for m in reversed(list(pattern.finditer(prose))):
            prose = _blank(prose, m.start(), m.end())
    out: list[str] = []

    def where(pos: int) -> str:
        return f"docs/{page}:{first + prose.count(chr(10), 0, pos) + 1}"

    def number_of(target: str) -> int | None:
        path = target.split("#", 1)[0]
        uri = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
        return parts.get(uri)

    heading = HEADING.match(prose)
    if heading and page in parts and int(heading[1]) != parts[page]:
        out.append(
            f"{where(heading.start(1))}: the heading says Part {heading[1]}, but the nav (mkdocs.yml) numbers "
            f"this page Part {parts[page]}: make them agree."
        )
    if heading:
        prose = _blank(prose, heading.start(), heading.end())
    for link in reversed(list(LINK.finditer(prose))):
        text, target = link["text"], link["target"]
        said = [(m[0], int(m[1]), m.start()) for m in PART.finditer(text)]
        ordinal = ORDINAL.match(text)
        if ordinal and number_of(target) is not None:
            said.append((ordinal[0].strip(), int(ordinal[1]), ordinal.start()))
        if said:
            actual = number_of(target)
            for words, n, pos in said:
                at = where(link.start() + 1 + pos)
                if words.startswith("Parts "):
                    out.append(f"{at}: {words!r} is one link for several parts: link each part to its own page.")
                elif actual is None:
                    out.append(
                        f"{at}: {words!r} links to {target!r}, which is not a numbered part in mkdocs.yml's nav: "
                        "link it to the part it means."
                    )
                elif n != actual:
                    out.append(
                        f"{at}: {words!r} links to {target!r}, which the nav (mkdocs.yml) numbers Part {actual}: "
                        f"write {actual}."
                    )
        prose = _blank(prose, link.start(), link.end())
    pages = {n: uri for uri, n in parts.items()}
    for m in PART.finditer(prose):
        uri = pages.get(int(m[1]))
        example = f"[{m[0]}]({posixpath.relpath(uri, posixpath.dirname(page) or '.')})" if uri else "a link"
        out.append(
            f"{where(m.start())}: {m[0]!r} is not a link, so nothing keeps its number right when the parts "
            f"move: write it as a link to the part's page, {example}."
        )
    return sorted(out, key=lambda s: (s.split(":")[0], int(s.split(":")[1])))
