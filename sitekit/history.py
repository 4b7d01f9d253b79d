"""The site's git history, read for the What changed page (sitekit/changes.py): which versions of the files a
reader is told about each first-parent commit of HEAD left behind, parsed once and cached by blob id.

One `git log --raw` names every file version; the versions not seen before are read with one
`git cat-file --batch` and parsed (claim markers with `ast`, never imported; facts; experiment records; page
titles). The parses are cached in `build/history/`, content-addressed, so never stale. A checkout without
history gets None from `history()`.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import subprocess
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CACHE_VERSION = 1  # raise it when a parse below changes: the cache is keyed by blob id only
PATHSPECS = (
    ":(glob)tests/**/test_*.py",
    "facts/facts.toml",
    "results/experiments-cpu.json",
    ":(glob)docs/**/*.md",
    ":(glob)docs/**/*.ipynb",
)
# Oldest first, one line per commit ("@@<sha> <committer time>"), then one per file it changed, with its new blob id.
LOG = ("log", "--first-parent", "--reverse", "--raw", "--no-renames", "--no-abbrev", "--format=@@%H %ct")
FACTS, EXPERIMENTS = "facts/facts.toml", "results/experiments-cpu.json"


@dataclass
class Commit:
    sha: str
    time: int  # committer time, Unix seconds
    files: dict[str, str | None]  # path -> blob id after the commit (None: deleted)


@dataclass
class Snapshot:
    """What a reader was told at one point of history."""

    claims: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (sentence, page)
    experiments: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> {"margins": [...], "headline"}
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    works: dict[str, dict[str, str]] = field(default_factory=dict)
    pages: dict[str, str] = field(default_factory=dict)  # docs path -> blob id


# --- reading git --------------------------------------------------------------------------------------------


def _git(root: Path, *args: str, data: bytes | None = None) -> bytes | None:
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", "-C", str(root), *args], input=data, capture_output=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def history(root: Path) -> list[Commit] | None:
    """The commits that touch what a reader is told, oldest first; None where this checkout has no full history."""
    top = _git(root, "rev-parse", "--show-toplevel", "--is-shallow-repository")
    if top is None:
        return None
    lines = top.decode().split("\n")
    if len(lines) < 2 or Path(lines[0]).resolve() != root.resolve() or lines[1].strip() != "false":
        return None  # another repository's history (a tarball unpacked inside one), or a shallow clone
    raw = _git(root, *LOG, "--", *PATHSPECS)
    if raw is None:
        return None
    commits: list[Commit] = []
    for line in raw.decode("utf-8", "replace").split("\n"):
        if line.startswith("@@"):
            sha, time = line[2:].split()
            commits.append(Commit(sha, int(time), {}))
        elif line.startswith(":") and commits:
            meta, path = line.split("\t", 1)
            new, status = meta.split()[3], meta.split()[4]
            commits[-1].files[path] = None if status.startswith("D") else new
    return commits


def _read_blobs(root: Path, shas: list[str]) -> dict[str, bytes]:
    """Blob contents, read by one `git cat-file --batch`."""
    if not shas:
        return {}
    out = _git(root, "cat-file", "--batch", data="".join(s + "\n" for s in shas).encode()) or b""
    blobs, at = {}, 0
    for sha in shas:
        end = out.find(b"\n", at)
        if end < 0:
            break
        head = out[at:end].split()
        at = end + 1
        if len(head) != 3:  # "<sha> missing"
            continue
        size = int(head[2])
        blobs[sha] = out[at : at + size]
        at += size + 1
    return blobs


# --- parsing one file version (each result is cached by blob id) --------------------------------------------


def parse_claims(source: bytes) -> dict[str, list[str]] | None:
    """id -> [sentence, page] for each `@pytest.mark.claim("...", page=...)` test in a test file (None: unreadable)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    names = {  # module-level strings a marker may name: PAGE = "module/x.md"
        t.id: n.value.value
        for n in tree.body
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
        for t in n.targets
        if isinstance(t, ast.Name)
    }

    def text(node: ast.expr | None) -> str:
        if isinstance(node, ast.Constant):
            return str(node.value)
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        return "" if node is None else ast.unparse(node)

    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for deco in node.decorator_list:
            if not (isinstance(deco, ast.Call) and ast.unparse(deco.func).endswith("mark.claim") and deco.args):
                continue
            page = next((k.value for k in deco.keywords if k.arg == "page"), None)
            found[node.name.removeprefix("test_")] = [text(deco.args[0]), text(page)]
    return found


def parse_facts(source: bytes) -> dict[str, Any] | None:
    try:
        data = tomllib.loads(source.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    keep = ("value", "formula", "work", "unit", "about")
    facts = {fid: {k: f[k] for k in keep if k in f} for fid, f in data.get("facts", {}).items() if isinstance(f, dict)}
    works = {
        wid: {"cite": str(w.get("cite", "")), "title": str(w.get("title", ""))}
        for wid, w in data.get("works", {}).items()
        if isinstance(w, dict)
    }
    return {"facts": facts, "works": works}


def parse_experiments(source: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(source)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    out: dict[str, Any] = {}
    for cid, rec in (data.get("claims", {}) if isinstance(data, dict) else {}).items():
        margins = [
            [m.get("what", ""), m.get("op", ""), m.get("threshold"), m.get("worst"), m.get("median")]
            for m in rec.get("margins") or []
            if isinstance(m, dict)
        ]
        headline = (rec.get("values") or {}).get("headline")
        out[cid] = {"margins": margins, "headline": headline if isinstance(headline, (int, float)) else None}
    return out


def page_title(source: bytes, path: str) -> str:
    text = source.decode("utf-8", "replace")
    m = re.search(r"^#\s+(.+?)\s*(?:\{[^}]*\})?\s*$", text, re.M)
    return m[1] if m else path


def kind(path: str) -> str:
    if path == FACTS:
        return "facts"
    if path == EXPERIMENTS:
        return "experiments"
    if path.startswith("tests/") and not path.startswith("tests/contract/"):  # contract tests hold fixtures
        return "claims"
    return "page" if path.startswith("docs/") else ""


PARSERS: dict[str, Callable[[bytes], Any]] = {
    "claims": parse_claims,
    "facts": parse_facts,
    "experiments": parse_experiments,
}


class Cache:
    """Parsed file versions by blob id, in one JSON file under build/history/ (written atomically)."""

    def __init__(self, folder: Path) -> None:
        self.file = folder / "parsed.json"
        self.data: dict[str, Any] = {}
        self.dirty = False
        with contextlib.suppress(OSError, ValueError):
            saved = json.loads(self.file.read_text(encoding="utf-8"))
            if saved.get("version") == CACHE_VERSION:
                self.data = saved["blobs"]

    def fill(self, root: Path, wanted: dict[str, str]) -> None:
        """Parse every blob in `wanted` (blob id -> kind) that the cache lacks."""
        missing = [sha for sha in wanted if sha not in self.data]
        for sha, blob in _read_blobs(root, missing).items():
            self.data[sha] = PARSERS[wanted[sha]](blob) if wanted[sha] in PARSERS else None
            self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        with contextlib.suppress(OSError):
            self.file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.file.with_name(f".{self.file.name}.{os.getpid()}")
            tmp.write_text(json.dumps({"version": CACHE_VERSION, "blobs": self.data}), encoding="utf-8")
            os.replace(tmp, self.file)  # atomic: builds may run side by side


def snapshot(files: Mapping[str, str], parsed: Mapping[str, Any]) -> Snapshot:
    """The state of the site given its files (path -> blob id) and their parses (blob id -> parse)."""
    snap = Snapshot()
    for path in sorted(files):
        what, got = kind(path), parsed.get(files[path])
        if what == "claims" and got:
            snap.claims.update({cid: (s, p) for cid, (s, p) in got.items()})
        elif what == "facts" and got:
            snap.facts, snap.works = got["facts"], got["works"]
        elif what == "experiments" and got:
            snap.experiments = got
        elif what == "page":
            snap.pages[path.removeprefix("docs/")] = files[path]
    return snap
