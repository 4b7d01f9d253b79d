"""What the runs of a test session produced, so a counterfactual can be told apart from an edit of the data.

A claim proves its check can fail by passing the check something an *alternative run* measured: the plain
stack, the post-norm block, another init. The harness enforces that by value, not by spelling:

- every snippet's `measure()` (and a committed benchmark sweep, and a sourced fact) registers each value
  it returned, with the call that produced it (`register`);
- a counterfactual passes only if every value in it was produced by such a run (so `-1.0`, `measured * -1`,
  `float("-1")` or an edited citation string are refused: no run returned them), and at least one of its
  values is not among the values the check was applied to (so the measured data swapped between
  arguments, or one measured argument passed twice, is refused: nothing new was run).

`judge` returns the problem, or the calls that produced the new values; the claim's record keeps them.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

_ELEMENTS = 200_000  # a tensor's elements are registered one by one up to this size


@dataclass
class Registry:
    """Each value a run produced (numbers, strings, tensors by content), with the first call that produced it."""

    sources: dict[Any, tuple[str, str]] = field(default_factory=dict)  # key -> (call, path in its result)
    objects: dict[int, tuple[Any, tuple[str, str]]] = field(default_factory=dict)  # opaque objects by identity


REGISTRY = Registry()


def _key(value: Any) -> Any:
    """A hashable key for a leaf value, equal for equal values (1 and 1.0 alike; -0.0 and 0.0 alike)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        v = float(value)
        return ("nan",) if math.isnan(v) else ("num", v + 0.0)
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, bytes):
        return ("bytes", value)
    return None


def _tensor(value: Any) -> Any | None:
    """The tensor or array behind `value`, or None (torch and numpy are optional here)."""
    kind = type(value).__module__.split(".")[0]
    if kind in ("torch", "numpy") and hasattr(value, "shape") and hasattr(value, "tolist"):
        return value
    return None


def _tensor_key(t: Any) -> Any:
    try:
        data = t.detach().cpu().contiguous().numpy().tobytes() if hasattr(t, "detach") else t.tobytes()
    except (TypeError, RuntimeError, AttributeError):
        data = repr(t.tolist()).encode()
    return ("tensor", tuple(t.shape), str(t.dtype), hashlib.blake2b(data, digest_size=16).hexdigest())


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(path, key, value) for every leaf of `value`: numbers, strings, tensors and their elements, objects.

    Dict keys are labels, not data: only the values are leaves. An object that is none of these is a leaf
    by identity (key None).
    """
    key = _key(value)
    if key is not None or value is None:
        if value is not None:
            yield path, key, value
        return
    t = _tensor(value)
    if t is not None:
        yield path, _tensor_key(t), value
        if t.ndim == 0:
            yield path, _key(t.item()), t.item()
        elif math.prod(t.shape) <= _ELEMENTS:
            for i, v in enumerate(_flat(t.tolist())):
                yield f"{path}[{i}]", _key(v), v
        return
    if hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            yield from leaves(getattr(value, name), f"{path}.{name}")
        return
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, f"{path}[{k!r}]")
        return
    if isinstance(value, (list, tuple, set, frozenset)):
        for i, v in enumerate(value):
            yield from leaves(v, f"{path}[{i}]")
        return
    yield path, None, value


def _flat(values: Any) -> Iterator[Any]:
    if isinstance(values, list):
        for v in values:
            yield from _flat(v)
    else:
        yield values


def register(result: Any, by: str) -> Any:
    """Remember every value in `result` as produced by the call `by`; returns `result` unchanged."""
    for path, key, value in leaves(result):
        where = (by, re.sub(r"(\[\d+\])+$", "", path))
        if key is None:
            REGISTRY.objects.setdefault(id(value), (value, where))
        else:
            REGISTRY.sources.setdefault(key, where)
    return result


def describe_call(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """`snippets.x.measure(device='cpu', depth=50)`, its arguments shortened for the record."""

    def short(v: Any) -> str:
        text = repr(v)
        return text if len(text) <= 60 else text[:57] + "..."

    parts = [short(a) for a in args] + [f"{k}={short(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


@dataclass(frozen=True)
class Verdict:
    """What `judge` found: a problem (the counterfactual is refused) or the runs its new values came from."""

    problem: str | None
    sources: tuple[str, ...] = ()


def _nodes(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, object) for `value` and everything inside it whose identity means something: containers,
    tensors, floats and opaque objects (not ints, bools, strings or None, which Python shares freely)."""
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return
    yield path, value
    if _tensor(value) is not None:
        return
    if hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            yield from _nodes(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, f"{path}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _nodes(v, f"{path}[{i}]")


def judge(measured: list[Any], counterfactual: Any) -> Verdict:
    """Whether `counterfactual` is a run of an alternative, given each application of the check to measured values.

    Refused: a value no run produced (typed, computed in the test, edited); a measured object moved to
    another argument or passed twice (swapped, duplicated); measured values only, in another order; or
    nothing new at all (the measured value itself).
    """
    unproduced: list[str] = []
    sources: list[tuple[str, str]] = []
    kept = [dict((path, key) for path, key, _ in leaves(m) if key is not None) for m in measured]
    for path, key, value in leaves(counterfactual):
        if key is None:
            entry = REGISTRY.objects.get(id(value))
            source = entry[1] if entry is not None and entry[0] is value else None
        else:
            source = REGISTRY.sources.get(key)
        if source is None:
            unproduced.append(f"{path or 'the value'} = {_shown(value)}")
        elif key is None or not all(k.get(path) == key for k in kept):
            sources.append(source)  # a value the measured case also had in this place is not what was run
    if unproduced:
        listed = "; ".join(unproduced[:3]) + (f" and {len(unproduced) - 3} more" if len(unproduced) > 3 else "")
        return Verdict(
            f"no run produced {listed}: a counterfactual is what an alternative measured (another module, "
            "configuration or init run through the snippet's measure(), or a snippet function called through "
            "sitekit.runs.run), not a value typed, computed from the measured one or edited in the test. Run "
            "the alternative in the snippet, and do any arithmetic inside the check, where the measured case "
            "gets the same"
        )
    where: dict[int, set[str]] = {}
    for m in measured:
        for path, node in _nodes(m):
            where.setdefault(id(node), set()).add(path)
    moved = []
    novel = False
    for path, node in _nodes(counterfactual):
        paths = where.get(id(node))
        if paths is None:
            novel = novel or _tensor(node) is not None or not isinstance(node, (list, tuple, dict))
        elif path not in paths:
            moved.append(f"{path or 'the value'} is the measured {min(paths) or 'value'}")
    if moved:
        return Verdict(
            f"{'; '.join(moved[:3])}: measured data moved to another argument or passed twice (swapped or "
            "duplicated) is not a run. Pass what an alternative measured; if no alternative can be run, the "
            "claim is an identity (mark it identity=...)"
        )
    cf_values = [(path, key) for path, key, _ in leaves(counterfactual) if key is not None]
    for m in measured:
        m_values = [(path, key) for path, key, _ in leaves(m) if key is not None]
        same_multiset = sorted(map(repr, (k for _, k in m_values))) == sorted(map(repr, (k for _, k in cf_values)))
        if same_multiset and m_values != cf_values and cf_values:
            return Verdict(
                "it holds the measured values in another order (swapped): nothing new was run. Pass what an "
                "alternative measured"
            )
        if dict(m_values) != dict(cf_values):
            novel = True
    if not novel:
        return Verdict(
            "nothing in it is new: it is the measured value again. Pass what an alternative measured; if no "
            "alternative can be run, the claim is an identity (mark it identity=...)"
        )
    return Verdict(None, tuple(dict.fromkeys(f"{call}{path}" for call, path in sources))[:3])


def run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a snippet's function to run an alternative, and count what it returns as produced by that run.

    `fn` must be defined in `snippets/` (a function, a class, or a method of a snippet's object): the
    counterfactual is then what the code the page shows computed, never a value the test made up.
    """
    module = getattr(fn, "__module__", None) or getattr(getattr(fn, "__func__", None), "__module__", "")
    if not str(module).startswith("snippets."):
        raise TypeError(
            f"sitekit.runs.run({getattr(fn, '__qualname__', fn)!r}): an alternative is run by a snippet's code "
            f"(snippets/...), not by {module or 'code'} written in the test"
        )
    name = f"{module}.{getattr(fn, '__qualname__', getattr(fn, '__name__', repr(fn)))}"
    return register(fn(*args, **kwargs), describe_call(name, args, kwargs))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
