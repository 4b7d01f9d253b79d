"""This topic's tensors are tiny (width 32, context 32): its claims run on one CPU thread."""

import pytest


@pytest.fixture(autouse=True, scope="module")
def _one_thread(one_cpu_thread: None) -> None:
    """See sitekit.pytest_plugin.one_cpu_thread."""
