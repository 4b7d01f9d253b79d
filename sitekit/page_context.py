"""Stage 0 of the page pipeline: what a page is rendered against (Context), the macro registry, and the
lookups every macro shares (a verified CPU record, its CUDA record, a recorded value by dotted key)."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sitekit.claims import Claim, ClaimError
from sitekit.experiments import is_out_of_date

MACRO = re.compile(r"\{\{\s*(?P<name>[a-z_]+)\((?P<args>.*?)\)\s*\}\}")


@dataclass
class Context:
    """What a page is rendered against."""

    page: str  # path under docs/, e.g. "module/gradient-highway.md"
    cpu: dict[str, Claim]
    cuda: dict[str, Claim] = field(default_factory=dict)
    cuda_provenance: dict[str, Any] = field(default_factory=dict)
    cpu_provenance: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> device -> uri
    strict: bool = True
    cited: set[str] = field(default_factory=set)
    source: str = ""  # the page's Markdown, for figref()
    figure_numbers: dict[str, int] = field(default_factory=dict)  # figure name -> its number on the page
    page_order: list[str] = field(default_factory=list)  # docs paths in nav order (the ledger's order)
    page_titles: dict[str, str] = field(default_factory=dict)  # docs path -> nav title
    # Filled while rendering: receipts, their data for the popovers, and where each claim is anchored.
    in_math: bool = False
    block: set[str] = field(default_factory=set)  # claims with a receipt in the current paragraph
    previous: set[str] = field(default_factory=set)  # ... and in the paragraph (table, figure) before it
    anchored: set[str] = field(default_factory=set)
    marked: set[str] = field(default_factory=set)  # claims whose result already carries a receipt on this page
    labelled: set[str] = field(default_factory=set)  # claims with a labelled value() on this page (render's scan)
    works: set[str] = field(default_factory=set)  # works whose source mark the current paragraph already shows
    receipts: dict[str, dict[str, Any]] = field(default_factory=dict)
    listings: dict[str, str] = field(default_factory=dict)  # snippet path -> anchor id on this page
    sources: set[str] = field(default_factory=set)  # snippet paths published under SOURCE_DIR
    notebooks: dict[str, Any] = field(default_factory=dict)  # page -> its notebook (sitekit.notebooks), this build's

    def link(self, target: str) -> str:
        """Relative Markdown link from this page to another docs path."""
        return os.path.relpath(target, os.path.dirname(self.page) or ".").replace(os.sep, "/")

    def url(self, target: str, fragment: str = "") -> str:
        """Relative URL of the built page for docs path `target` (directory URLs), for raw HTML."""
        here = page_url(self.page)
        rel = posixpath.relpath(page_url(target) or ".", here.rstrip("/") or ".")
        if target.endswith(".md"):
            rel = "./" if rel == "." else rel + "/"
        return rel + (f"#{fragment}" if fragment else "")


def page_url(path: str) -> str:
    """docs path -> site path: "module/x.md" -> "module/x/", "module/index.md" -> "module/"."""
    if not path.endswith(".md"):
        return path
    stem = path[:-3]
    if stem == "index" or stem.endswith("/index"):
        return stem[:-5]
    return stem + "/"


MACROS: dict[str, Callable[..., str]] = {}


def macro(fn: Callable[..., str]) -> Callable[..., str]:
    """Register a page macro by its function name."""
    MACROS[fn.__name__] = fn
    return fn


def _topic_command(c: Claim) -> str:
    if getattr(c, "experiment", None):  # an experiment runs only under nox -s experiments (minutes)
        return f"nox -s experiments -- {c.test.split('::')[0]}` and commit `results/experiments-cpu.json"
    return f"nox -s tests -- {os.path.dirname(c.test.split('::')[0])}"


def verified(ctx: Context, cid: str) -> Claim:
    """The CPU record of a claim, refusing missing, failing and stale ones."""
    ctx.cited.add(cid)
    c = ctx.cpu.get(cid)
    where = f"docs/{ctx.page} cites claim {cid!r}"
    if c is None:
        raise ClaimError(
            f"{where}, which has no result in results/cpu.json. Check the id against the test name "
            "(test_<id>) and run `nox -s tests`."
        )
    if c.stale or (c.status != "passed" and is_out_of_date(c.error)):  # out of date is not failed: it has not run
        raise ClaimError(
            f"{where}, which is out of date: {c.snippet} or a file its test reads changed since it ran "
            f"(`nox -s deps -- FILE` lists what an edit covers). Run `{_topic_command(c)}`."
        )
    if c.status != "passed":
        raise ClaimError(f"{where}, whose test {c.test} is {c.status}: fix it, then `{_topic_command(c)}`.")
    return c


def device_independent(c: Claim) -> bool:
    """A claim that says its outcome cannot depend on the device (never counted as verified on CUDA)."""
    return bool(getattr(c, "device_independent", None))


def cuda_record(ctx: Context, cid: str) -> Claim | None:
    """The CUDA record where it exists, passed, matches the current code and the claim is device-bound."""
    c = ctx.cuda.get(cid)
    if c is None or c.status != "passed" or c.stale or device_independent(c):
        return None
    cpu = ctx.cpu.get(cid)
    if cpu is not None and device_independent(cpu):
        return None
    return c


def lookup(values: Any, key: str, where: str) -> Any:
    """values["a"]["b"][2] for key "a.b.2"."""
    out = values
    for part in key.split(".") if key else []:
        try:
            out = out[int(part)] if isinstance(out, list) else out[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise ClaimError(f"{where}: no recorded value at {key!r}") from None
    return out
