"""Copy the reproductions a CI rehearsal made into this checkout's committed experiment records.

    python scripts/keep_reproductions.py /path/to/clean/clone

After `CI=true bash .ci/run` in a clean clone, the clone's results/experiments-cpu.json carries a
`reproduced` entry for every experiment that run reproduced. This copies each one here, onto a
record that is the same record (code hash, values, run, status); a record that differs (re-recorded
since) keeps what it has, and CI runs it fresh until a reproduction of it is committed
(sitekit.experiments.unreproduced). Only reproductions a publishing build made (SITE_PUBLISH=1, as
.ci/run sets) from a clean commit are copied. Nothing else in the file changes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from sitekit.experiments import _SAME as SAME  # noqa: E402  (the fields the rule compares: one definition)


def keep(clone: Path, device: str = "cpu", root: Path = ROOT) -> tuple[list[str], list[str]]:
    """Copy the clone's reproductions onto the same records here: (copied ids, skipped ids with why)."""
    name = f"results/experiments-{device}.json"
    theirs = json.loads((clone / name).read_text(encoding="utf-8"))["claims"]
    path = root / name
    data = json.loads(path.read_text(encoding="utf-8"))
    copied, skipped = [], []
    for cid, record in data["claims"].items():
        other = theirs.get(cid) or {}
        again = other.get("reproduced")
        if not isinstance(again, dict) or again.get("published") is not True:
            skipped.append(f"{cid}: the rehearsal has no published reproduction of it")
        elif str(again.get("commit", "")).endswith("+dirty"):
            skipped.append(f"{cid}: reproduced on an uncommitted tree")
        elif any(other.get(k) != record.get(k) for k in SAME):
            skipped.append(f"{cid}: the record here differs from the one the rehearsal reproduced")
        else:
            record["reproduced"] = again
            copied.append(cid)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return copied, skipped


if __name__ == "__main__":
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "results").is_dir():
        raise SystemExit("usage: python scripts/keep_reproductions.py CLONE (a clean clone where .ci/run ran)")
    done, left = keep(Path(sys.argv[1]).resolve())
    print(f"copied {len(done)} reproductions; {len(left)} records keep theirs")
    for line in left:
        print("  " + line)
