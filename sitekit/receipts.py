"""Receipts: the anchors, the popover record of a claim, its marker and the receipt line under a table or
figure, and the words for a claim's kind, margin, device and counterfactuals."""

from __future__ import annotations

import math
import re
from typing import Any

from sitekit import receipt_labels
from sitekit.claims import Claim
from sitekit.margins import describe, relative, thinnest
from sitekit.page_context import Context, cuda_record, device_independent
from sitekit.typesetting import NUMERIC_TEXT, _attr, _inline, _number, fmt, typeset


# Receipts.
def anchor(cid: str) -> str:
    """The id of a claim's row in the ledger."""
    return "claim-" + cid.replace("_", "-")


def use_anchor(cid: str) -> str:
    """The id of the first receipt of a claim on its own page (the ledger links back to it)."""
    return "use-" + cid.replace("_", "-")


def page_anchor(page: str) -> str:
    """The id of a page's group in the ledger."""
    return "page-" + re.sub(r"[^a-z0-9]+", "-", page.removesuffix(".md").lower()).strip("-")


def listing_anchor(snippet: str) -> str:
    """The id given to the first listing of a snippet on a page (sitekit/html_stage.py sets it)."""
    return "src-" + re.sub(r"[^a-z0-9]+", "-", snippet.removesuffix(".py").lower()).strip("-")


SOURCE_DIR = "src"  # published copies of the snippets a page lists: site/src/snippets/<topic>/<name>.py


def _cpu_model(prov: dict[str, Any]) -> str:
    return re.sub(r"\s*\((?:R|TM)\)", "", str(prov.get("cpu") or prov.get("processor") or "CPU"))


def _threads(n: Any) -> str:
    return f"{n} thread" if n == 1 else f"{n} threads"


def _device_line(c: Claim, prov: dict[str, Any]) -> str:
    if c.device == "cpu":
        model = _cpu_model(prov)
        threads = prov.get("threads")
        return f"CPU ({model}{f', {_threads(threads)}' if threads else ''})"
    return f"CUDA ({prov.get('gpu') or c.device})"


def _tolerance(values: dict[str, Any]) -> str | None:
    found = [f"{k} {fmt(values[k], '.2g')}" for k in ("tolerance", "rtol", "atol") if _number(values.get(k))]
    return ", ".join(found) or None


def _counterfactuals(c: Claim) -> list[str]:
    """Each counterfactual as one line: what was run instead, and what it measured where recorded."""
    out = []
    for item in c.counterfactuals:
        if isinstance(item, dict):
            because = str(item.get("because", ""))
            measured = item.get("measured")
            out.append(f"{because}: measured {fmt(measured, '.3g')}" if measured is not None else because)
        else:
            out.append(str(item))
    return out


def claim_kind(c: Claim) -> str:
    """'identity' (holds by construction: not evidence), 'exact' (a finding checked exactly) or 'measured'."""
    if getattr(c, "identity", None):
        return "identity"
    return "exact" if getattr(c, "exact", None) else "measured"


KIND_LABEL = {"identity": "checked identity", "exact": "exact finding", "measured": "measured finding"}


def margin_text(c: Claim) -> str:
    """How the claim's check came out, in words: 'checked exactly: ...' or its thinnest margin."""
    if getattr(c, "identity", None):
        return f"checked identity (holds by construction, not evidence): {c.identity}"
    if getattr(c, "exact", None):
        return f"checked exactly: {c.exact}"
    m = thinnest(getattr(c, "margins", None) or [])
    if m is None:
        return "no margin recorded"
    side = "above" if m["op"] == ">" else "below"
    seeds = f" of {m['n']} values" if m["n"] > 1 else ""
    return typeset(
        f"{describe(m)} (thinnest: {m['what']} {side} {fmt(m['threshold'], '.3g')}; "
        f"worst{seeds} {fmt(m['worst'], '.3g')}, median {fmt(m['median'], '.3g')})"
    )


def margin_cell(c: Claim) -> str:
    """The ledger's short form: 'identity', 'exact', or the thinnest margin as a percentage or a multiple."""
    if getattr(c, "identity", None):
        return "identity"
    if getattr(c, "exact", None):
        return "exact"
    m = thinnest(getattr(c, "margins", None) or [])
    if m is None:
        return "—"
    rel = relative(m)
    if not math.isfinite(rel):
        return "sign"
    if m["op"] == ">" and m["threshold"] > 0 and rel >= 1:
        return typeset(f"{fmt(m['worst'] / m['threshold'], '.2g')}× the threshold")
    return f"{fmt(100 * rel, '.2g')} %"


def receipt_data(ctx: Context, c: Claim) -> dict[str, Any]:
    """What a receipt's popover shows for claim `c` (sitekit/rendered.py writes it into the page)."""
    if c.id in ctx.receipts:
        return ctx.receipts[c.id]
    runs = [
        {
            "device": _device_line(c, ctx.cpu_provenance),
            "torch": c.torch,
            "date": c.recorded_at[:10],
            "reused": getattr(c, "reused", None),
        }
    ]
    gpu = cuda_record(ctx, c.id)
    if gpu is not None:
        runs.append(
            {
                "device": _device_line(gpu, ctx.cuda_provenance),
                "torch": gpu.torch,
                "date": gpu.recorded_at[:10],
                "reused": getattr(gpu, "reused", None),
            }
        )
    listing = ctx.listings.get(c.snippet)
    data = {
        "title": typeset(receipt_labels.title(c.id)),
        "what": {},
        "statement": typeset(c.statement),
        "test": c.test,
        "snippet": c.snippet,
        "runs": runs,
        "device_independent": device_independent(c),
        "margin": margin_text(c),
        "kind": KIND_LABEL[claim_kind(c)],
        "experiment": experiment_text(c),
        "asserted": list(getattr(c, "asserted_keys", None) or []),
        "seeds": c.values.get("seeds") if _number(c.values.get("seeds")) else None,
        "tolerance": _tolerance(c.values),
        "counterfactuals": _counterfactuals(c),
        "listing": f"#{listing}"
        if listing
        else ctx.url(f"{SOURCE_DIR}/{c.snippet}")
        if c.snippet in ctx.sources
        else None,
        "ledger": ctx.url("claims.md", anchor(c.id)),
        "values": {},
    }
    ctx.receipts[c.id] = data
    return data


def _where_when(info: dict[str, Any] | None) -> str:
    if not info:
        return ""
    wall = f", {info['wall_s']:.0f} s" if _number(info.get("wall_s")) else ""
    cpu = re.sub(r"\s*\((?:R|TM)\)", "", str(info.get("cpu", "?")))
    return f"{str(info.get('date', '?'))[:10]} on {cpu} ({info.get('cores', '?')} cores{wall})"


def experiment_text(c: Claim) -> str | None:
    """An experiment's receipt line: what it runs, its committed run, and whether a fresh run reproduced it."""
    what = getattr(c, "experiment", None)
    if not what:
        return None
    ran, again = getattr(c, "ran", None), getattr(c, "reproduced", None)
    tol = getattr(c, "tolerance", None)
    within = f"within {fmt(100 * tol, '.2g')} %" if _number(tol) else "within its tolerance"
    text = f"{what}; committed run {_where_when(ran)}" if ran else f"{what}; no committed run"
    if again and not getattr(c, "reused", None):
        text += f"; this build ran it again and reproduced the committed record {within} ({_where_when(again)})"
    elif again:
        text += f"; last reproduced by a fresh run {within} on {_where_when(again)}"
    else:
        text += f"; a fresh run must reproduce it {within} (CI runs it)"
    return text


def receipt(
    ctx: Context, c: Claim, text: str, key: str | None = None, raw: Any = None, kind: str = "", label: str = ""
) -> str:
    """`text` as a receipt for claim `c`: a link to its ledger row that receipts.js opens as a popover."""
    data = receipt_data(ctx, c)
    numeric = _number(raw) or (isinstance(raw, str) and bool(NUMERIC_TEXT.fullmatch(raw)))
    kind = kind or ("num" if numeric and len(text) < 40 else "")  # a number never breaks; text may wrap
    classes = " ".join(x for x in ("rcpt", kind, f"k-{claim_kind(c)}") if x)
    attrs = {"class": classes, "href": data["ledger"], "data-claim": c.id}
    if key is not None:
        attrs["data-key"] = key
        if _number(raw) or isinstance(raw, str):
            data["values"][key] = raw
        what = receipt_labels.label(c.id, key)
        if what:
            data["what"][key] = typeset(what)
    if c.page == ctx.page and c.id not in ctx.anchored:
        attrs["id"] = use_anchor(c.id)
        ctx.anchored.add(c.id)
    ctx.block.add(c.id)
    if kind == "rcpt-mark":  # a marker carries no number: name the claim, after any visible label
        said = typeset(c.statement)  # read aloud as "10 to the 5", not "1 e 5"
        attrs["aria-label"] = f"{label}, the receipt for: {said}" if label else f"Receipt: {said}"
    body = " ".join(f'{k}="{_attr(v)}"' for k, v in attrs.items())
    return f"<a {body}>{text}</a>"


def marker(ctx: Context, c: Claim, label: str = "") -> str:
    """A small receipt marker (for a sentence, table, error or figure without its own receipt)."""
    mark = '<span class="rcpt-icon" aria-hidden="true"></span>'
    text = f"{mark}{_inline(label)}" if label else mark
    return receipt(ctx, c, text, kind="rcpt-mark", label=label)


def receipt_line(ctx: Context, claims: list[Claim], what: str) -> str:
    """One small mark under a table, error, code block or figure: "measured", its receipt; where several claims
    drew it, the one mark opens to what it was drawn from and a receipt for each."""
    if len(claims) == 1:
        return f'<p class="rcpt-line">{marker(ctx, claims[0], "measured")}</p>'
    marks = " ".join(marker(ctx, c, str(i)) for i, c in enumerate(claims, start=1))
    return (
        f'<details class="rcpt-line"><summary><span class="rcpt-icon" aria-hidden="true"></span>measured'
        f"</summary>{_inline(what)} Receipts: {marks}</details>"
    )
