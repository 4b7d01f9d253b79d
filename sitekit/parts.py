"""Part numbers are bound to the nav: "Part 4" on any page means the page the nav calls Part 4.

Labs are numbered the same way ("Lab 2 · ..." in the nav), and a "Lab N" follows the same rules.

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
PART = re.compile(r"\b(Part|Lab)s?\s+(\d+)\b")
ORDINAL = re.compile(r"^\s*(\d+)\s+·")  # "[4 · Initialisation and scale](...)"
HEADING = re.compile(r"\A(?:---\n.*?\n---\n)?\s*#\s+(Part|Lab)\s+(\d+)\b", re.S)


def _blank(text: str, start: int, end: int) -> str:
    """Spaces over text[start:end], newlines kept (line numbers stay right)."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def check(
    markdown: str, page: str, parts: dict[str, int], source: str = "", labs: dict[str, int] | None = None
) -> list[str]:
    """Problems with the part (and lab) references of a page (docs path `page`); `parts` and `labs`:
    docs path -> number in the nav; `source`, the file as written, puts line numbers right after front
    matter."""
    numbering = {"Part": parts, "Lab": labs or {}}
    at = source.find(markdown) if source and markdown else -1
    first = source[:at].count("\n") if at > 0 else 0
    prose = "\n".join(line if is_prose else "" for line, is_prose in outside_fences(markdown))
    for pattern in (CODE_SPAN, MACRO):
        for m in reversed(list(pattern.finditer(prose))):
            prose = _blank(prose, m.start(), m.end())
    out: list[str] = []

    def where(pos: int) -> str:
        return f"docs/{page}:{first + prose.count(chr(10), 0, pos) + 1}"

    def number_of(target: str, kind: str = "Part") -> int | None:
        path = target.split("#", 1)[0]
        uri = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
        return numbering[kind].get(uri)

    heading = HEADING.match(prose)
    if heading and page in numbering[heading[1]] and int(heading[2]) != numbering[heading[1]][page]:
        out.append(
            f"{where(heading.start(2))}: the heading says {heading[1]} {heading[2]}, but the nav (mkdocs.yml) "
            f"numbers this page {heading[1]} {numbering[heading[1]][page]}: make them agree."
        )
    if heading:
        prose = _blank(prose, heading.start(), heading.end())
    for link in reversed(list(LINK.finditer(prose))):
        text, target = link["text"], link["target"]
        said = [(m[0], m[1], int(m[2]), m.start()) for m in PART.finditer(text)]
        ordinal = ORDINAL.match(text)
        if ordinal and number_of(target) is not None:
            said.append((ordinal[0].strip(), "Part", int(ordinal[1]), ordinal.start()))
        for words, kind, n, pos in said:
            actual = number_of(target, kind)
            at = where(link.start() + 1 + pos)
            if re.match(r"(?:Part|Lab)s ", words):
                out.append(f"{at}: {words!r} is one link for several pages: link each to its own page.")
            elif actual is None:
                out.append(
                    f"{at}: {words!r} links to {target!r}, which is not a numbered {kind.lower()} in "
                    f"mkdocs.yml's nav: link it to the {kind.lower()} it means."
                )
            elif n != actual:
                out.append(
                    f"{at}: {words!r} links to {target!r}, which the nav (mkdocs.yml) numbers {kind} {actual}: "
                    f"write {actual}."
                )
        prose = _blank(prose, link.start(), link.end())
    for m in PART.finditer(prose):
        uri = {n: u for u, n in numbering[m[1]].items()}.get(int(m[2]))
        example = f"[{m[0]}]({posixpath.relpath(uri, posixpath.dirname(page) or '.')})" if uri else "a link"
        out.append(
            f"{where(m.start())}: {m[0]!r} is not a link, so nothing keeps its number right when the pages "
            f"move: write it as a link to the {m[1].lower()}'s page, {example}."
        )
    return sorted(out, key=lambda s: (s.split(":")[0], int(s.split(":")[1])))
