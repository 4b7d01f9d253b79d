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
from dataclasses import dataclass
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
    """Whether `a` prints as `b` at `decimals` decimals: a in [b - h, b + h) for half a unit h (no ties to even)."""
    h = 0.5 * 10.0**-decimals
    eps = 10.0 ** -(decimals + 9) * max(1.0, abs(b))
    return b - h - eps <= a < b + h - eps


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


# A number after one of these is a bound the check asserts, not a reading: it binds to an asserted threshold.
_COMPARATIVE = re.compile(
    r"(?:\b(?:under|below|above|exceeds?|exceeding|beyond|within|(?:more|less|fewer|greater|smaller|larger|lower|"
    r"higher|no more|no less) than|at (?:least|most)|none over|none under)|[<>≤≥])\s*(?:a factor (?:of )?)?$",
    re.I,
)
_EXACTLY = re.compile(r"\bexactly\s*$", re.I)


@dataclass(frozen=True)
class Quantity:
    """A number a claim's sentence states: its text, a test that a value shows it, and what must show it."""

    shown: str
    match: Match
    bound: bool  # after "below", "more than", "within"...: only a threshold the check asserted binds it
    exactly: bool = False  # after "exactly": only an equal value binds it


def sentence_quantities(text: str) -> Iterator[Quantity]:
    """Each quantity the sentence states, in digits or in words (see the module's rules)."""
    text = text.replace("\u2009", " ").replace("\u00a0", " ")
    for shown, match, start in _digit_numbers(text):
        before = text[:start]
        exactly = bool(_EXACTLY.search(before))
        if exactly:
            target = _first_value(shown)
            match = (
                (lambda v, t=target: math.isclose(abs(v), t, rel_tol=1e-12, abs_tol=1e-300))
                if target is not None
                else match
            )
        after = text[start + len(shown) :]
        over = bool(re.search(r"\bover\s*$", before) and re.match(r"\s*(?:×|%|times\b)", after))  # "over 1e6×"
        yield Quantity(shown, match, bound=bool(_COMPARATIVE.search(before)) or over, exactly=exactly)
    for m in _SPELLED.finditer(text):
        value = _spelled_value(m[0])
        if value is None:
            continue
        before = text[: m.start()]
        # A count or a multiple in words is written to the unit ("doubles" is 2); a fraction in words to two
        # significant figures ("one sixth" is 0.17).
        match = _plain(value, 0) if value >= 1 else _two_figures(value)
        yield Quantity(m[0], match, bound=bool(_COMPARATIVE.search(before)) or "magnitude" in m[0].lower())


def sentence_numbers(text: str) -> Iterator[tuple[str, Match]]:
    """Each quantity the sentence states, as (its text, a test that a recorded number shows it)."""
    for q in sentence_quantities(text):
        yield q.shown, q.match


def _equal(target: float) -> Match:
    return lambda v: math.isclose(abs(v), target, rel_tol=1e-12, abs_tol=1e-300)


def _two_figures(target: float) -> Match:
    return lambda v: v != 0 and f"{abs(v):.2g}" == f"{target:.2g}"


def _first_value(shown: str) -> float | None:
    m = re.match(r"[-−+]?(\d[\d,]*)(\.\d+)?(?:e([-−+]?\d+))?", shown)
    if not m:
        return None
    v = float(m.group(1).replace(",", "") + (m.group(2) or ""))
    return v * 10.0 ** int(m.group(3).replace("−", "-")) if m.group(3) else v


# Numbers in words (a claim's sentence states "one sixth" or "six deletions" as surely as "1/6" or "6").
_CARDINALS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "hundred": 100, "thousand": 1000, "million": 1e6}
_ORDINAL_PARTS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5, "fifths": 5,
    "sixth": 6, "sixths": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "tenths": 10,
}  # fmt: skip
_MULTIPLES = {
    "twice": 2, "doubles": 2, "doubled": 2, "double": 2, "thrice": 3, "triples": 3, "tripled": 3,
    "triple": 3, "quadruples": 4, "quadrupled": 4, "quadruple": 4, "halves": 0.5, "halved": 0.5, "halve": 0.5,
}  # fmt: skip
_CARDINAL_WORDS = "|".join(w for w in _CARDINALS if w not in ("zero", "one"))
_SPELLED = re.compile(
    r"\b(?:(?:an?|one|two|three)[- ])?(?:half|halves|thirds?|quarters?|fifths?|sixths?|sevenths?|eighths?|ninths?|"
    r"tenths?)\b(?! as\b)"
    rf"|\b(?:{_CARDINAL_WORDS})(?:[- ]?fold)?\b"
    r"|\b(?:an|one|two|three) orders? of magnitude\b"
    r"|\b(?:twice|thrice|doubles|doubled|triples|tripled|quadruples|quadrupled)\b",
    re.I,
)


def _spelled_value(words: str) -> float | None:
    """The value of a number in words: "one sixth" 1/6, "half" 0.5, "six" 6, "ten-fold" 10, "twice" 2."""
    w = words.lower().replace("-", " ").split()
    if w[-1] == "magnitude":
        return 10.0 ** {"an": 1, "one": 1, "two": 2, "three": 3}[w[0]]
    if w[-1] in _MULTIPLES and len(w) == 1:
        return float(_MULTIPLES[w[-1]])
    if w[-1] == "fold" or w[-1].endswith("fold"):
        base = w[0].removesuffix("fold")
        return float(_CARDINALS[base]) if base in _CARDINALS else None
    if w[-1] in _ORDINAL_PARTS or w[-1].rstrip("s") in _ORDINAL_PARTS:
        den = _ORDINAL_PARTS.get(w[-1]) or _ORDINAL_PARTS[w[-1].rstrip("s")]
        num = 1 if len(w) == 1 or w[0] in ("a", "an", "one") else _CARDINALS.get(w[0], 1)
        return num / den
    return float(_CARDINALS[w[0]]) if w[0] in _CARDINALS else None


def _digit_numbers(text: str) -> Iterator[tuple[str, Match, int]]:
    """Each quantity written in digits: (its text, its test, where it starts)."""
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

            def quotient(v: float, q: float = num / den) -> bool:
                return math.isclose(abs(v), q, rel_tol=1e-6)

            yield text[start : nxt.end()], quotient, start
            continue
        if m.group("exp") is not None or m.group("sup"):
            exponent = int((m.group("exp") or m.group("sup").translate(_SUP)).replace("−", "-"))
            if m.group("sup"):
                target = value**exponent
                if value == 10:
                    yield shown, _order(exponent), start
                else:
                    yield shown, lambda v, t=target: math.isclose(abs(v), t, rel_tol=1e-9), start
                continue
            if value == 1 and not frac:
                yield shown, _order(exponent), start
                continue
            digits = len(literal.lstrip("0") + frac.lstrip(".")) - 1
            target = value * 10.0**exponent
            yield shown, lambda v, t=target, s=digits: v != 0 and float(f"{abs(v):.{s}e}") == float(f"{t:.{s}e}"), start
            continue
        unit = re.match(r"\s*(%|M\b|billion|GB|GiB|MiB|k\b)", text[m.end() :])
        yield shown, _plain(value, len(frac) - 1 if frac else 0, unit.group(1) if unit else ""), start


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
    """A power of ten matches a value that prints as it at one significant figure (3e-12 is not 1e-12)."""
    return lambda v: v != 0 and float(f"{abs(v):.0e}") == float(f"1e{exponent}")


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


def unbound(statement: str, values: dict[str, Any], asserted: list[float] | None = None) -> list[str]:
    """The quantities a claim's sentence states that nothing the check measured or asserted shows.

    A bound ("below 1e-6", "more than 3") is bound only by a threshold the check asserted (`asserted`, from
    sitekit.margins): a recorded copy of the bound would let the check be loosened under the sentence.
    Any other quantity is bound by a recorded value or an asserted threshold, at the precision written.
    """
    thresholds = [float(t) for t in asserted or [] if isinstance(t, (int, float)) and math.isfinite(t)]
    numbers = list(recorded_numbers(values)) + thresholds
    out = []
    for q in sentence_quantities(statement):
        pool = thresholds if q.bound else numbers
        if not any(q.match(v) for v in pool):
            out.append(q.shown + (" (a bound: assert it through sitekit.margins)" if q.bound else ""))
    return out
