"""Which processors a costs claim's sentence speaks of.

A timing sentence either states a ratio that the arithmetic of the machine guarantees with a wide
margin on any x86 CPU, Intel or AMD (the quick timings, run wherever the claims run: `require_x86`), or
names the class of CPU its committed benchmark ran on and is checked only against a sweep from that
class (`benchmarks.store.load(..., machine=...)`). sitekit's claim hash follows this import.
"""

from __future__ import annotations

import platform

X86 = ("x86_64", "AMD64", "i386", "i686")
INTEL_XEON, AMD_EPYC = "Intel Xeon", "AMD EPYC"  # as benchmarks.store.machine_class names them


def require_x86(claim_id: str) -> None:
    """Fail (a failing claim, not a skip) where the sentence's 'x86 CPU' is not what runs it."""
    machine = platform.machine()
    assert machine in X86, (
        f"{claim_id}: the sentence is about x86 CPUs (Intel or AMD) and this machine is {machine}: "
        "state what holds on it in a claim of its own"
    )
