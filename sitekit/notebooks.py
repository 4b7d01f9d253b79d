"""Every page that runs measurements, as a notebook a reader downloads and runs with Python and torch.

A page's notebook is generated, never written by hand: its first cell is sitekit/notebook_runtime.py verbatim;
then each snippet module the page's measurements need, byte for byte, loaded as a module; then every
`measure()` call the page's claim tests made in the run that built the page (sitekit.call_log), with the same
arguments and CPU threads, each printing its result. The same text is published as a plain script
(`<slug>.py`, jupytext's percent format) and as `<slug>.ipynb`. `check_output` compares what a run of it
printed with the logged results, within each claim's tolerance (`nox -s notebooks` runs them all).

Nothing here imports MkDocs; jupytext is imported only to write the .ipynb.
"""

from __future__ import annotations

import ast
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitekit import call_log
from sitekit import claims as store

RUNTIME = Path(__file__).with_name("notebook_runtime.py")
FOLDER = "notebooks"  # site path of the published notebooks
# The snippets whose measure() returns wall-clock timings. A timing snippet missing here fails the check on its
# first run, and the message says to add it (the costs benchmarks' hashes cover the snippets' code, so the list
# lives here rather than in them).
TIMED = frozenset(
    {
        "snippets.costs.add_share",
        "snippets.costs.denormals",
        "snippets.costs.exercise_pair",
        "snippets.costs.resnet_latency",
    }
)
# A timing inside any result (an experiment's CPU seconds): its name says so, and it is not compared either.
TIMING_FIELD = re.compile(r"(?:^|_)(?:s|ms|seconds|time|latency|elapsed|wall)$")
EXACT_RTOL = 1e-6  # a claim that is not an experiment runs the same code on the same machine: equal up to rounding
# Snippets that read the repository (the site's facts file, its harness, Jupyter): their calls are listed, not run.
REPOSITORY_ONLY = ("sitekit", "jupytext", "nbclient", "nbformat", "matplotlib")
PACKAGES = {"sklearn": "scikit-learn", "sympy": "sympy", "torch": "torch"}


class NotebookError(Exception):
    """A notebook cannot be generated; the message names the file and what to do."""


@dataclass
class Notebook:
    page: str  # docs path: module/residual-block.md
    title: str
    modules: list[str] = field(default_factory=list)  # dotted names, in load order
    calls: list[dict[str, Any]] = field(default_factory=list)  # index i + 1 is the i-th call
    skipped: list[dict[str, Any]] = field(default_factory=list)  # calls a notebook cannot make, and why
    needs: list[str] = field(default_factory=list)  # packages to install besides Python
    unlogged: list[str] = field(default_factory=list)  # the page's experiment test files with no call log here

    @property
    def slug(self) -> str:
        return self.page.removesuffix(".md").replace("/", "-")

    @property
    def seconds(self) -> float:
        return sum(float(c["seconds"]) for c in self.calls)


def _source(module: str) -> Path:
    path = store.ROOT.joinpath(*module.split(".")).with_suffix(".py")
    return path if path.is_file() else path.with_suffix("") / "__init__.py"


def _imports(module: str) -> tuple[list[str], list[str], set[str]]:
    """The snippet modules `module` imports (dotted, existing files), the sibling snippets it reads as text, and
    the other top-level packages it imports."""
    path = _source(module)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    local: list[str] = []
    read: list[str] = []
    other: set[str] = set()
    # What runs only as `python -m <module>` is not loaded by a notebook (its modules are never __main__).
    tree.body = [node for node in tree.body if not _main_block(node)]
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith(".py"):
            # A sibling file the module reads as text (Lab 2's corpus is its own listings): bundled with it.
            sibling = path.parent / node.value
            if sibling.is_file() and sibling != path:
                dotted = ".".join(sibling.relative_to(store.ROOT).with_suffix("").parts)
                if dotted not in read:
                    read.append(dotted)
        for name in names:
            top = name.split(".")[0]
            if top == "snippets":
                if _source(name).is_file() and name not in local:
                    local.append(name)
            elif top not in sys.stdlib_module_names and top != "__future__":
                other.add(top)
    return local, read, other


def timed(module: str) -> bool:
    """Whether a snippet module's results are wall-clock timings (TIMED), which vary with the machine and its
    load: a notebook prints them but compares only their exact fields (ints, strings)."""
    return module in TIMED


def _main_block(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":`"""
    test = node.test if isinstance(node, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def closure(modules: list[str]) -> tuple[list[str], set[str]]:
    """`modules` and every snippet module they import, dependencies first, then those only read as text (and what
    they import); and the other packages they import."""
    order: list[str] = []
    packages: set[str] = set()
    visiting: set[str] = set()
    texts: list[str] = []

    def visit(name: str) -> None:
        if name in order or name in visiting:
            return
        visiting.add(name)
        local, read, other = _imports(name)
        packages.update(other)
        texts.extend(read)
        for dep in local:
            visit(dep)
        order.append(name)

    todo = list(modules)
    while todo:  # a file read as text is loaded after what imports it: it may import it back
        for m in todo:
            visit(m)
        todo, texts = [t for t in texts if t not in order], []
    return order, packages


def _title(page: str) -> str:
    text = (store.ROOT / "docs" / page).read_text(encoding="utf-8")
    m = re.search(r"^# (.+)$", text, re.M)
    return m[1].strip() if m else page


def plan(device: str = "cpu") -> dict[str, Notebook]:
    """One notebook per page that has logged measurements, from this build's call log."""
    books: dict[str, Notebook] = {}
    log = call_log.read(device)
    repository_only = {m: _repository_only(m) for m in {c["module"] for calls in log.values() for c in calls}}
    for test_file, calls in sorted(log.items()):
        for call in calls:
            page = call["page"]
            if not (store.ROOT / "docs" / page).is_file():
                continue  # a page that was renamed since the log was written: the claims say so themselves
            book = books.setdefault(page, Notebook(page, _title(page)))
            needs_repo = repository_only[call["module"]]
            if call["args"] is None:
                book.skipped.append(call | {"why": "it takes an argument a notebook cannot write down"})
            elif needs_repo:
                book.skipped.append(call | {"why": f"it reads the repository ({needs_repo})"})
            elif call not in book.calls:
                book.calls.append(call | {"test": test_file})
    records, _ = store.load(device)
    for c in records.values():  # an experiment reused from a record kept before call logs existed
        book = books.get(c.page)
        test = c.test.split("::")[0]
        if book is not None and c.tolerance is not None and test not in log and test not in book.unlogged:
            book.unlogged.append(test)
    for book in books.values():
        modules, packages = closure(sorted({c["module"] for c in book.calls}))
        book.modules = modules
        book.needs = sorted(_pinned(PACKAGES.get(p, p)) for p in packages)
    return {page: b for page, b in books.items() if b.calls}


def _pinned(package: str) -> str:
    """`torch==2.13.0`: the version the page was built with (the reader's may differ, within the tolerances)."""
    import importlib.metadata

    try:
        return f"{package}=={importlib.metadata.version(package).split('+')[0]}"  # 2.13.0+cpu: PyPI's is 2.13.0
    except importlib.metadata.PackageNotFoundError:
        return package


def uncovered(books: dict[str, Notebook]) -> list[str]:
    """Pages that show listings but have no notebook (no claim of theirs logged a measure() call)."""
    from sitekit import contract

    docs = store.ROOT / "docs"
    pages = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md") if contract.includes(p))
    return [p for p in pages if p not in books]


def _repository_only(module: str) -> str | None:
    """The repository-only package a snippet module (or one it imports) uses, or None."""
    modules, packages = closure([module])
    del modules
    hit = sorted(packages & set(REPOSITORY_ONLY))
    return hit[0] if hit else None


def _embedded(module: str) -> str:
    source = _source(module).read_text(encoding="utf-8")
    if "'''" in source or source.rstrip("\n").endswith("\\"):
        raise NotebookError(
            f"{_source(module).relative_to(store.ROOT)}: a notebook embeds snippets in r'''...''' strings; "
            "this file contains ''' (or ends in a backslash): use \"\"\" in it instead"
        )
    return f"load(\"{module}\", r'''\n{source}''')\n"


def _markdown(text: str) -> str:
    return "# %% [markdown]\n" + "\n".join(f"# {line}".rstrip() for line in text.strip().split("\n")) + "\n"


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"about {max(1, math.ceil(seconds))} s"
    return f"about {math.ceil(seconds / 60)} min"


def script(book: Notebook, site_url: str = "") -> str:
    """The notebook as a plain Python script (jupytext percent format): runs with `python <slug>.py`."""
    needs = " and ".join(n.split("==")[0] for n in book.needs)
    page = f"{site_url.rstrip('/')}/{book.page.removesuffix('.md')}/" if site_url else book.page
    intro = f"""
# {book.title}: run it yourself

Every measurement on the page, replayed: the page's own snippet modules, loaded from this file, then each
`measure()` call its claim tests made, with the same arguments, printing its result. The page's numbers are
computed from these results ({page}). It needs Python 3.11 or later and {needs}
(`pip install {" ".join(book.needs)}`); it opens no network connection, and the only files it writes are the
snippets themselves, under `snippets/` in the folder you run it in (some read their own source).

On the machine that built the page the {len(book.calls)} measurements took {duration(book.seconds)}
in all. `NOTEBOOK_CALLS=2,5-7 python {book.slug}.py` runs only some of them.
"""
    cells = [_markdown(intro), "# %%\n" + RUNTIME.read_text(encoding="utf-8")]
    cells.append(_markdown("## The page's snippets\n\nEach cell below is one file of the site's `snippets/` package."))
    for module in book.modules:
        cells.append(_markdown(f"### `{module.replace('.', '/')}.py`"))
        cells.append("# %%\n" + _embedded(module))
    cells.append(_markdown("## The measurements"))
    for i, call in enumerate(book.calls, start=1):
        args = "[" + ", ".join(call["args"]) + "]"  # each a Python literal (sitekit.call_log.literal)
        kwargs = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in call["kwargs"].items()) + "}"
        cells.append(f'# %%\nrun({i}, "{call["module"]}", {args}, {kwargs}, threads={call["threads"]})\n')
    clocked = sorted({c["module"] for c in book.calls if timed(c["module"])})
    if clocked:
        names = ", ".join(f"`{m}`" for m in clocked)
        cells.insert(
            -len(book.calls),
            _markdown(
                f"The measurements of {names} are wall-clock timings: yours will differ with your machine and "
                "what else it is doing. The page states them as ratios with a margin, which its tests check."
            ),
        )
    if book.skipped:
        listed = "\n".join(f"- `{c['module']}.measure({c['shown']})`: {c['why']}" for c in book.skipped)
        cells.append(_markdown(f"## Measured only in the repository\n\n{listed}"))
    if book.unlogged:
        listed = "\n".join(f"- `{t}`" for t in sorted(book.unlogged))
        cells.append(
            _markdown(
                "## Not in this notebook yet\n\nThe page's long experiments below were reused from records kept "
                "before their calls were logged; `nox -s experiments -- <file>` in the repository logs them, and "
                f"the next build adds them here.\n\n{listed}"
            )
        )
    return "\n".join(cells)


def ipynb(text: str) -> str:
    """The script as a Jupyter notebook (no outputs): the same cells, in the same order."""
    import jupytext

    notebook = jupytext.reads(text, fmt="py:percent")
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata.pop("jupytext", None)
    return jupytext.writes(notebook, fmt="ipynb")


RESULT = re.compile(r"^result (\d+) (.*)$", re.M)


def _differences(want: Any, got: Any, rtol: float | None, where: str = "") -> list[str]:
    """Where `got` differs from `want` beyond `rtol` (relative); rtol None: floats are timings, not compared."""
    floats = isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool)
    if floats and (rtol is None or any(TIMING_FIELD.search(part) for part in re.split(r"[.\[\]]+", where))):
        return []
    if isinstance(want, bool) or isinstance(got, bool) or not isinstance(want, (int, float)):
        if isinstance(want, dict) and isinstance(got, dict):
            if set(want) != set(got):
                return [f"{where or 'result'}: fields {sorted(set(want) ^ set(got))} differ"]
            return [d for k in want for d in _differences(want[k], got[k], rtol, f"{where}.{k}")]
        if isinstance(want, list) and isinstance(got, list):
            if len(want) != len(got):
                return [f"{where or 'result'}: {len(got)} items, the run had {len(want)}"]
            return [
                d
                for i, (w, g) in enumerate(zip(want, got, strict=True))
                for d in _differences(w, g, rtol, f"{where}[{i}]")
            ]
        return [] if want == got else [f"{where or 'result'}: {got!r}, the run had {want!r}"]
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return [f"{where or 'result'}: {got!r}, the run had {want!r}"]
    if got == want or (rtol is not None and abs(got - want) <= rtol * abs(want) + 1e-12):
        return []
    allowed = "exactly" if rtol is None else f"{rtol:g} relative"
    return [f"{where or 'result'}: {got:.6g}, the run had {want:.6g} (allowed {allowed})"]


def check_output(book: Notebook, output: str, ran: set[int] | None = None) -> list[str]:
    """What is wrong with a run's printed output: a missing or differing result (ran: the indices expected)."""
    printed = {int(m[1]): json.loads(m[2]) for m in RESULT.finditer(output)}
    problems = []
    for i, call in enumerate(book.calls, start=1):
        if ran is not None and i not in ran:
            continue
        label = f"{book.slug} [{i}] {call['module']}.measure({call['shown']})"
        if i not in printed:
            problems.append(f"{label}: printed no result")
            continue
        rtol = float(call["tolerance"]) if call.get("tolerance") is not None else EXACT_RTOL
        if timed(call["module"]):
            rtol = None
        found = _differences(call["result"], printed[i], rtol)
        hint = "" if rtol is None else " (a wall-clock timing? add its module to TIMED in sitekit/notebooks.py)"
        problems += [f"{label}: {d}{hint}" for d in found]
    return problems
