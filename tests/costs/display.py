"""Recorded values as the pages show them: three significant digits, and a benchmark's date.

The claims record these shown values (a page's `,` format then only groups thousands), and
sitekit's claim hash follows this import, so changing them makes the claims that use them stale.
"""

from __future__ import annotations

from typing import Any


def sig(x: float, digits: int = 3) -> float:
    """x rounded to `digits` significant digits; an int when that is whole."""
    r = float(f"{x:.{digits}g}")
    return int(r) if r.is_integer() else r


def rounded(table: dict) -> dict:
    """A recorded table with every column after the first (the row's label) rounded by `sig`."""
    return {"columns": table["columns"], "rows": [[r[0], *(sig(v) for v in r[1:])] for r in table["rows"]]}


NOT_RECORDED = "not recorded"


def provenance(record: dict[str, Any]) -> dict[str, Any]:
    """A committed benchmark's provenance with its timestamp cut to the date, in the same keys for old and new.

    Sweeps stored before benchmarks/store.py read the load at the start kept one `load_average`, read
    when the sweep was saved (at its end), and no lock hash: those show as "not recorded", never filled in.
    """
    from benchmarks.store import machine_class

    prov = record["provenance"]
    return {
        **prov,
        "date": prov["date"][:10],
        "machine_class": machine_class(prov.get("cpu")),
        "load_average_start": prov.get("load_average_start", NOT_RECORDED),
        "load_average_end": prov.get("load_average_end", prov.get("load_average", NOT_RECORDED)),
        "lock": prov.get("lock", NOT_RECORDED),
    }
