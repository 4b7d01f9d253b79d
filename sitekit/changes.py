"""What changed (the page a returning reader opens): the site's git history, day by day, newest first.

`changes_markdown(root)` reads the commits on the first-parent line of HEAD that touch what a reader is told:
the claim markers in `tests/**/test_*.py` (parsed with `ast`, never imported), the committed experiment records
(`results/experiments-cpu.json`), the sourced facts (`facts/facts.toml`) and the pages under `docs/`. A *change*
is one UTC day of those commits: the state at the end of the day is compared with the state at the end of the
day before, and the page lists the claims added, retired and reworded, the experiment records whose asserted
values moved, the facts added, removed or corrected, and the pages added or removed. A reworded claim and a
fact whose value changed are *corrections*. `results/cpu.json` is not committed, so other claims' values have
no history to report.

Reading git and parsing each file version once (cached by blob id in `build/history/`) is
`sitekit/history.py`; this module compares the states day by day and writes the page.
A checkout without history (a tarball, a shallow clone) gets one sentence saying so; the build goes on.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitekit.history import PARSERS, Cache, Snapshot, history, kind, page_title, snapshot
from sitekit.receipts import anchor
from sitekit.typesetting import _inline, fmt, typeset

UNAVAILABLE = (
    "The history of this site is not available in this checkout (it has no git history, or only a shallow "
    "part of it), so this copy cannot say what changed."
)
OPEN_UP_TO = 5  # a list longer than this is folded
SPEC = ".3g"  # experiment values, as the ledger shows a key value

WORDS = re.compile(r"`[^`]*`|\S+")
# The site never refers to material outside itself; an old claim sentence that did is shown with that reference
# withheld, marked as such (the page's "What counts as a change" says so).
OUTSIDE = re.compile(r"\bthe brief(?:'s)?\b|\bbrief(?:'s)?\b", re.IGNORECASE)
WITHHELD = "[…]"


def _word(token: str) -> str:
    if token.startswith("`") and token.endswith("`") and len(token) > 1:
        return f"<code>{_inline(token[1:-1])}</code>"
    return _inline(typeset(token)).replace("\\", "&#92;").replace("{", "&#123;")  # 1e-10 -> 1 × 10⁻¹⁰


def _own(sentence: str) -> str:
    return OUTSIDE.sub(WITHHELD, sentence)


def word_diff(old: str, new: str) -> str:
    """The new sentence with the words it dropped struck through (<del>) and the words it gained marked (<ins>)."""
    a, b = WORDS.findall(_own(old)), WORDS.findall(_own(new))
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(" ".join(_word(w) for w in a[i1:i2]))
            continue
        if i2 > i1:
            out.append('<del class="changed">' + " ".join(_word(w) for w in a[i1:i2]) + "</del>")
        if j2 > j1:
            out.append('<ins class="changed">' + " ".join(_word(w) for w in b[j1:j2]) + "</ins>")
    return " ".join(out)


def _plain(sentence: str) -> str:
    return " ".join(_word(w) for w in WORDS.findall(_own(sentence)))


def _value(v: Any, spec: str = SPEC) -> str:
    return "—" if v is None else fmt(v, spec) if isinstance(v, (int, float)) else _inline(str(v))


def _moved(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """How an experiment record's asserted values moved, one phrase per check (empty: nothing moved as shown)."""
    out = []
    if _value(old.get("headline")) != _value(new.get("headline")):
        out.append(f"headline {_value(old.get('headline'))} → {_value(new.get('headline'))}")
    olds, news = old.get("margins", []), new.get("margins", [])
    if len(olds) != len(news) or any(o[0] != n[0] for o, n in zip(olds, news, strict=False)):
        return [*out, "its asserted checks changed"]
    for (what, op, t0, w0, m0), (_, op1, t1, w1, m1) in zip(olds, news, strict=True):
        parts = []
        if (op, _value(t0)) != (op1, _value(t1)):
            parts.append(f"threshold {_inline(op)} {_value(t0)} → {_inline(op1)} {_value(t1)}")
        if _value(w0) != _value(w1):
            parts.append(f"worst {_value(w0)} → {_value(w1)}")
        if _value(m0) != _value(m1):
            parts.append(f"median {_value(m0)} → {_value(m1)}")
        if parts:
            out.append(f"{_inline(typeset(what))} ({_inline(op1)} {_value(t1)}): " + ", ".join(parts))
    return out


def _fact_value(f: dict[str, Any]) -> str:
    if "formula" in f:
        return f"<code>{_inline(str(f['formula']))}</code>"
    unit = str(f.get("unit", ""))
    return _value(f.get("value"), "") + _inline(unit)


@dataclass
class Day:
    """One change: a UTC day of commits and what it changed."""

    date: str
    commits: list[str]
    added: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)
    edited: str = ""  # one line naming the pages whose text changed


def compare(day: Day, old: Snapshot, new: Snapshot, place: Callable[[str], str], row: Callable[[str], str]) -> Day:
    """Fill `day` with what changed from `old` to `new`; `place(page)` names a page, `row(id)` a ledger link."""
    gone = {cid: old.claims[cid] for cid in old.claims.keys() - new.claims.keys()}
    came = {cid: new.claims[cid] for cid in new.claims.keys() - old.claims.keys()}
    by_sentence = {s: cid for cid, (s, _) in gone.items()}
    for cid in sorted(came, key=lambda c: (came[c][1], c)):
        sentence, page = came[cid]
        if sentence in by_sentence:  # the same sentence under a new test name
            was = by_sentence.pop(sentence)
            del gone[was]
            day.added.append(f"{_plain(sentence)} · {place(page)} (renamed from <code>{was}</code>)")
            continue
        day.added.append(f"{_plain(sentence)} · {place(page)}")
    day.retired = [f"{_plain(s)} · {place(p)}" for cid, (s, p) in sorted(gone.items(), key=lambda x: (x[1][1], x[0]))]
    for cid in sorted(old.claims.keys() & new.claims.keys()):
        (s0, _), (s1, page) = old.claims[cid], new.claims[cid]
        if s0 != s1:
            day.corrections.append(f"**Claim reworded** · {place(page)}: {word_diff(s0, s1)} · {row(cid)}")
    for cid in sorted(old.experiments.keys() & new.experiments.keys()):
        moved = _moved(old.experiments[cid], new.experiments[cid])
        if len(moved) == 1:
            day.moved.append(f"{row(cid)}: {moved[0]}")
        elif moved:
            day.moved.append(f"{row(cid)}:" + "".join(f"\n    - {m}" for m in moved))

    def source(f: dict[str, Any], works: dict[str, dict[str, str]]) -> str:
        w = works.get(str(f.get("work", "")))
        if w is None:
            return "derived from other facts" if "formula" in f else "no source"
        return f"{_inline(w['cite'])}, *{_inline(w['title'])}*"

    for fid in sorted(new.facts.keys() - old.facts.keys()):
        f = new.facts[fid]
        day.facts.append(f"added <code>{fid}</code> = {_fact_value(f)} ({source(f, new.works)})")
    for fid in sorted(old.facts.keys() - new.facts.keys()):
        f = old.facts[fid]
        day.facts.append(f"removed <code>{fid}</code>, which was {_fact_value(f)} ({source(f, old.works)})")
    for fid in sorted(old.facts.keys() & new.facts.keys()):
        f0, f1 = old.facts[fid], new.facts[fid]
        if _fact_value(f0) != _fact_value(f1):
            was, now = _fact_value(f0), _fact_value(f1)
            day.corrections.append(f"**Fact corrected** · {source(f1, new.works)}: <code>{fid}</code> {was} → {now}")
        elif f0.get("work") != f1.get("work"):
            day.facts.append(f"<code>{fid}</code> now sourced from {source(f1, new.works)}")
    for page in sorted(new.pages.keys() - old.pages.keys()):
        day.pages.append(f"added {place(page)}")
    for page in sorted(old.pages.keys() - new.pages.keys()):
        day.pages.append(f"removed <code>{_inline(page)}</code>")
    edited = sorted(p for p in old.pages.keys() & new.pages.keys() if old.pages[p] != new.pages[p])
    if edited:
        day.edited = "Pages edited: " + ", ".join(map(place, edited)) + "."
    return day


# --- the page -----------------------------------------------------------------------------------------------


def _block(title: str, items: list[str], kind: str = "note") -> list[str]:
    """An admonition listing `items`, open while the list is short and folded (click to open) beyond."""
    if not items:
        return []
    opener = "???+" if len(items) <= OPEN_UP_TO else "???"
    lines = [f"    - {line}" if n == 0 else f"    {line}" for item in items for n, line in enumerate(item.split("\n"))]
    return [f'{opener} {kind} "{title}: {len(items)}"', "", *lines, ""]


def _summary(day: Day) -> str:
    counts = [
        (len(day.corrections), "correction", "corrections"),
        (len(day.added), "claim added", "claims added"),
        (len(day.retired), "claim retired", "claims retired"),
        (len(day.moved), "experiment record moved", "experiment records moved"),
        (len(day.facts), "sourced fact added, removed or re-sourced", "sourced facts added, removed or re-sourced"),
        (len(day.pages), "page added or removed", "pages added or removed"),
    ]
    said = [f"{n} {one if n == 1 else many}" for n, one, many in counts if n]
    first, last = day.commits[0][:7], day.commits[-1][:7]
    span = f"<code>{first}</code>" if first == last else f"<code>{first}</code> to <code>{last}</code>"
    n = len(day.commits)
    what = ", ".join(said) if said else "pages edited only" if day.edited else "nothing a reader sees"
    return f"{n} commit{'s' if n != 1 else ''} ({span}): {what}."


def render_days(days: list[Day]) -> str:
    out: list[str] = []
    for day in reversed(days):
        when = datetime.strptime(day.date, "%Y-%m-%d")
        out += [f"## {when.day} {when:%B %Y} {{#{day.date}}}", "", _summary(day), ""]
        out += _block("Corrections", day.corrections, "warning")
        out += _block("Claims added", day.added)
        out += _block("Claims retired", day.retired)
        out += _block("Experiment records whose asserted values moved", day.moved)
        out += _block("Sourced facts added, removed or re-sourced", day.facts)
        out += _block("Pages added or removed", day.pages)
        out += [day.edited, ""] if day.edited else []
    return "\n".join(out).rstrip() + "\n"


def changes_markdown(
    root: Path,
    *,
    link: Callable[[str], str] | None = None,
    titles: Mapping[str, str] | None = None,
    known_claims: Collection[str] = (),
    cache: Path | None = None,
) -> str:
    """The What changed page's body for the repository at `root`, as Markdown.

    `link(docs_path)` makes a relative link from the page (default: the path as it is); `titles` are the nav's
    page titles; a claim in `known_claims` links to its ledger row (`claims.md`). Pages that exist now are linked,
    others named. Parses are cached under `cache` (default `root/build/history`).
    """
    commits = history(root)
    if not commits:
        return UNAVAILABLE + "\n"
    link = link or (lambda path: path)
    titles = titles or {}
    cached = Cache(cache or root / "build" / "history")
    cached.fill(root, {sha: kind(p) for c in commits for p, sha in c.files.items() if sha and kind(p) in PARSERS})

    def place(page: str) -> str:
        path = root / "docs" / page
        if not path.is_file():
            return f"<code>{_inline(page)}</code>"
        title = titles.get(page, page)
        if title == page and page.endswith(".md"):  # the nav gives it no title (a section's index)
            title = page_title(path.read_bytes(), page)
        return f"[{_inline(title)}]({link(page)})"

    def row(cid: str) -> str:
        return (
            f"[<code>{cid}</code>]({link('claims.md')}#{anchor(cid)})" if cid in known_claims else f"<code>{cid}</code>"
        )

    files: dict[str, str] = {}
    before = Snapshot()
    days: list[Day] = []
    for date, run in itertools.groupby(commits, key=lambda c: datetime.fromtimestamp(c.time, UTC).strftime("%Y-%m-%d")):
        day = Day(date, [])  # a run of commits on one UTC day
        for commit in run:
            day.commits.append(commit.sha)
            for path, sha in commit.files.items():
                if sha is None:
                    files.pop(path, None)
                elif cached.data.get(sha) is not None or kind(path) not in PARSERS or path not in files:
                    files[path] = sha  # an unreadable version keeps the last readable one's claims
        after = snapshot(files, cached.data)
        days.append(compare(day, before, after, place, row))
        before = after
    cached.save()
    return render_days(days)
