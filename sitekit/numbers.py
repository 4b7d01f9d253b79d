"""The unbound-number lint: every number a reader sees is filled in from a record or a sourced fact.

`check_page(markdown, page)` runs on a page's Markdown *before* the macros are expanded and returns one
problem per number typed by hand. A number is bound when a macro produces it (`{{ value(...) }}`,
`{{ table(...) }}`, `{{ fact(...) }}`...). Everything else that contains a digit is reported, except
what these rules recognise as notation or naming (no list of allowed numbers):

Where a number has no record or fact yet, spell it out only if it is not a measurement; "fifty blocks"
is the same unbound measurement as "50 blocks", so bind it instead.

1. Code: fenced blocks, `code spans`, and `--8<--` include lines (a listing's own numbers are code;
   when the prose quotes one, the prose fills it in from the claim that records it).
2. Markup: link targets `](...)`, autolinks `<https://...>`, bare URLs, HTML tags, `{ attr lists }`,
   footnote labels `[^1]`, ordered-list markers, and a heading's leading ordinal (`## 5. Title`).
3. Names: a word followed by hyphen-joined parts (`ResNet-50`, `CIFAR-10`, `GPT-2`, `Wide ResNet-50-2`,
   `top-1`), digits inside a word (`float32`, `W_1`, `IMAGENET1K_V1`), and a capitalised name joined to
   its number by a non-breaking space (`OLMo&nbsp;2`). A number before the word (`56-layer`) is a value.
4. Math `\\( ... \\)` and `\\[ ... \\]` is notation (indices, exponents, coefficients, `\\frac{1}{2}`),
   except a number that stands alone as a value after a relation (`k = 32`, `\\approx 10^{-3}`, `< 0.5`):
   that is a measurement or a setting and must be filled in, even beside its arithmetic (`1 + 2 = 3`);
   so is a formula of numbers alone (`\\(1/18\\)`, `\\(3\\times\\)`) and a number beside `\\pm`.
5. Citation locators and ordinals: `Table 2`, `tables 3–4`, `Fig. 1`, `Eq. 3`, `Section 3.1`, `§4.2`,
   `p. 5`, `Part 3` (the module's own parts; sitekit/parts.py binds each to the nav), `Lab 2` (its
   labs), `rule 1`, `takeaway 2`, `question 4`; an ordinal before a
   title (`[6 · Depth versus width](...)`, `??? question "4. ..."`); a kernel size naming an operation
   (`3×3 convolution`).
6. The constants 0 and 1 (a gate near 1, a ratio of 1, exactly 0): the zero and the identity, not
   measurements. A measured value that happens to be 0 or 1 still comes from its record where the
   sentence reports it.
7. Citation years and identifiers: a year (1900–2099) after an author (`He et al. 2015`,
   `Zagoruyko & Komodakis 2016`), a month (`December 2015`), an opening parenthesis or comma inside a
   citation (`(2016)`), or a venue or name (`CVPR 2016`, but not a preposition: `In 2015`); arXiv
   identifiers (`1512.03385`). A year that dates an event in prose ("before 2015") is a fact.

Spelled-out quantities are numbers too ("four times wider" is as measured as "4× wider"). A number word
(two, three, ... ten, eleven, twenty, hundred, thousand..., and the fractions half, third, quarter...
tenth) is reported when it states a quantity:

8. a multiple: a number word before `times` or `-fold` (`four times wider`, `ten-fold`, `tenfold`), or
   `twice`, `thrice`, `half` before `as` (`twice as fast`);
9. a fraction: a third, a quarter... a tenth `of` (`a third of`, `two thirds of`, `one-quarter of`),
   and `half a`/`half an` before a unit (`half a point`);
10. a count next to a unit of measurement (seconds, minutes, epochs, steps, seeds, orders, points,
   percent, digits, bytes, bits, FLOPs...: `five seeds`, `two orders of magnitude`) or after an
   approximation or comparison (`about eight`, `more than three`, `at most two`);
11. any number word from eleven up (`fifty blocks`, `a thousand tokens`): too large to be ordinary talk
   (a plural used as a unit, "parameters (millions)", a scale after a number that is filled in,
   `{{ fact("ops") }} billion`, and a scale as a denominator, `per billion`, pass).

Ordinary language passes: "one block", "two stacks", "the three details", ordinals ("first",
"second"), and "one" anywhere (the identity, like 1).

A figure's alt text (`figure("name", "alt")`) and caption are prose, and so are the labels a figure function writes
(titles, axis labels, text, legend labels in `figures/*.py`): their literal digits are checked by the same
rules; numbers they format from recorded values (`f"{x:.2f}"`) are bound.

A published notebook's markdown cells (`numbers_notebook.check_notebook`; the worked solution, staged from
results/build/) follow the same rules with no macros to call: there a number is bound when it is a
literal in one of the notebook's own code cells (configuration: `DEPTH = 50`) or appears in an executed
output (measured), at the precision written (`1.2e-38` matches a printed 1.1754944e-38).
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from dataclasses import dataclass

FIX = (
    "fill it in from the claim that measures or sets it ({{ value(...) }}, after claim.record(...)), "
    'cite a sourced fact ({{ fact("id") }}, facts/facts.toml), or rephrase without it'
)

SPELLED_FIX = (
    "a quantity in words is a number too: fill it in as a number from its record ({{ value(...) }}) or "
    'fact ({{ fact("id") }}), or rephrase without the quantity (rules 8-11 in sitekit/numbers.py)'
)

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+).+?\1")
MACRO = re.compile(r"\{\{\s*(?P<name>[a-z_]+)\((?P<args>.*?)\)\s*\}\}")
MATH = re.compile(r"\\\((?P<inline>.+?)\\\)|\\\[(?P<display>.+?)\\\]|\$(?P<dollar>[^$\n]+?)\$")
MARKUP = [
    re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)"),  # link target (and title)
    re.compile(r"<https?://[^>]+>|https?://\S+"),  # autolinks, bare URLs
    re.compile(r"</?[A-Za-z][^>]*>"),  # HTML tags with their attributes
    re.compile(r"\{\s*[#.:][^}]*\}|\{:[^}]*\}"),  # attr lists
    re.compile(r"\[\^[^\]]+\]:?"),  # footnote labels
    re.compile(r"^\s*--8<--.*$"),  # snippet includes
    re.compile(r"^\s*(?:[-*+]\s+)?\d+[.)]\s"),  # ordered-list marker
    re.compile(r"^#{1,6}\s+\d+(?:\.\d+)*[.)]?\s"),  # heading ordinal
    re.compile(r"[A-Z][\w-]*&nbsp;\d+(?:\.\d+)?\b"),  # a name and its number: OLMo&nbsp;2, Gemma&nbsp;3
    re.compile(r"&#?\w+;"),  # HTML entities
]
CONSTANTS = ("0", "1", "0.0", "1.0")  # the zero and the identity
# A title, alt or aria-label attribute is text a reader sees or hears.
ATTRIBUTE = re.compile(r"""\b(?:title|alt|aria-label|data-tooltip)\s*=\s*(?P<q>["'])(?P<text>.*?)(?P=q)""")
# A lowercase word joined to a number is a setting, not a name (depth-56, width-4096, batch-256); so is x10.
# (top-1 and top-5 are metrics; plain-18 ... plain-56 are He et al.'s names for their nets; x86 is a processor.)
VALUE_NAME = re.compile(r"\b(?!top-|plain-)[a-z]+-\d+(?:\.\d+)?\b(?!-)|\b(?!x86\b|x64\b)[x×]\d+(?:\.\d+)?\b")
UNICODE_FRACTION = re.compile(r"[½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅐⅛⅜⅝⅞⅑⅒]")
# A code span holding only a number is a value quoted in prose, not code.
NUMERIC_CODE = re.compile(r"(`+)\s*(?P<num>[-−+]?\d[\d_]*(?:\.\d+)?(?:e[-+]?\d+)?)\s*\1")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Names: a word with hyphen-joined parts (ResNet-50-2, CIFAR-10, top-1), or digits inside a word (float32).
NAME = re.compile(r"\b[A-Za-z]\w*(?:-\w+)+|\b[A-Za-z_]\w*\d\w*")
LOCATOR = re.compile(
    r"(?:\b(?:tables?|figs?\.|figures?|eqs?\.|equations?|sections?|sec\.|pp?\.|pages?|chapters?|"
    r"appendix|algorithm|lemma|theorem)\s+|§\s*)"
    r"\d+(?:\.\d+)*(?:\s*(?:[–-]|,|and|&)\s*(?:§\s*)?\d+(?:\.\d+)*)*"
    # the site's own numbered lists (its parts, labs, rules, takeaways, questions) hold at most twenty items
    r"|\b(?:parts?|rules?|takeaways?|questions?|labs?)\s+(?:1?\d|20)\b(?:\s*(?:[–-]|,|and|&)\s*(?:1?\d|20)\b)*",
    re.I,
)
# A part's or a question's ordinal before its title: "[6 · Depth versus width](...)", "??? question \"4. ...".
ORDINAL = re.compile(r"(?:\[|^|\")\s*\d+(?:\s+·|\.(?=\s))")
# A kernel size names an operation: "a 3×3 convolution", "1×1-convolution shortcuts".
KERNEL = re.compile(r"\b\d+×\d+(?=[- ]?conv)")
ARXIV = re.compile(r"\b\d{4}\.\d{4,5}(?:v\d+)?\b")  # arXiv identifiers: 1512.03385
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
YEAR = r"(?:19|20)\d\d[a-z]?"
PREPOSITIONS = "In|Before|After|Around|Since|By|Until|From|During|Through|Of|To|At|On"  # "Before 2015" dates an event
CITED_YEAR = re.compile(
    rf"(?:(?:(?:et\s+)?al\.,?|&|and|'s)\s+|(?:(?<=& )|(?<=and ))[A-Z][\w'’-]*\s+|(?:{MONTHS})\s+|"
    rf"(?<=\()(?=\d{{4}}[a-z]?[);,])|"
    rf"\b(?!{PREPOSITIONS}\b)(?:[A-Z][\w'’-]*[A-Z][\w'’-]*|[A-Z][a-z]+(?=\s+{YEAR}[a-z]?[);,]))\s+|"
    rf", (?=\d{{4}}[a-z]?[);,.]))({YEAR})\b"
)
# In math, a number standing alone as a value after a relation is a measurement or a setting.
MATH_VALUE = re.compile(
    r"(?:=|\\approx|\\sim|\\simeq|<|>|\\le|\\ge|\\leq|\\geq|\\lt|\\gt)\s*"
    r"(?P<num>10\^\{?-?\d+\}?|-?\d+(?:\.\d+)?(?:\s*\\times\s*10\^\{?-?\d+\}?)?)"
    r"\s*(?:$|[,;.)]|\\[,;!: ]|\\q?quad|\\text|\\mathrm|\\pm|\\mp)"
)


@dataclass(frozen=True)
class Unbound:
    """A typed number: where it is and the text around it."""

    where: str  # "docs/module/x.md:12" or "figures/x.py:30"
    number: str
    context: str
    fix: str = FIX

    def __str__(self) -> str:
        if self.fix == FIX and not re.search(r"\d", self.number):
            return f"{self.where}: unbound spelled-out number {self.number!r} in {self.context!r}: {SPELLED_FIX}."
        return f"{self.where}: unbound number {self.number!r} in {self.context!r}: {self.fix}."


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _blank_all(pattern: re.Pattern[str], text: str, group: int = 0) -> str:
    for m in reversed(list(pattern.finditer(text))):
        text = _blank(text, m.start(group), m.end(group))
    return text


MATH_NOISE = re.compile(
    r"\\(?:frac|tfrac|dfrac|times|cdot|pm|mp|left|right|approx|sim|,|;|!|:|quad|qquad)|[{}\s()\[\]^_/+−\-×·]"
)
MATH_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _math_values(math: str) -> list[str]:
    """Values in math: a number alone after a relation or beside ±, and a formula of numbers alone
    (`\\(1/18\\)`, `\\(3\\times\\)`, `\\(10^{-3}\\)`), other than the zero and the identity (0, 1)."""
    relation = re.search(r"[=<>]|\\(?:approx|sim|simeq|le|ge|leq|geq|lt|gt|neq|propto)\b", math)
    if not relation and re.search(r"\d", math) and not MATH_NOISE.sub("", math).strip(".,;0123456789"):
        numbers = MATH_NUMBER.findall(math)
        return [] if all(n in CONSTANTS for n in numbers) else [n for n in numbers if n not in CONSTANTS]
    out = [m[1] for m in re.finditer(r"\\(?:pm|mp)\s*(\d+(?:\.\d+)?)", math) if m[1] not in CONSTANTS]
    for m in MATH_VALUE.finditer(math):
        if m["num"] not in ("0", "1", "-1"):
            out.append(m["num"])  # `1 + 2 = 3` too: a result typed beside its arithmetic is still typed
    return out


def scan(text: str, math: bool = True) -> list[str]:
    """The unbound numbers in one line of prose (macros already removed)."""
    found: list[str] = []
    if math:

        def take_math(m: re.Match[str]) -> str:
            found.extend(_math_values(m["inline"] or m["display"] or m["dollar"] or ""))
            return " " * len(m[0])

        text = MATH.sub(take_math, text)
    for attr in ATTRIBUTE.finditer(text):  # a title or alt text is read (or heard) like prose
        found.extend(scan(attr["text"], math=False))
    for pattern in MARKUP:
        text = _blank_all(pattern, text)
    for pattern in (ARXIV, LOCATOR, ORDINAL, KERNEL):
        text = _blank_all(pattern, text)
    text = _blank_all(CITED_YEAR, text, 1)
    words = spelled(text)  # before names are blanked: `ten-fold` is a quantity, not a name
    found.extend(m[0] for m in VALUE_NAME.finditer(text))  # depth-56, width-4096, x10: a value in a name's clothes
    text = _blank_all(VALUE_NAME, text)
    found.extend(m[0] for m in UNICODE_FRACTION.finditer(text))
    text = _blank_all(NAME, text)
    found.extend(m[0].rstrip(".,") for m in NUMBER.finditer(text) if m[0].rstrip(".,") not in CONSTANTS)
    return found + words


# Spelled-out quantities (rules 8-11 above).
FILLED = "\u2063"  # where check_page removed a macro: "{{ fact(...) }} billion" is a filled-in number and its unit
SMALL = "two|three|four|five|six|seven|eight|nine|ten"
LARGE = (
    "eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|trillion|dozen"
)
FRACTIONS = "thirds?|quarters?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?|hundredths?|thousandths?"
UNITS = (
    r"seconds?|minutes?|hours?|days?|ms|µs|epochs?|steps?|iterations?|seeds?|runs?|rounds?|repeats?|"
    r"orders?\s+of\s+magnitude|decades?|points?|percent|per\s+cent|digits?|decimals?|decimal\s+places?|"
    r"bytes?|bits?|[KMGT]i?B|kilobytes?|megabytes?|gigabytes?|FLOPs?|GFLOPs?|samples?|tokens?"
)
APPROX = (
    r"about|around|roughly|nearly|almost|approximately|over|under|some|"
    r"(?:more|less|fewer|greater|smaller|larger)\s+than|at\s+(?:least|most)|up\s+to|within"
)
WORD = rf"(?:{SMALL}|{LARGE})(?:[- ](?:{SMALL}|one))?"  # twenty-three, ninety nine
SPELLED = re.compile(
    "|".join(
        (
            rf"\b(?:{WORD}|one)\s*(?:-\s*)?fold\b|\b{WORD}\s+times\b",  # 8: a multiple
            r"\b(?:twice|thrice|half)\s+as\b",
            rf"\b(?:an?|one|{WORD})[- ](?:{FRACTIONS})\s+of\b",  # 9: a fraction
            rf"\bhalf\s+an?\s+(?:{UNITS})\b",
            rf"\b{WORD}\s+(?:\w+\s+)?(?:{UNITS})\b",  # 10: a count with its unit
            rf"\b(?:{APPROX})\s+(?:an?\s+)?(?:{WORD}|half|(?:{FRACTIONS}))\b",  # 10: approximate
            rf"\b(?:{LARGE})\b",  # 11: large
            rf"\bfactor\s+(?:of\s+)?(?:{WORD})\b|\b(?:an|one|{WORD})\s+orders?\s+of\s+magnitude\b",  # 12
            r"\b(?:doubles|doubled|triples|tripled|quadruples|quadrupled|halves|halved)\b",  # 12: a multiple as a verb
            rf"\b(?:{APPROX})\s+(?:twice|thrice)\b|\bone\s+half\b|\b(?:an?|one)[- ]half\b",
            r"\b(?:second|third|fourth|fifth)[- ](?:highest|lowest|largest|smallest|best|worst|most|least)\b",  # 12
        )
    ),
    re.I,
)


SCALE = re.compile(r"(?:hundred|thousand|million|billion|trillion)\b", re.I)


def spelled(text: str) -> list[str]:
    """The spelled-out quantities in one line of prose (rules 8-11); a scale word that is the unit of a
    number before it (`{{ fact("ops") }} billion`, `12 million`) or a denominator (`per billion`) is not one."""
    out = []
    for m in SPELLED.finditer(text):
        before = text[: m.start()].rstrip()
        if SCALE.match(m[0]) and (before.endswith(FILLED) or before[-1:].isdigit() or re.search(r"\bper$", before)):
            continue
        out.append(" ".join(m[0].split()))
    return out


def _context(line: str, number: str) -> str:
    i = max(line.find(number), 0)
    snippet = line[max(0, i - 40) : i + len(number) + 40].strip()
    return " ".join(snippet.split())


def check_page(markdown: str, page: str, first_line: int = 1, figures: dict | None = None) -> list[Unbound]:
    """Every unbound number on a page (docs path `page`), with its line in the source file."""
    out: list[Unbound] = []
    fence = None
    math: list[str] | None = None
    math_start = ""
    shown: list[str] = []
    for n, line in enumerate(markdown.split("\n"), start=first_line):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m[1]
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        where = f"docs/{page}:{n}"
        out += [
            Unbound(
                where,
                m["num"],
                _context(line, m[0]),
                "a number in a code span is still a number the reader reads: " + FIX,
            )
            for m in NUMERIC_CODE.finditer(line)
            if m["num"] not in CONSTANTS
        ]
        text = _blank_all(CODE_SPAN, line)
        if math is not None or (text.count("\\[") > text.count("\\]") or text.strip() == "$$"):
            # A displayed formula over several lines: collect it, then check it as one.
            if math is None:
                math, math_start, text = [text], where, ""
                continue
            math.append(text)
            if "\\]" not in text and text.strip() != "$$":
                continue
            joined = " ".join(math)
            math = None
            out += [Unbound(math_start, x, _context(joined, x)) for x in scan(MACRO.sub(" ", joined))]
            continue
        for call in MACRO.finditer(text):
            if call["name"] == "figure":
                try:
                    args = ast.literal_eval(f"({call['args']},)")
                except (SyntaxError, ValueError):
                    continue  # render() reports the unreadable call
                shown.append(args[0])
                alt = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
                out += [Unbound(f"{where} (figure alt text)", x, _context(alt, x)) for x in scan(alt)]
        for m in MATH.finditer(text):
            for call in MACRO.finditer(m[0]):
                if call["name"] == "fact":  # a fact renders as a link, which a formula cannot hold
                    fix = (
                        "a fact is shown as a link to its source, which a formula cannot hold: move it out of the math"
                    )
                    out.append(Unbound(where, call[0], m[0], fix))
        text = MACRO.sub(lambda m: FILLED + " " * (len(m[0]) - 1), text)  # a number is filled in here
        out += [Unbound(where, x, _context(line, x)) for x in scan(text)]
    for name in dict.fromkeys(shown):
        if figures and name in figures:
            out += check_figure(figures[name].draw)
            caption = getattr(figures[name], "caption", "") or ""
            out += [Unbound(f"figure {name!r} (caption)", x, _context(caption, x)) for x in scan(caption)]
    return out


LABEL_CALLS = {"set_title", "set_xlabel", "set_ylabel", "suptitle", "text", "annotate", "legend", "set_label"}
LABEL_KEYWORDS = {"label", "title", "labels"}


def _strings(node: ast.AST) -> list[tuple[int, str]]:
    """Literal text in an expression: string constants and the fixed parts of f-strings (not their specs)."""
    out: list[tuple[int, str]] = []

    def visit(sub: ast.AST) -> None:
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            out.append((sub.lineno, sub.value))
        elif isinstance(sub, ast.FormattedValue):
            visit(sub.value)  # its format_spec ({x:.2f}) is not reader text
        else:
            for child in ast.iter_child_nodes(sub):
                visit(child)

    visit(node)
    return out


def check_figure(draw: object) -> list[Unbound]:
    """Digits typed into a figure's titles, axis labels, texts and legend labels."""
    try:
        lines, start = inspect.getsourcelines(draw)  # type: ignore[arg-type]
        path = inspect.getsourcefile(draw)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return []
    rel = "figures/" + path.rsplit("/figures/", 1)[-1] if path else "figures/?"
    tree = ast.parse(textwrap.dedent("".join(lines)))
    out: list[Unbound] = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        parts: list[ast.AST] = [k.value for k in call.keywords if k.arg in LABEL_KEYWORDS]
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        if name in LABEL_CALLS:
            parts += call.args[:1] if name in ("text", "annotate") else call.args
            if name in ("text",):
                parts = [k.value for k in call.keywords if k.arg in LABEL_KEYWORDS] + call.args[2:3]
        for part in parts:
            for lineno, text in _strings(part):
                for x in scan(text):
                    out.append(Unbound(f"{rel}:{start + lineno - 1} (figure label)", x, _context(text, x)))
    return out


def check_markdown(markdown: str, page: str, source: str = "", figures: dict | None = None) -> list[str]:
    """Problems for a page's Markdown; `source` (the file as written) fixes line numbers after front matter."""
    at = source.find(markdown) if source and markdown else -1
    first = source[:at].count("\n") + 1 if at > 0 else 1
    return [str(u) for u in check_page(markdown, page, first, figures)]
