"""The ledger (the Claims page): one row per claim with its key value, kind, margin and devices; the
harness settings and the counts of claims by kind; the claims no page cites."""

from __future__ import annotations

import ast
import re
from collections import Counter

from sitekit import rotations
from sitekit.claims import ROOT, Claim, ClaimError
from sitekit.margins import thinnest
from sitekit.page_context import MACRO, Context, cuda_record, device_independent, macro
from sitekit.receipts import KIND_LABEL, _cpu_model, anchor, claim_kind, margin_cell, page_anchor, use_anchor
from sitekit.typesetting import _attr, _number, fmt, typeset

# The ledger.
HEADLINE = "headline"  # a claim may record its key value under this name; see key_value()


# Recorded keys that describe the set-up (how many seeds, which width) rather than an outcome.
SETTINGS = frozenset(
    [
        "seeds",
        "d",
        "depth",
        "width",
        "widths",
        "tokens",
        "n",
        "k",
        "k0",
        "L",
        "steps",
        "epochs",
        "threads",
        "heads",
        "B",
        "T",
        "rounds",
        "layers",
        "dim",
    ]
)


def _page_values(pages: list[str]) -> dict[str, list[tuple[str, str]]]:
    """ "page\0claim id" -> the (key, spec) of each value() that page shows of the claim, in order."""
    found: dict[str, list[tuple[str, str]]] = {}
    for page in pages:
        path = ROOT / "docs" / page
        if not path.is_file() or not page.endswith(".md"):
            continue
        for m in MACRO.finditer(path.read_text(encoding="utf-8")):
            if m["name"] != "value":
                continue
            try:
                args = ast.literal_eval(f"({m['args']},)")
            except (SyntaxError, ValueError):
                continue
            if len(args) >= 2 and isinstance(args[0], str):
                spec = str(args[2]) if len(args) > 2 else ""
                found.setdefault(f"{page}\0{args[0]}", []).append((str(args[1]), spec))
    return found


def _outcome(key: str) -> bool:
    return key.split(".")[0] not in SETTINGS and not key.startswith("provenance")


def key_value(c: Claim, shown: dict[str, list[tuple[str, str]]]) -> tuple[str, str]:
    """(what it is, typeset value): the claim's outcome as a ledger row shows it.

    In order: a value recorded under `headline`; else the measured value its thinnest margin is about (the
    worst of the runs, with the margin's own words for what it is); else, for a claim without margins, what
    its check is ("holds exactly", "holds by construction"). Never a setting of the run (a depth, a seed
    count) or a recorded key's internal name. `shown` (the values pages show) is kept for callers.
    """
    if HEADLINE in c.values and not isinstance(c.values[HEADLINE], (dict, list)):
        return "", fmt(c.values[HEADLINE], ".3g")
    m = thinnest(getattr(c, "margins", None) or [])
    if m is not None and _number(m.get("worst")):
        n = m.get("n")
        what = str(m.get("what", ""))
        return (f"{what}, worst of {n}" if isinstance(n, int) and n > 1 else what), fmt(m["worst"], ".3g")
    if getattr(c, "identity", None):
        return "", "holds by construction"
    if getattr(c, "exact", None):
        return "", "holds exactly"
    return "", "—"


def _code_spans(text: str) -> str:
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _attr(typeset(text)))


def _cuda_cell(ctx: Context, c: Claim) -> str:
    gpu = ctx.cuda.get(c.id)
    if c.cpu_only:
        return f"CPU only: {_attr(c.cpu_only)}"
    if device_independent(c):
        return "device-independent (not counted)"
    if gpu is None:
        return "not run yet"
    if gpu.stale:
        return f"stale: code changed since {gpu.recorded_at[:10]}"
    if gpu.status != "passed":
        return _attr(gpu.status)
    _, v = key_value(gpu, {})
    return f"passed {gpu.recorded_at[:10]}" + (f" · {_attr(v)}" if v != "—" else "")


def _cpu_cell(c: Claim) -> str:
    if getattr(c, "cuda_only", None):
        return "CUDA only: not run yet"
    status = "stale" if c.stale else c.status
    reused = getattr(c, "reused", None)
    note = ""
    if reused:
        note = f" · reused{' from ' + _attr(str(reused)[:10]) if isinstance(reused, str) else ''}"
    return f"{_attr(status)} {c.recorded_at[:10]}{note}"


# The harness's own settings that pages explain (How we check): bound to the code that applies them.
HARNESS = {
    "margin_floor": ("sitekit/margins.py", "FLOOR_RELATIVE"),
    "margin_spreads": ("sitekit/margins.py", "FLOOR_SPREADS"),
    "spread_values": ("sitekit/margins.py", "MIN_SPREAD_N"),
}


@macro
def harness(ctx: Context, name: str, spec: str = "") -> str:
    """A setting of the verification harness itself (the margin floor...), read from the module that uses it."""
    from sitekit import margins

    if name not in HARNESS:
        raise ClaimError(
            f"docs/{ctx.page}: harness({name!r}) is not a harness setting; use one of {', '.join(HARNESS)}"
        )
    return fmt(getattr(margins, HARNESS[name][1]), spec)


def kind_counts(ctx: Context) -> Counter[str]:
    """How many claims of each kind (identity, exact, measured) this build shows as verified on CPU."""
    return Counter(claim_kind(c) for c in ctx.cpu.values() if not getattr(c, "cuda_only", None))


@macro
def this_build(ctx: Context) -> str:
    """What this build did with the claims, in one sentence: all run, or how many records it reused.

    How we check states it through this macro, so the page cannot say "every claim ran" of a build that reused
    records (honesty audit 6.9): the sentence is made from the records the build read.
    """
    verified = [c for c in ctx.cpu.values() if not getattr(c, "cuda_only", None)]
    reused = [c for c in verified if getattr(c, "reused", None)]
    experiments = [c for c in verified if getattr(c, "experiment", None)]
    when = max((c.recorded_at[:10] for c in verified), default="?")
    if not reused:
        again = sum(1 for c in experiments if getattr(c, "reproduced", None))
        tail = (
            f", {len(experiments)} of them experiments that this run reproduced from their committed records"
            if experiments and again == len(experiments)
            else ""
        )
        return (
            f"This copy of the site was built after all {len(verified)} claims ran on a CPU, the latest on "
            f"{when}{tail}."
        )
    files = [c for c in verified if getattr(c, "ran", None)]  # claims of experiment files: committed records
    resting = [c for c in reused if getattr(c, "ran", None)]
    reproduced = all(getattr(c, "reproduced", None) for c in resting if getattr(c, "experiment", None))
    if len(resting) == len(reused) and reproduced:  # CI's rotation: experiment files resting on reproductions
        return (
            f"This copy of the site was built after its {len(verified) - len(files)} claims outside the "
            f"experiment files ran on a CPU, the latest on {when}. Of the {len(files)} claims in experiment "
            f"files, {len(files) - len(resting)} ran again and reproduced their committed records; the other "
            f"{len(resting)} show committed records that an earlier run of CI reproduced, and each runs again "
            f"within {rotations.EXPERIMENTS} builds, or in the build that changes it."
        )
    oldest = min(c.recorded_at[:10] for c in reused)
    committed = sum(1 for c in reused if getattr(c, "experiment", None))
    of_which = f" ({committed} of them experiments, from their committed records)" if committed else ""
    return (
        f"This copy of the site is a contributor's build: it ran {len(verified) - len(reused)} of its "
        f"{len(verified)} claims and reused the passing records of the other {len(reused)}{of_which}, whose code "
        f"had not changed since they ran (the oldest on {oldest}); a published build runs them all."
    )


@macro
def rotation(ctx: Context, name: str) -> str:
    """How many builds one of CI's rotations spans (sitekit/rotations.py: HELD_OUT, EXPERIMENTS, NOTEBOOKS)."""
    value = getattr(rotations, name, None) if name.isupper() else None
    if not isinstance(value, int):
        raise ClaimError(f"docs/{ctx.page}: rotation({name!r}): use HELD_OUT, EXPERIMENTS or NOTEBOOKS")
    return str(value)


@macro
def kinds(ctx: Context, kind: str) -> str:
    """How many claims of one kind (identity, exact, measured) the ledger holds."""
    if kind not in KIND_LABEL:
        raise ClaimError(f"docs/{ctx.page}: kinds({kind!r}): use one of {', '.join(KIND_LABEL)}")
    return str(kind_counts(ctx)[kind])


@macro
def ledger(ctx: Context) -> str:
    """Every claim, grouped by page in reading order, one light row each (raw HTML: small DOM)."""
    by_page: dict[str, list[Claim]] = {}
    for c in ctx.cpu.values():
        by_page.setdefault(c.page, []).append(c)
    order = {p: i for i, p in enumerate(ctx.page_order)}
    pages = sorted(by_page, key=lambda p: (order.get(p, len(order)), p))
    shown = _page_values(pages)
    cuda_only = [c for c in ctx.cpu.values() if getattr(c, "cuda_only", None)]
    total = len(ctx.cpu) - len(cuda_only)
    verified = [c for c in ctx.cpu.values() if not getattr(c, "cuda_only", None)]
    kinds = kind_counts(ctx)
    reused = sum(1 for c in verified if getattr(c, "reused", None))
    with_cuda = bool(ctx.cuda)
    gpu_fresh = sum(1 for cid in ctx.cpu if cuda_record(ctx, cid) is not None)
    cpu = ctx.cpu_provenance
    ran = (
        f"all {total} run by this build"
        if not reused
        else f"{total - reused} run by this build and {reused} reused from an earlier run of the same code"
    )
    head = (
        f'<p class="ledger-summary">{total} claims on {len(pages)} pages, every one passing on CPU '
        f"({_attr(_cpu_model(cpu))}, torch {_attr(str(cpu.get('torch', '?')))}; {ran}). "
        f"Of these: measured findings {kinds['measured']}, each shown with the margin by which its worst case "
        f"cleared its threshold; exact findings {kinds['exact']} (counts and equalities that could have come out "
        f"otherwise, checked exactly); checked identities {kinds['identity']}, which hold by construction (the "
        "code computes what the algebra says) and are not evidence for anything"
    )
    n_exp = sum(1 for c in verified if getattr(c, "experiment", None))
    if n_exp:
        head += (
            f". {n_exp} of the claims are experiments (each trains or sweeps for minutes): their records are "
            "committed with where they ran, a build that is not fresh reuses them, and a fresh run must "
            "reproduce them within the tolerance each states or the variation its seeds show"
        )
    if cuda_only:
        head += f"; {len(cuda_only)} more claim{'s' if len(cuda_only) != 1 else ''} about CUDA, not run yet"
    if with_cuda:
        head += f"; {gpu_fresh} verified on CUDA on the current code.</p>"
    else:
        head += (
            ". CUDA has not run yet: no <code>results/cuda.json</code> is recorded, so no claim is counted "
            "as verified on a GPU.</p>"
        )
    out = [
        '<div class="ledger" markdown="0">',
        head,
        '<p class="ledger-tools" hidden><label for="ledger-filter">Filter</label> '
        '<input type="search" id="ledger-filter" placeholder="a word, a page or a test" autocomplete="off"> '
        '<output id="ledger-count" aria-live="polite"></output></p>',
    ]
    cols = "<th>Claim</th><th>Key value</th><th>Margin</th><th>CPU</th>" + ("<th>CUDA</th>" if with_cuda else "")
    for page in pages:
        group = sorted(by_page[page], key=lambda c: c.id)
        title = ctx.page_titles.get(page, page)
        out.append(
            f'<details class="ledger-page" id="{page_anchor(page)}" open><summary>{_attr(title)} '
            f"<small>{len(group)} claim{'s' if len(group) != 1 else ''}</small></summary>"
            f'<a class="ledger-goto" href="{ctx.url(page)}">Read {_attr(title)}</a>'
            f'<table class="ledger-table"><thead><tr>{cols}</tr></thead><tbody>'
        )
        for c in group:
            k, v = key_value(c, shown)
            back = f' <a class="back" href="{ctx.url(page, use_anchor(c.id))}">in context</a>'
            if getattr(c, "cuda_only", None):
                back = ""  # not verified yet: no page shows it
            cuda = f"<td>{_cuda_cell(ctx, c)}</td>" if with_cuda else ""
            out.append(
                f'<tr id="{anchor(c.id)}"><td>{_code_spans(c.statement)}{back}'
                f'<small class="t">{_attr(c.test)}</small></td>'
                f'<td class="kv">{_attr(v)}{f" <small>{_code_spans(k)}</small>" if k else ""}</td>'
                f'<td class="kv margin">{_attr(margin_cell(c))}</td>'  # "margin" by CSS: one element less a row
                f"<td>{_cpu_cell(c)}</td>{cuda}</tr>"
            )
        out.append("</tbody></table></details>")
    out.append("</div>")
    return "\n".join(out)


def uncited(cpu: dict[str, Claim], cited: dict[str, set[str]]) -> list[str]:
    """Problems for claims that the page named in their marker never shows."""
    return [
        f"{c.test} (claim {cid!r}) names page docs/{c.page}, which never cites it: add "
        f'{{{{ claim("{cid}") }}}} or a value/table/figure from it to that page.'
        for cid, c in sorted(cpu.items())
        if cid not in cited.get(c.page, set()) and not getattr(c, "cuda_only", None)
    ]
