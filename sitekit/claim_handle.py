"""The `claim` fixture's handle: check, rejects (a counterfactual must be a run) and record, and what
may be recorded (jsonable). Nothing here reads pytest's state; the plugin makes one handle per claim test."""

from __future__ import annotations

import ast
import functools
import math
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sitekit import margins as margins_mod
from sitekit import runs


def jsonable(value: Any) -> Any:
    """Turn tensors, numpy scalars, tuples and dataclasses into plain JSON values."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if hasattr(value, "__dataclass_fields__"):
        value = {k: getattr(value, k) for k in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    raise TypeError(f"cannot record {type(value).__name__}: record plain numbers, strings or lists")


_CONVERSIONS = frozenset({"float", "int", "str", "complex", "bool", "tuple", "list", "dict", "set", "Fraction"})


def _is_literal(node: ast.AST) -> bool:
    """A constant, or an expression or container built only from constants (`False`, `4.0`, `[1, 2]`, `152 / 22`)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _is_literal(node.operand)
    if isinstance(node, ast.BinOp):
        return _is_literal(node.left) and _is_literal(node.right)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_literal(e) for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CONVERSIONS:
        return all(_is_literal(a) for a in node.args) and not node.keywords  # float("-1"), int("3")
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_literal(k) for k in node.keys) and all(_is_literal(v) for v in node.values)
    return False


@functools.cache
def _parsed(filename: str) -> ast.Module | None:
    try:
        return ast.parse(Path(filename).read_text(encoding="utf-8"), filename=filename)
    except (OSError, SyntaxError, ValueError):
        return None


def _literal_arguments(frame: types.FrameType) -> list[str]:
    """Source text of the literal arguments of the `rejects(...)` call that `frame` is executing."""
    tree = _parsed(frame.f_code.co_filename)
    if tree is None:
        return []
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    line, _, col, _ = positions[index] if index < len(positions) else (frame.f_lineno, None, None, None)
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "rejects"
        and node.lineno <= (line or frame.f_lineno) <= (node.end_lineno or node.lineno)
    ]
    exact = [c for c in calls if c.lineno == line and c.col_offset == col]
    chosen = exact or calls
    if not chosen:
        return []
    call = min(chosen, key=lambda c: (c.end_lineno or c.lineno) - c.lineno)
    args = call.args[1:] + [k.value for k in call.keywords if k.arg not in (None, "because")]
    return [ast.unparse(a) for a in args if _is_literal(a)]


class Claim:
    """Handle a claim test uses to apply its check, prove the check can fail, and record what it measured."""

    def __init__(self, item: pytest.Item) -> None:
        self.item = item
        self.values: dict[str, Any] = {}
        self.counterfactuals: list[str] = []
        self.applied: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []
        self.margins: list[margins_mod.Margin] = []  # what the measured values cleared, and by how much
        self.missed: list[dict[str, Any]] = []  # what each counterfactual missed by
        self.alternatives: list[dict[str, Any]] = []  # which runs produced each counterfactual

    def record(self, **values: Any) -> None:
        """Store measured values; pages cite them as value("<id>", "<key>")."""
        self.values.update({k: jsonable(v) for k, v in values.items()})

    def check(self, check: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Apply `check`, the claim's assertion, to the measured values (and remember it for `rejects`)."""
        with margins_mod.collecting() as found:
            try:
                result = check(*args, **kwargs)
            finally:
                self.margins.extend(found)
        self.applied.append((check, args, kwargs))
        return result

    def rejects(self, check: Callable[..., Any], *args: Any, because: str, **kwargs: Any) -> None:
        """Assert that `check`, already applied to the measured values, fails on a measured counterfactual."""
        name = getattr(check, "__qualname__", repr(check))
        where = f"{self.item.nodeid}: claim.rejects({name}, ..., because={because!r})"
        same = [(a, k) for fn, a, k in self.applied if fn is check]
        if not same:
            raise AssertionError(
                f"{where}: {name} was never applied to the measured values. A counterfactual goes through "
                f"the same check as the measured case: call claim.check({name}, <measured>...) first, "
                "then claim.rejects with that same function"
            )
        frame = sys._getframe(1)
        literals = _literal_arguments(frame)
        del frame
        if literals:
            raise AssertionError(
                f"{where}: the counterfactual {', '.join(literals)} is typed, not measured. Run the "
                "alternative (the plain stack, the post-norm block, the un-zeroed branch...) in the snippet "
                "and pass what it measured; bind the check's fixed parameters inside the check (a closure "
                "or functools.partial), not in the call"
            )
        if any(
            len(a) == len(args)
            and all(x is y for x, y in zip(a, args, strict=True))
            and k.keys() == kwargs.keys()
            and all(k[n] is kwargs[n] for n in k)
            for a, k in same
        ):
            raise AssertionError(
                f"{where}: the counterfactual is the measured value itself; pass what the alternative measured"
            )
        verdict = runs.judge([[a, k] for a, k in same], [args, kwargs])
        if verdict.problem:
            raise AssertionError(f"{where}: {verdict.problem}")
        try:
            with margins_mod.collecting() as found:
                check(*args, **kwargs)
        except AssertionError:
            self.counterfactuals.append(because)
            self.alternatives.append({"because": because, "from": list(verdict.sources)})
            failed = next((m for m in found if not m.passed), None)
            if failed is not None:
                self.missed.append({"because": because, **failed.as_record()})
            return
        raise AssertionError(
            f"{self.item.nodeid}: the check accepted the counterfactual ({because}); "
            "a check that cannot fail proves nothing: tighten it"
        )
