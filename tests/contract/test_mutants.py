"""scripts/mutants.py: every listing a page includes has a mutant, and each mutant's edit lies inside it.

The mutants themselves run outside CI (minutes each); these checks are static and fast, so a listing
added without a mutant, or a mutant whose listing moved, fails here at once.
"""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from sitekit.claims import ROOT
from sitekit.contract import SECTION

INCLUDE = re.compile(r'--8<--\s+"(?P<file>snippets/[^":]+):(?P<section>[\w-]+)"')


def _mutants():
    spec = importlib.util.spec_from_file_location("mutants", ROOT / "scripts" / "mutants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutants"] = module
    spec.loader.exec_module(module)
    return module.MUTANTS


MUTANTS = _mutants()


def included() -> set[tuple[str, str]]:
    """Every (snippet file, section) a page includes."""
    found = set()
    for page in (ROOT / "docs").rglob("*.md"):
        found |= {(m["file"], m["section"]) for m in INCLUDE.finditer(page.read_text(encoding="utf-8"))}
    return found


def section_text(file: str, section: str) -> str:
    """The lines of one marked section of a snippet."""
    lines, inside, out = (ROOT / file).read_text(encoding="utf-8").splitlines(keepends=True), False, []
    for row in lines:
        m = SECTION.search(row)
        if m and m["name"] == section:
            inside = m["kind"] == "start"
            continue
        if inside:
            out.append(row)
    return "".join(out)


def test_every_included_listing_has_a_mutant():
    covered = {(m.file, m.listing) for m in MUTANTS}
    missing = sorted(f"{f}:{s}" for f, s in included() - covered)
    assert not missing, (
        f"{len(missing)} listings have no mutant in scripts/mutants.py (a one-line bug a reader could make in it, "
        f"which a claim's own check must catch): {', '.join(missing)}"
    )


def test_mutant_names_are_unique():
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_each_mutant_edits_its_listing_once_and_stays_valid_python(mutant):
    whole = (ROOT / mutant.file).read_text(encoding="utf-8")
    text = section_text(mutant.file, mutant.listing) if mutant.listing else whole  # "": code outside a listing
    assert text, f"{mutant.name}: {mutant.file} has no section {mutant.listing!r}"
    assert text.count(mutant.old) == 1, f"{mutant.name}: the old text is not once inside {mutant.file}:{mutant.listing}"
    assert mutant.old != mutant.new and whole.count(mutant.old) == 1
    compile(whole.replace(mutant.old, mutant.new), mutant.file, "exec")
