"""The verified-site contract, checked on plain files (no MkDocs needed).

Each check returns a list of problems; every problem names the file (and line) and says what to do.
The MkDocs hook refuses to build while any remain, and tests/contract shows each one firing.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from sitekit import listing_width
from sitekit.claims import ROOT

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)(?P<attrs>[^\n]*)$")
INCLUDE = re.compile(r'^\s*--8<--\s+"(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"\s*$')
SECTION = re.compile(r"#\s*--8<--\s*\[(?P<kind>start|end):(?P<name>[\w-]+)\]")
PYTHON_LANGS = {"py", "python", "python3", "pycon", "ipython"}


@dataclass(frozen=True)
class Include:
    """One `--8<-- "file:section"` line found in a page."""

    page: Path
    line: int
    path: str
    section: str | None
    title: str | None


def _fences(text: str) -> list[tuple[int, str, str, list[str]]]:
    """(line number, language, attributes, body lines) for each fenced block of a Markdown text."""
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, fence = i, m["fence"]
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        blocks.append((start + 1, m["lang"].lower(), m["attrs"], body))
        i += 1
    return blocks


def includes(page: Path, text: str | None = None) -> list[Include]:
    """Every snippet include in a page, with the title of the fence around it."""
    text = page.read_text(encoding="utf-8") if text is None else text
    found = []
    for line, _, attrs, body in _fences(text):
        title = re.search(r'title="([^"]*)"', attrs)
        for offset, row in enumerate(body, start=1):
            m = INCLUDE.match(row)
            if m:
                found.append(Include(page, line + offset, m["path"], m["section"], title and title[1]))
    return found


def sections(snippet: Path) -> dict[str, int]:
    """Section name -> line of its start marker, for a snippet file (problems raise ValueError)."""
    opened: dict[str, int] = {}
    closed: set[str] = set()
    for n, row in enumerate(snippet.read_text(encoding="utf-8").splitlines(), start=1):
        m = SECTION.search(row)
        if not m:
            continue
        if m["kind"] == "start":
            opened[m["name"]] = n
        elif m["name"] not in opened:
            raise ValueError(f"{_rel(snippet)}:{n}: [end:{m['name']}] has no [start:{m['name']}]")
        else:
            closed.add(m["name"])
    unclosed = set(opened) - closed
    if unclosed:
        name = sorted(unclosed)[0]
        raise ValueError(f"{_rel(snippet)}:{opened[name]}: section {name!r} is never closed")
    return opened


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


TITLE_SEPARATOR = " · "


def listing_title_ok(title: str | None, path: str) -> bool:
    """A listing's title is its file's path, or a description, " · " and the path (the path stays visible)."""
    if title is None:
        return False
    return title == path or (title.endswith(TITLE_SEPARATOR + path) and bool(title[: -len(path) - 3].strip()))


def check_page(page: Path, text: str | None = None, root: Path = ROOT) -> list[str]:
    """Inline Python, includes of missing files or sections, and untitled listings in one page."""
    text = page.read_text(encoding="utf-8") if text is None else text
    problems = []
    for line, lang, _attrs, body in _fences(text):
        first = next((row for row in body if row.strip()), "")
        if lang in PYTHON_LANGS and not INCLUDE.match(first):
            problems.append(
                f"{_rel(page)}:{line}: inline Python code. Move it into snippets/<topic>/<name>.py "
                "between `# --8<-- [start:NAME]` and `# --8<-- [end:NAME]`, and write "
                '`--8<-- "snippets/<topic>/<name>.py:NAME"` in the fence instead.'
            )
    in_fence = {n for n, _, _, body in _fences(text) for n in range(n, n + len(body) + 2)}
    for n, row in enumerate(text.splitlines(), start=1):
        if n not in in_fence and INCLUDE.match(row):
            problems.append(
                f"{_rel(page)}:{n}: an include outside a code fence. Put it in a fence titled with the "
                "file, or link to the file instead."
            )
    page_lines = text.splitlines()
    for inc in includes(page, text):
        target = root / inc.path
        where = f"{_rel(page)}:{inc.line}"
        if not target.is_file():
            problems.append(f"{where}: includes {inc.path}, which does not exist. Fix the path.")
            continue
        if inc.path.endswith(".py") and not listing_title_ok(inc.title, inc.path):
            problems.append(
                f'{where}: give the fence around this include title="What the code is · {inc.path}" '
                f'(or title="{inc.path}") so readers see what the listing is and which file it comes from.'
            )
        if inc.section is not None:
            try:
                names = sections(target)
            except ValueError as err:
                problems.append(f"{where}: {err}")
                continue
            if inc.section not in names:
                problems.append(
                    f"{where}: {inc.path} has no section {inc.section!r}. Mark it in the file with "
                    f"`# --8<-- [start:{inc.section}]` ... `# --8<-- [end:{inc.section}]`."
                )
                continue
        if inc.path.endswith(".py"):
            problems.extend(f"{where}: {p}" for p in result_comments(target, inc.section))
            problems.extend(
                f"{where}: {p}"
                for p in listing_width.wide_lines(page_lines, inc.line - 1, target, inc.section, inc.path)
            )
    return problems


# A listing's comment that states what the code produces ("~1e-33", "-> 0.47", "prints 3.7") is a measured
# number typed by hand: the page fills it in from the claim that measures it instead.
RESULT_COMMENT = re.compile(
    r"(?:~|≈|\babout\b|\broughly\b|\baround\b|\bapprox\w*|\bprints?\b|\bgives\b|\breturns\b|->|→|=>)\s*"
    r"(?:[a-z ]{0,12}\s)?(?P<num>[-−+]?\d[\d.,]*(?:e[-+]?\d+)?)",
    re.I,
)


def result_comments(path: Path, section: str | None) -> list[str]:
    """Comments in a listing (one section, or the whole file) that state a result in digits."""
    import io
    import tokenize

    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    inside = section is None
    keep: list[tuple[int, str]] = []
    for n, row in enumerate(lines, start=1):
        m = SECTION.search(row)
        if m and m["name"] == section:
            inside = m["kind"] == "start"
            continue
        if inside:
            keep.append((n, row))
    out = []
    source = "".join(row for _, row in keep)
    numbers = [n for n, _ in keep]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        for m in RESULT_COMMENT.finditer(tok.string):
            if m["num"] not in ("0", "1"):
                line = numbers[tok.start[0] - 1] if tok.start[0] - 1 < len(numbers) else "?"
                out.append(
                    f"the listing comment at {_rel(path)}:{line} states a result, {m[0].strip()!r}: a reader takes it "
                    "for a measurement. Say it in the page's prose from the claim that records it, or drop the number"
                )
    return out


NOT_A_LISTING = "# site: not-a-listing"


def snippet_files(root: Path = ROOT) -> list[Path]:
    """Every snippet module, except packages' __init__ files."""
    return sorted(p for p in (root / "snippets").rglob("*.py") if p.name != "__init__.py")


def check_tree(root: Path = ROOT) -> list[str]:
    """Site-wide rules: every listing is included by a page, every snippet is proven by a test."""
    problems = []
    pages = sorted((root / "docs").rglob("*.md"))
    used: dict[str, set[str | None]] = {}
    for page in pages:
        problems.extend(check_page(page, root=root))
        for inc in includes(page):
            used.setdefault(inc.path, set()).add(inc.section)
    for snippet in snippet_files(root):
        rel = str(snippet.relative_to(root))
        topic, name = snippet.parent.name, snippet.name
        test = root / "tests" / topic / f"test_{name}"
        if not test.is_file():
            problems.append(
                f"{rel}: untested snippet. Add tests/{topic}/test_{name} with a "
                "@pytest.mark.claim test for each sentence the page says about it."
            )
        elif "mark.claim" not in test.read_text(encoding="utf-8"):
            problems.append(f"tests/{topic}/test_{name}: has no @pytest.mark.claim test.")
        if NOT_A_LISTING in snippet.read_text(encoding="utf-8"):
            continue  # e.g. a notebook source or a download; its own page links it
        try:
            names = sections(snippet)
        except ValueError as err:
            problems.append(str(err))
            continue
        if not names:
            problems.append(
                f"{rel}: holds no listing. Mark one with `# --8<-- [start:NAME]` / `[end:NAME]`, "
                f"or, for a file readers download or run, add the line `{NOT_A_LISTING} (why)`."
            )
        elif rel not in used:
            problems.append(f'{rel}: no page includes it. Include it with --8<-- "{rel}:SECTION" or delete it.')
        else:
            for name_ in sorted(set(names) - used[rel]):
                problems.append(f"{rel}:{names[name_]}: section {name_!r} is not included by any page.")
    problems.extend(duplicate_claim_ids(root))
    return problems


def duplicate_claim_ids(root: Path = ROOT) -> list[str]:
    """A claim's id is its test's name without `test_`: two files with the same name would share one record
    (a run that reuses one file and runs the other never collects both, so pytest alone cannot see it)."""
    seen: dict[str, str] = {}
    problems = []
    for test in sorted((root / "tests").glob("*/test_*.py")):
        tree = ast.parse(test.read_text(encoding="utf-8"), filename=str(test))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and any("claim" in ast.unparse(d) for d in node.decorator_list):
                cid, rel = node.name.removeprefix("test_"), test.relative_to(root).as_posix()
                if cid in seen and seen[cid] != rel:
                    problems.append(f"{rel}: claim id {cid!r} is also {seen[cid]}'s: rename one of the two tests")
                seen.setdefault(cid, rel)
    return problems
