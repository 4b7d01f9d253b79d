"""What each marked result is: facts/receipts.toml names, per claim, the recorded keys that are the outcome the
claim is about, each with the words a receipt's popover leads with. A bound number gets a receipt only where its
(claim, key) is listed there, and only at its first such occurrence on a page; every other bound number
(settings, counts of the set-up, grid values, a threshold restated) prints as plain text, still filled in from
the record. The list is the page side's: editing it re-renders pages and re-runs no claim."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

from sitekit.claims import ROOT, ClaimError

LABELS = ROOT / "facts" / "receipts.toml"
MAX_WORDS = 18  # "at most about 15 words": a headline, not a sentence


@functools.cache
def _load(path: Path = LABELS) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ClaimError(f"{where}: not valid TOML ({err}); fix the line it names.") from None
    out: dict[str, dict[str, str]] = {}
    for cid, keys in data.items():
        if not isinstance(keys, dict) or not all(isinstance(v, str) and v.strip() for v in keys.values()):
            raise ClaimError(f'{where}: [{cid}] must be a table of "key" = "what this number is" (non-empty strings).')
        for key, label in keys.items():
            if len(label.split()) > MAX_WORDS:
                raise ClaimError(
                    f"{where}: [{cid}] {key!r}: the label has {len(label.split())} words; a receipt's headline "
                    f"says what the number is in at most about 15 ({MAX_WORDS} allowed)."
                )
        out[cid] = dict(keys)
    return out


def labels() -> dict[str, dict[str, str]]:
    """Every claim's labelled keys: {claim id: {key: label}}."""
    return _load(LABELS)


def label(cid: str, key: str) -> str | None:
    """The label of `key` (or of its nearest dotted parent: "deep_median" covers "deep_median.0.16")."""
    keys = labels().get(cid)
    if not keys or key.startswith("_"):
        return None
    parts = key.split(".")
    for n in range(len(parts), 0, -1):
        found = keys.get(".".join(parts[:n]))
        if found:
            return found
    return None


def title(cid: str) -> str:
    """A claim's short name: its "_title" in the list, else its id as words ("a_short_budget_leaves_..." ->
    "A short budget leaves ...")."""
    given = labels().get(cid, {}).get("_title")
    if given:
        return given
    words = cid.replace("_", " ").strip()
    return words[:1].upper() + words[1:]
