"""The unbound-number lint for a notebook's markdown cells (the worked solution, the page notebooks).

The rules are sitekit.numbers' (`check_page`); what binds a number differs: a notebook's prose is bound by a
literal in its own code cells or a number in its executed outputs.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import tokenize

from sitekit.numbers import SMALL, Unbound, _blank_all, _context, check_page

NOTEBOOK_FIX = (
    "bind it: set it in one of the notebook's code cells (configuration) or print it in an executed output "
    "(measured), or rephrase without it"
)
WORDS = {w: i for i, w in enumerate(SMALL.split("|"), start=2)} | {
    "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "thousand": 1000
}  # fmt: skip
SCIENTIFIC = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:e[-+]?\d+|\s*×\s*10\^\{?[-−]?\d+\}?)(?!\w|\.\d)", re.I)


def _value(text: str) -> float | None:
    """A number as written (1,000 / 1.2e-38 / 1.2 × 10^-38 / fifty), or None."""
    text = text.replace(",", "").replace("−", "-").replace("{", "").replace("}", "")
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*×\s*10\^?(-?\d+)", text)
    if m:
        return float(m[1]) * 10 ** int(m[2])
    words = re.findall(r"[a-z]+", text.lower())
    for word in words:
        if word in WORDS:
            return float(WORDS[word])
    try:
        return float(text)
    except ValueError:
        return None


def _shown_as(value: float, written: str) -> bool:
    """Whether `value` reads as `written` at the precision written (1.17e-38 reads as 1.2e-38)."""
    shown = _value(written)
    if shown is None:
        return False
    if shown == value:
        return True
    mantissa = re.split(r"e|×", written.replace(",", ""), flags=re.I)[0].strip()
    digits = len(re.sub(r"\D", "", mantissa).lstrip("0")) or 1
    return value != 0 and f"{value:.{digits}g}" == f"{shown:.{digits}g}"


def notebook_values(cells: list[dict]) -> set[float]:
    """What binds a notebook's prose: literals in its code cells and numbers in its executed outputs."""
    values: set[float] = set()
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", ""))
        code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        with contextlib.suppress(tokenize.TokenError, IndentationError, SyntaxError):  # what tokenizes counts
            for tok in tokenize.generate_tokens(io.StringIO(code).readline):
                if tok.type == tokenize.NUMBER and not tok.string.lower().endswith("j"):
                    values.add(float(ast.literal_eval(tok.string)))  # 1_000, 0x10, 1e-3
        for out in cell.get("outputs", []):
            text = "".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
            for m in re.finditer(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text, re.I):
                values.add(float(m[0]))
    return values


def check_notebook(source: str, page: str) -> list[Unbound]:
    """Unbound numbers in a notebook's markdown cells (docs path `page`): a number there is bound when
    it is a literal in the notebook's code cells or appears in an executed output; rules 1-11 apply too."""
    try:
        cells = json.loads(source)["cells"]
    except (ValueError, KeyError, TypeError) as err:
        return [Unbound(f"docs/{page}", "", "", f"not a readable notebook ({err}): re-run the tests that write it")]
    bound = notebook_values(cells)
    out: list[Unbound] = []
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "markdown":
            continue
        text = "".join(cell.get("source", ""))
        where = f"docs/{page}: cell {i + 1} (markdown)"
        for m in SCIENTIFIC.finditer(text):  # 1.2e-38 is one number, not 1.2 and 38
            if not any(_shown_as(v, m[0]) for v in bound):
                out.append(Unbound(where, m[0], _context(text, m[0]), NOTEBOOK_FIX))
        text = _blank_all(SCIENTIFIC, text)
        for u in check_page(text, page):
            if any(_shown_as(v, u.number) for v in bound):
                continue
            line = u.where.rsplit(":", 1)[-1]
            out.append(Unbound(f"{where}, line {line}", u.number, u.context, NOTEBOOK_FIX))
    return out
