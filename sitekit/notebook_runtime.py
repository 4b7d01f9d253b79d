"""What every page's notebook starts with: load the page's snippets without files, run and summarise measurements.

A page's notebook (sitekit.notebooks) carries this file's source, verbatim, as its first code cell, so a reader
needs Python and torch only: nothing here imports the site's code or anything beyond the standard library
(torch is imported when a measurement runs). The test harness summarises every `measure()` result it records
with the same `summary`, so what a notebook prints can be compared with what the page was built from.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
import time
import types
from typing import Any

ITEMS = 24  # a list or tensor longer than this is summarised (length, first, last, mean), not printed whole


def load(name: str, source: str) -> types.ModuleType:
    """Make `source` importable as the module `name` (with its parent packages), and write it where that module's
    file would be, under the working folder (snippets/<topic>/<name>.py), for a snippet that reads its own text."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        dotted = ".".join(parts[:i])
        if i < len(parts) and dotted in sys.modules:
            continue
        module = types.ModuleType(dotted)
        if i < len(parts):
            module.__path__ = []  # a package: its modules come from load() calls, not from disk
        sys.modules[dotted] = module
        if i > 1:
            setattr(sys.modules[".".join(parts[: i - 1])], parts[i - 1], module)
    module = sys.modules[name]
    module.__file__ = name.replace(".", "/") + ".py"
    source = source.removeprefix("\n")  # the newline after a notebook's r''' is layout, not the file's
    os.makedirs(os.path.dirname(module.__file__), exist_ok=True)  # a snippet may read its own file, or a sibling's
    with open(module.__file__, "w", encoding="utf-8") as f:
        f.write(source)
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def _number(x: float) -> float | str:
    return x if math.isfinite(x) else repr(x)  # JSON has no inf or nan


def _numbers(values: list[Any]) -> list[float] | None:
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return [float(v) for v in values]
    return None


def summary(value: Any) -> Any:
    """`value` as plain JSON data: numbers, strings, lists and dicts; long lists and tensors summarised."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _number(value)
    if type(value).__module__.startswith("torch") and hasattr(value, "detach") and hasattr(value, "tolist"):
        return summary(value.detach().double().cpu().tolist() if value.is_floating_point() else value.tolist())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: summary(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): summary(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) <= ITEMS:
            return [summary(v) for v in value]
        numbers = _numbers(list(value))
        out = {"length": len(value), "first": summary(value[0]), "last": summary(value[-1])}
        return out | ({"mean": _number(math.fsum(numbers) / len(numbers))} if numbers else {})
    return f"<{type(value).__name__}>"  # a model or another object: named, not compared


def _wanted(index: int) -> bool:
    """NOTEBOOK_CALLS="1,4-6" runs only those measurements (all by default)."""
    chosen = os.environ.get("NOTEBOOK_CALLS", "").strip()
    if not chosen:
        return True
    for part in chosen.split(","):
        low, _, high = part.partition("-")
        if int(low) <= index <= int(high or low):
            return True
    return False


def run(index: int, name: str, args: list[Any], kwargs: dict[str, Any], threads: int) -> Any:
    """Call `name`.measure(*args, **kwargs) on `threads` CPU threads, print its summary and return the result.

    The line starting with `result` is what a check compares with the run that built the page.
    """
    if not _wanted(index):
        print(f"[{index}] {name}.measure: skipped (NOTEBOOK_CALLS)")
        return None
    import torch

    torch.set_num_threads(threads)
    start = time.perf_counter()
    result = sys.modules[name].measure(*args, **kwargs)
    seconds = time.perf_counter() - start
    shown = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
    print(f"[{index}] {name}.measure({shown}) took {seconds:.1f} s")
    print("result", index, json.dumps(summary(result), sort_keys=True))
    return result
