"""Fixtures for the sweeps: `bench` runs one under pytest-benchmark and stores what it returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from benchmarks import store


@pytest.fixture
def bench(benchmark: Any, device: str) -> Callable[..., Any]:
    """bench(name, fn) runs fn(device, **SWEEPS[name]) once, stores its values, returns them."""

    def run(name: str, fn: Callable[..., dict[str, Any]]) -> dict[str, Any]:
        values = benchmark.pedantic(fn, args=(device,), kwargs=store.SWEEPS[name], rounds=1, iterations=1)
        benchmark.extra_info.update({k: v for k, v in values.items() if isinstance(v, (int, float, str))})
        store.save(device, name, values)
        return values

    return run
