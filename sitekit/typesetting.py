"""Typesetting numbers as a reader expects them (4.4 × 10⁻²⁹, a true minus, no break inside a number), in
Markdown and in built HTML, and text made safe inside raw inline HTML."""

from __future__ import annotations

import fractions
import html
import math
import re
from collections.abc import Callable
from typing import Any

from sitekit.claims import ClaimError

# Typesetting: format specs stay Python's (".1e", ".3g", ".2f", ","), the result is set as a reader
# expects it: 4.4 × 10⁻²⁹ instead of 4.4e-29, a true minus sign, no break inside a number.
SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
MINUS = "\u2212"
NNBSP = "\u202f"  # narrow no-break space around the × of a power of ten
# A number may end a sentence ("below 1e-6."): only a digit after a dot makes it part of something longer.
E_NUMBER = re.compile(r"(?<![\w.])(?P<mant>\d+(?:\.\d*)?)[eE](?P<sign>[+-]?)(?P<exp>\d+)(?!\w|\.\d)")
NUMERIC_TEXT = re.compile(r"[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?%?")


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def typeset(text: str, math_mode: bool = False) -> str:
    """Python's formatted number (or text holding numbers) as prose or TeX: 4.4e-29 -> 4.4 × 10⁻²⁹."""

    def power(m: re.Match[str]) -> str:
        mant, exp = m["mant"], int(m["exp"]) * (-1 if m["sign"] == "-" else 1)
        if exp == 0:
            return mant
        if float(mant) == 0:
            return "0"
        if math_mode:
            ten = f"10^{{{exp}}}"
            return ten if mant == "1" else f"{mant} \\times {ten}"
        ten = "10" + str(exp).translate(SUPERSCRIPT)
        return ten if mant == "1" else f"{mant}{NNBSP}×{NNBSP}{ten}"

    out = E_NUMBER.sub(power, text)
    if math_mode:
        return out.replace("%", "\\%").replace(",", "{,}")
    return re.sub(r"(?<![\w.])-(?=\d)", MINUS, out)


def fmt(value: Any, spec: str, math_mode: bool = False) -> str:
    """One recorded value formatted with a Python format spec, then typeset."""
    if isinstance(value, bool) or not spec or not _number(value):
        text = str(value)
        numeric = _number(value) or (isinstance(value, str) and NUMERIC_TEXT.fullmatch(text))
        return typeset(text, math_mode) if numeric and not isinstance(value, bool) else text
    if isinstance(value, float) and not math.isfinite(value):
        return {"inf": "∞", "-inf": MINUS + "∞"}.get(str(value), str(value))
    if spec == "frac":  # an exact ratio as a fraction, 1/18: only where the value is one (to 1e-12)
        f = fractions.Fraction(value).limit_denominator(1000)
        if abs(float(f) - value) > 1e-12 * max(1.0, abs(value)):
            raise ClaimError(f"{value!r} is not a fraction with a denominator up to 1000: use a decimal spec")
        text = str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
        return typeset(text.replace("-", MINUS), math_mode)
    return typeset(format(value, spec), math_mode)


_G_SPEC = re.compile(r"^(?P<head>[^.]*)\.(?P<p>\d+)g$")


def column_formats(values: list[Any], spec: str) -> list[str]:
    """A table column, formatted alike: one notation and one number of significant figures.

    With a "g" spec, Python switches notation from cell to cell (0.000244, 6.1e-05) and drops trailing
    zeros; here the whole column is scientific as soon as one cell needs it, and keeps its figures.
    Integers in a "g" column stay exact below a million.
    """
    m = _G_SPEC.match(spec or "")
    numbers = [v for v in values if _number(v)]
    if not m or not numbers:
        return [fmt(v, spec) for v in values]
    p = max(1, int(m["p"]))
    if all(isinstance(v, int) for v in numbers) and max(abs(v) for v in numbers) < 10**6:
        return [fmt(v, "") for v in values]
    scientific = any("e" in format(v, f".{p}g") for v in numbers)
    out = []
    for v in values:
        if not _number(v):
            out.append(fmt(v, ""))
        elif v == 0:
            out.append("0")
        elif scientific:
            out.append(typeset(format(v, f"{m['head']}.{p - 1}e")))
        else:
            out.append(typeset(format(v, f"{m['head']}#.{p}g").rstrip(".")))
    return out


TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)([^>]*)>")
CODE_TAGS = {"pre", "code", "script", "style", "textarea", "svg"}  # svg: a drawn plot keeps its labels


def typeset_html(page: str) -> str:
    """E-notation in the text of rendered HTML typeset (4.4 × 10⁻²⁹); code and copy buffers left as they are.

    For pages whose prose is not written through the macros (a notebook's Markdown cells).
    """
    return _text_nodes(page, lambda text: E_NUMBER.sub(lambda n: typeset(n[0]), text))


# A power of ten as the data carry it (10⁻²⁹, in attributes, JSON and alt text too) and as a page's text
# shows it: 10<sup>−29</sup>, in the text face, where Unicode superscripts fall back to another font.
POWER = re.compile(r"(?<![\d.])10(?P<exp>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
PLAIN = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789" + MINUS + "+")


def powers_html(page: str) -> str:
    """Powers of ten in the text of rendered HTML as 10<sup>−29</sup>; tags, attributes, code and
    drawings (which set their own exponents) left as they are."""
    return _text_nodes(page, lambda text: POWER.sub(lambda m: f"10<sup>{m['exp'].translate(PLAIN)}</sup>", text))


def _text_nodes(page: str, change: Callable[[str], str]) -> str:
    """The page with `change` applied to the text between its tags, outside code, scripts and SVG."""
    out, last, skip = [], 0, []
    for m in TAG.finditer(page):
        text = page[last : m.start()]
        out.append(text if skip else change(text))
        out.append(m[0])
        last = m.end()
        closing, name, attrs = m[1] == "/", m[2].lower(), m[3]
        if skip:
            if name == skip[-1][0]:
                skip[-1][1] += -1 if closing else 0 if attrs.rstrip().endswith("/") else 1
                if skip[-1][1] == 0:
                    skip.pop()
        elif not closing and (name in CODE_TAGS or "clipboard-copy-txt" in attrs):
            skip.append([name, 1])
    out.append(page[last:] if skip else change(page[last:]))
    return "".join(out)


def _attr(text: str) -> str:
    return html.escape(text, quote=True)


def _inline(text: str) -> str:
    """Text safe inside raw inline HTML in Markdown: escaped, and no emphasis or code markers."""
    return _attr(text).replace("*", "&#42;").replace("_", "&#95;").replace("`", "&#96;").replace("[", "&#91;")
