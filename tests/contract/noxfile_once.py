"""noxfile.py loaded once per test process: loading it registers its sessions with nox, and a second load warns
("already registered"), which pytest's warnings-as-errors turns into a failure of whichever test loads it second."""

from __future__ import annotations

import functools
import importlib.util
from types import ModuleType

from sitekit.claims import ROOT


@functools.cache
def noxfile() -> ModuleType:
    spec = importlib.util.spec_from_file_location("site_noxfile", ROOT / "noxfile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
