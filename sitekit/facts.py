"""Sourced facts: numbers the site takes from the literature or a library, each with its source.

`facts/facts.toml` holds two tables:

- `[works.<id>]`: a source. Required: `cite` (authors or publisher), `title`, `url`, `group` (the
  heading it is listed under on the Sources page), `cited_for` (what the site uses it for). Optional:
  `published` (e.g. "arXiv 1512.03385, December 2015; CVPR 2016").
- `[facts.<id>]`: one number. Either sourced, with `value`, `work` (a work id), `where` (table, section,
  page or file of that work), `about` (what the number is) and optionally `quote` (the source's own
  words), `unit` (shown after the value, e.g. "%" or " layers") and `check` (a machine-readable
  source the tests compare the value with: `torchvision:<file>:<Weights enum>.<member>:<key>`, key
  `num_params`, `acc@1`, `acc@5`, `crop_size` or `_ops`); or derived, with `formula` (arithmetic over other
  facts' ids) and
  `about` instead of `value`, `work` and `where`.

`load()` checks the schema and raises FactError naming the file and the fact; `value(id)` evaluates
derived facts. Pages show a fact with `{{ fact("id", ".2f") }}`; the Sources page lists them all.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import operator
import re
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "facts" / "facts.toml"

WORK_FIELDS = {"cite": True, "title": True, "url": True, "group": True, "cited_for": True, "published": False}
SOURCED_FIELDS = {
    "value": True,
    "work": True,
    "where": True,
    "about": True,
    "quote": False,
    "unit": False,
    "check": False,
}
DERIVED_FIELDS = {"formula": True, "about": True, "unit": False}


class FactError(Exception):
    """A malformed facts file or a fact that does not exist."""


@dataclass(frozen=True)
class Work:
    id: str
    cite: str
    title: str
    url: str
    group: str
    cited_for: str
    published: str = ""


@dataclass(frozen=True)
class Fact:
    id: str
    about: str
    value: float | int | None = None  # None for a derived fact
    work: str = ""
    where: str = ""
    quote: str = ""
    unit: str = ""
    check: str = ""
    formula: str = ""


@dataclass(frozen=True)
class Registry:
    works: dict[str, Work]
    facts: dict[str, Fact]

    def value(self, fid: str) -> float | int:
        """A fact's number; a derived fact's formula evaluated over the others."""
        if fid not in self.facts:
            raise FactError(f"unknown fact {fid!r}: add it to {_rel(FILE)} (known: {len(self.facts)} facts)")
        f = self.facts[fid]
        if f.value is not None:
            return f.value
        return _evaluate(f.formula, self, fid)

    def sources(self, fid: str) -> list[Fact]:
        """The sourced facts a fact rests on (itself, or those its formula names)."""
        f = self.facts[fid]
        if f.value is not None:
            return [f]
        names = [n.id for n in ast.walk(ast.parse(f.formula, mode="eval")) if isinstance(n, ast.Name)]
        return [s for n in dict.fromkeys(names) for s in self.sources(n)]


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,  # a per-layer factor compounded over a model's layers
}


def _evaluate(formula: str, reg: Registry, fid: str, seen: tuple[str, ...] = ()) -> float:
    if fid in seen:
        raise FactError(f"{_rel(FILE)}: fact {fid!r} is defined in terms of itself ({' -> '.join(seen)})")

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.BinOp) and type(node.op) in OPS:
            return OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and node.value in (1, 100):
            return node.value  # units only (a fraction to percent); every other number is a fact
        if isinstance(node, ast.Name):
            if node.id not in reg.facts:
                raise FactError(f"{_rel(FILE)}: fact {fid!r}: formula names unknown fact {node.id!r}")
            other = reg.facts[node.id]
            return other.value if other.value is not None else _evaluate(other.formula, reg, node.id, (*seen, fid))
        raise FactError(
            f"{_rel(FILE)}: fact {fid!r}: formula {formula!r} may only use + - * / on other facts' ids "
            "(and 1 or 100 for units)"
        )

    try:
        return ev(ast.parse(formula, mode="eval"))
    except SyntaxError:
        raise FactError(f"{_rel(FILE)}: fact {fid!r}: cannot read formula {formula!r}") from None


def _fields(table: Any, spec: dict[str, bool], where: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise FactError(f"{where} must be a table")
    missing = [k for k, required in spec.items() if required and k not in table]
    unknown = sorted(set(table) - set(spec))
    if missing or unknown:
        parts = [f"missing {', '.join(missing)}" if missing else "", f"unknown {', '.join(unknown)}" if unknown else ""]
        raise FactError(f"{where}: {'; '.join(p for p in parts if p)} (fields: {', '.join(spec)})")
    return table


def load(path: Path = FILE) -> Registry:
    """Read and check a facts file; FactError names the file and the work or fact at fault."""
    name = _rel(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FactError(f"{name} is missing: it holds the site's sourced facts") from None
    except tomllib.TOMLDecodeError as err:
        raise FactError(f"{name}: not valid TOML ({err})") from None
    if extra := sorted(set(data) - {"works", "facts"}):
        raise FactError(f"{name}: only [works.<id>] and [facts.<id>] tables belong here, not {extra}")
    works = {}
    for wid, table in data.get("works", {}).items():
        works[wid] = Work(wid, **_fields(table, WORK_FIELDS, f"{name}: work {wid!r}"))
    facts = {}
    for fid, table in data.get("facts", {}).items():
        where = f"{name}: fact {fid!r}"
        if isinstance(table, dict) and "formula" in table:
            f = Fact(fid, **_fields(table, DERIVED_FIELDS, where + " (derived)"))
        else:
            f = Fact(fid, **_fields(table, SOURCED_FIELDS, where))
            if isinstance(f.value, bool) or not isinstance(f.value, (int, float)):
                raise FactError(f"{where}: value must be a number, not {f.value!r}")
            if f.work not in works:
                raise FactError(f"{where}: work {f.work!r} is not a [works.<id>] in {name}")
            if f.check and not f.check.startswith("torchvision:"):
                raise FactError(f"{where}: check {f.check!r} must be torchvision:<file>:<Enum>.<member>:<key>")
        facts[fid] = f
    reg = Registry(works, facts)
    for fid in facts:
        if facts[fid].value is None:
            _evaluate(facts[fid].formula, reg, fid)
    return reg


@functools.cache
def registry() -> Registry:
    return load()


def clear_cache() -> None:
    registry.cache_clear()


# --- torchvision's published weights metadata, read from its wheel without importing it -----------

TORCHVISION = "torchvision==0.28.0"  # the release built against torch 2.13.0 (requirements/lock.txt)
WHEEL = "torchvision-0.28.0-cp311-cp311-manylinux_2_28_x86_64.whl"
WHEEL_SHA256 = "7e80f543b22503d9415e126db5f0ff3917036925e38560ee6b9ae38c571a4002"
CACHE = ROOT / ".nox" / "wheels"


def torchvision_wheel(cache: Path = CACHE) -> Path:
    """The pinned torchvision wheel, downloaded once with pip (never installed) and hash-checked."""
    path = cache / WHEEL
    if not path.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / f".download-{WHEEL_SHA256[:8]}-{id(cache)}"
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--platform", "manylinux_2_28_x86_64", "--python-version", "3.11", "--implementation", "cp",
               "--abi", "cp311", "--dest", str(tmp), TORCHVISION]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=600)
        got = tmp / WHEEL
        if done.returncode != 0 or not got.is_file():
            raise FactError(
                f"could not download {WHEEL} with pip (needed to check the torchvision facts in "
                f"{_rel(FILE)}): {done.stderr.strip()[-400:] or 'no wheel'}. Connect to PyPI, or (on a host without "
                f"network) copy the wheel from a machine that has it to {_rel(path)}."
            )
        got.replace(path)
        tmp.rmdir()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise FactError(f"{_rel(path)} has sha256 {digest}, not the pinned {WHEEL_SHA256}: delete it and rerun.")
    return path


def _literals(keys: list[ast.expr | None], values: list[ast.expr], splice: dict[str, dict]) -> dict[str, Any]:
    """The literal entries of a dict display; `**NAME` entries spliced in from `splice`."""
    out: dict[str, Any] = {}
    for key, val in zip(keys, values, strict=True):
        if key is None:
            out.update(splice.get(val.id, {}) if isinstance(val, ast.Name) else {})
            continue
        with contextlib.suppress(ValueError, TypeError):  # code (transforms, categories): not metadata
            out[ast.literal_eval(key)] = ast.literal_eval(val)
    return out


def weights_metadata(source: str) -> dict[str, dict[str, Any]]:
    """`{"ResNet50_Weights.IMAGENET1K_V1": {"num_params": ..., "_ops": ..., "acc@1": ..., "acc@5": ...}}` of one file.

    `_ops` is torchvision's compute per image, in billions of multiply-adds (its documentation's "GFLOPS").
    """
    tree = ast.parse(source)
    common: dict[str, dict] = {}
    for node in tree.body:  # module-level dicts such as _COMMON_META
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    common[target.id] = _literals(node.value.keys, node.value.values, {})
    out = {}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for node in cls.body:
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
                continue
            meta: dict[str, Any] = {}
            crop = {}
            for kw in node.value.keywords:
                if kw.arg == "meta" and isinstance(kw.value, ast.Dict):
                    meta = _literals(kw.value.keys, kw.value.values, common)
                if kw.arg == "transforms" and isinstance(kw.value, ast.Call):  # partial(..., crop_size=224)
                    crop = {k.arg: ast.literal_eval(k.value) for k in kw.value.keywords if k.arg == "crop_size"}
            if "_metrics" not in meta:
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[f"{cls.name}.{target.id}"] = {
                        "num_params": meta.get("num_params"),
                        **({"_ops": meta["_ops"]} if "_ops" in meta else {}),
                        **crop,
                        **meta["_metrics"].get("ImageNet-1K", {}),
                    }
    return out


def torchvision_value(wheel: Path, check: str) -> Any:
    """The value a `torchvision:<file>:<Enum>.<member>:<key>` check names, read from the wheel."""
    try:
        _, file, member, key = check.split(":")
    except ValueError:
        raise FactError(f"{_rel(FILE)}: cannot read check {check!r}") from None
    with zipfile.ZipFile(wheel) as z:
        try:
            source = z.read(f"torchvision/models/{file}").decode()
        except KeyError:
            raise FactError(f"{_rel(FILE)}: check {check!r}: no torchvision/models/{file} in {wheel.name}") from None
    meta = weights_metadata(source)
    if member not in meta or key not in meta[member]:
        raise FactError(f"{_rel(FILE)}: check {check!r}: {file} has no {member} with {key!r}")
    return meta[member][key]


# --- the Sources page -------------------------------------------------------------------------------


def anchor(fid: str) -> str:
    return "fact-" + fid.replace("_", "-")


def display(v: float) -> str:
    """A fact as the page shows it: thousands grouped from 10,000 up (1202 layers, 2015, 64,000 steps)."""
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10_000 else str(v)
    return f"{v:.6g}"


def _shown(reg: Registry, fid: str) -> str:
    return display(reg.value(fid)) + reg.facts[fid].unit


META = re.compile(r"^(?P<file>.*), meta (?P<path>\S+(?: \S+)*)$")  # "...resnet.py, ResNet50_Weights.X, meta num_params"
META_QUOTE = re.compile(r'^"(?P<key>[^"]+)": (?P<value>.+)$')  # '"num_params": 25557032', as the source writes it


def _where(f: Any) -> str:
    """Where a fact stands and, quoted, what the source says. A weights-metadata entry reads plainly:
    "metadata field `num_params` = 25,557,032" (`_metrics["ImageNet-1K"]["acc@1"]` for a nested one)."""
    where, quote = META.match(f.where), META_QUOTE.match(f.quote or "")
    if where and quote:
        first, *keys = where["path"].split(" ")
        field = first + "".join(f'["{k}"]' for k in keys)
        raw = quote["value"].strip()
        shown = display(int(raw)) if re.fullmatch(r"-?\d+", raw) else raw
        return f"{where['file']}, metadata field `{field}` = {shown}"
    return f"{f.where} (“{f.quote}”)" if f.quote else f.where


def sources_markdown(reg: Registry, link: Any = lambda target: target) -> str:
    """Markdown for every work, grouped, with its facts; then the facts computed from them."""
    from sitekit import numbers

    out: list[str] = []
    for group in dict.fromkeys(w.group for w in reg.works.values()):
        out += [f"## {group}", ""]
        for w in (w for w in reg.works.values() if w.group == group):
            typed = numbers.scan(w.cited_for)
            if typed:
                raise FactError(
                    f"{_rel(FILE)}: work {w.id!r}: cited_for types {typed}: name the facts below it instead"
                )
            published = f" {w.published}." if w.published else ""
            out += [f"**{w.cite.rstrip('.')}. *{w.title}*.**{published} <{w.url}>", ""]
            body = w.cited_for.strip().replace("\n", "\n  ")
            out += [f": {body}", ""]
            rows = [f for f in reg.facts.values() if f.work == w.id]
            if rows:  # collapsed under the citation; a link to a fact opens it (the theme opens a target's details)
                out += [f'??? note "The number{"s" if len(rows) != 1 else ""} taken from it ({len(rows)})"', ""]
            for f in rows:
                checked = " Checked against the wheel by the tests." if f.check else ""
                out.append(
                    f'    - <span id="{anchor(f.id)}"></span>**{_shown(reg, f.id)}**: {f.about}. {_where(f)}.{checked}'
                )
            out += [""] if rows else []
    derived = [f for f in reg.facts.values() if f.value is None]
    if derived:
        out += ["## Computed from the facts above", ""]
        for f in derived:
            formula = f.formula
            for name in sorted({s for s in reg.facts if s in formula}, key=len, reverse=True):
                formula = formula.replace(name, f"\0{name}\0")
            parts = formula.split("\0")
            text = "".join(
                f"[{reg.facts[p].about}](#{anchor(p)})" if i % 2 else p.replace("*", "×").replace("/", "÷")
                for i, p in enumerate(parts)
            )
            out.append(f'- <span id="{anchor(f.id)}"></span>**{_shown(reg, f.id)}**: {f.about} = {text}.')
        out.append("")
    return "\n".join(out)
