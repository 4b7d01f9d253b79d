"""Every number a claim's sentence states must be one the claim recorded, at the precision shown.

The rules, in the order they apply to each number in the sentence:

- **Names and references are not quantities**: a number glued to a letter or to `letter-` (ResNet-50,
  VGG-19, float64, J_0, LN1, expansion-4), one after an exponent sign (`e^−10`, `)^25`), or one after
  `arXiv`, `doi`, `Part`, `Section`, `§`, `Table`, `Fig.`, `Eq.` or `page` is part of a name.
- **Years**: a four-digit integer from 1900 to 2099 after `in`, `of`, a capitalised word (`ILSVRC 2015`)
  or an opening parenthesis is a date.
- **Formulas**: a number that multiplies a letter (`12d²`, `16·N·d²`, `2·e·d`), divides or is divided by
  a symbol (`1/σ`, `g/2`, `2/fan_in`, `1/(16d)`), is raised to or raises a symbol (`2^L`), or is added to,
  subtracted from or compared with a symbol (`1 − T`, `d − 2`, `T > 0`) is notation.
- **Everything else is a quantity** and must match a recorded number (anywhere in the record: nested
  lists, dicts and tables count), ignoring sign:
  - `5`, `0.47`, `1.9995`: the recorded value rounds to it at the decimals shown;
  - `3.5 %`: the recorded value, or 100 × it, rounds to it;
  - `25.6M`, `175.0 billion`, `350 GB`, `326 GiB`: the value, or the value over the unit, rounds to it;
  - `1e-20`, `10¹¹`: a power of ten matches a value of that order (log10 rounds to the exponent);
    `4.4e-29` matches at the significant digits shown; `2³⁰` matches its value;
  - `1/18`, `152 / 19`: a fraction of two numbers matches its quotient to 1e-6, or both parts separately;
  - `7,978,856`: thousands separators are dropped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_NUMBER = re.compile(
    r"(?P<sign>[-−+])?(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?P<frac>\.\d+)?"
    r"(?:e(?P<exp>[-−+]?\d+))?(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)?"
)
_UNITS = {"M": 1e6, "billion": 1e9, "GB": 1e9, "GiB": 2.0**30, "MiB": 2.0**20, "k": 1e3}
_REFERENCES = re.compile(r"(?:arXiv|doi:?|Part|Section|§|Table|Fig\.|Figure|Eq\.|page|p\.)\s*$")
_LETTER = r"A-Za-zα-ωΑ-Ω_'√∂"
_SYMBOL_OPERAND = re.compile(rf"^\s*(?:[·/^⊙]|\s[−+<>]\s|\s×\s)\s*[{_LETTER}(‖|]")
_OPERAND_SYMBOL = re.compile(rf"[{_LETTER})²]\s*(?:[·/^⊙±]|\s[−+<>]\s|\s×\s)\s*$")

Match = Callable[[float], bool]


def _close(a: float, b: float, decimals: int) -> bool:
    return abs(round(a, decimals) - b) < 10.0 ** -(decimals + 6)


def _word_before(text: str) -> str:
    m = re.search(r"(\S+)\s*$", text)
    return m.group(1) if m else ""


def _is_notation(text: str, start: int, end: int, sign: str | None) -> bool:
    before, after = text[:start], text[end:]
    if sign is None and start and text[start - 1] in "-−+":
        before = text[: start - 1]  # "e^−10": the sign belongs to the exponent
    if re.search(rf"[{_LETTER}\d]-?$", before) or re.search(r"\^\(?$", before.rstrip("−-")):
        return True  # ResNet-50, J_0, float64, e^−10, L^(-1/...)
    if _REFERENCES.search(before):
        return True
    if re.match(rf"[{_LETTER}]", after) and not any(after.startswith(u) for u in _UNITS):
        return True  # 12d², 16d, 2m
    if re.match(r"\s*\^", after):
        return True  # 2^L
    return bool(_SYMBOL_OPERAND.match(after) or _OPERAND_SYMBOL.search(before))


def _is_year(text: str, start: int, value: float, literal: str) -> bool:
    if not (re.fullmatch(r"\d{4}", literal) and 1900 <= value <= 2099):
        return False
    word = _word_before(text[:start])
    return word in ("in", "of") or text[:start].endswith("(") or bool(re.fullmatch(r"[A-Z][A-Za-z]*", word))


def sentence_numbers(text: str) -> Iterator[tuple[str, Match]]:
    """Each quantity the sentence states, as (its text, a test that a recorded number shows it)."""
    text = text.replace("\u2009", " ").replace("\u00a0", " ")
    spans = list(_NUMBER.finditer(text))
    skip: set[int] = set()
    for i, m in enumerate(spans):
        if i in skip or (m.start() and (text[m.start() - 1].isdigit() or text[m.start() - 1] == ".")):
            continue
        sign = m.group("sign")
        if sign and m.start() and re.match(rf"[{_LETTER}\d)]", text[m.start() - 1]):
            sign = None  # "2m-2": a minus between symbols, not a signed number
        start = m.start() if sign else m.start("int")
        if _is_notation(text, start, m.end(), sign):
            continue
        literal = m.group("int").replace(",", "")
        frac = m.group("frac") or ""
        value = float(literal + frac)
        if _is_year(text, start, value, literal + frac):
            continue
        shown = text[start : m.end()]
        # A fraction of two plain numbers: "1/18", "152 / 19".
        nxt = spans[i + 1] if i + 1 < len(spans) else None
        if (
            nxt is not None
            and re.fullmatch(r"\s*/\s*", text[m.end() : nxt.start()])
            and not nxt.group("exp")
            and not nxt.group("sup")
            and not _is_notation(text, nxt.start(), nxt.end(), None)
            and not m.group("exp")
            and not m.group("sup")
        ):
            skip.add(i + 1)
            num, den = value, float(nxt.group("int").replace(",", "") + (nxt.group("frac") or ""))
            parts = [_plain(num, max(len(frac) - 1, 0), ""), _plain(den, max(len(nxt.group("frac") or "") - 1, 0), "")]

            def quotient(v: float, q: float = num / den, parts: list[Match] = parts) -> bool:
                return math.isclose(abs(v), q, rel_tol=1e-6)

            whole = text[start : nxt.end()]
            yield whole, _either(quotient, parts)
            continue
        if m.group("exp") is not None or m.group("sup"):
            exponent = int((m.group("exp") or m.group("sup").translate(_SUP)).replace("−", "-"))
            if m.group("sup"):
                target = value**exponent
                if value == 10:
                    yield shown, _order(exponent)
                else:
                    yield shown, lambda v, t=target: math.isclose(abs(v), t, rel_tol=1e-9)
                continue
            if value == 1 and not frac:
                yield shown, _order(exponent)
                continue
            digits = len(literal.lstrip("0") + frac.lstrip(".")) - 1
            target = value * 10.0**exponent
            yield shown, lambda v, t=target, s=digits: v != 0 and float(f"{abs(v):.{s}e}") == float(f"{t:.{s}e}")
            continue
        unit = re.match(r"\s*(%|M\b|billion|GB|GiB|MiB|k\b)", text[m.end() :])
        yield shown, _plain(value, len(frac) - 1 if frac else 0, unit.group(1) if unit else "")


def _plain(value: float, decimals: int, unit: str = "") -> Match:
    scale = 100.0 if unit == "%" else _UNITS.get(unit)

    def match(v: float) -> bool:
        v = abs(v)
        if _close(v, value, decimals):
            return True
        if unit == "%":
            return _close(v * 100.0, value, decimals)
        return scale is not None and _close(v / scale, value, decimals)

    return match


def _order(exponent: int) -> Match:
    return lambda v: v != 0 and round(math.log10(abs(v))) == exponent


def _either(whole: Match, parts: list[Match]) -> Match:
    # The quotient matches one recorded number; the parts may match two different ones.
    state = [False, False]

    def match(v: float) -> bool:
        if whole(v):
            return True
        for j, part in enumerate(parts):
            state[j] = state[j] or part(v)
        return all(state)

    return match


def recorded_numbers(value: Any) -> Iterator[float]:
    """Every finite number in a record (nested dicts, lists and tables), booleans left out."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)):
        if math.isfinite(value):
            yield float(value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from recorded_numbers(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from recorded_numbers(v)


def unbound(statement: str, values: dict[str, Any]) -> list[str]:
    """The quantities a claim's sentence states that none of its recorded numbers shows."""
    numbers = list(recorded_numbers(values))
    return [shown for shown, match in sentence_numbers(statement) if not any(match(v) for v in numbers)]
