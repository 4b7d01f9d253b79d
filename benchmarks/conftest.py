"""Fixtures for the sweeps: `bench` runs one under pytest-benchmark and stores what it returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from benchmarks import store


@pytest.fixture
def bench(benchmark: Any, device: str) -> Callable[..., Any]:
    """bench(name, fn) runs fn(device, **SWEEPS[name]) once, stores its values, returns them.

    The load is read first: on a machine already busy with other work the sweep does not run at all
    (store.LoadedMachine says why and what to do), and the reading is stored with the values.
    """

    def run(name: str, fn: Callable[..., dict[str, Any]]) -> dict[str, Any]:
        started = store.start()
        store.refuse_if_loaded(device, name, started)
        values = benchmark.pedantic(fn, args=(device,), kwargs=store.SWEEPS[name], rounds=1, iterations=1)
        benchmark.extra_info.update({k: v for k, v in values.items() if isinstance(v, (int, float, str))})
        store.save(device, name, values, started)
        return values

    return run
