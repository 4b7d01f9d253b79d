"""CONTRIBUTING's "How fast is verification" table is generated from the committed speed record.

`nox -s speed` measures and writes results/speed-cpu.json, then the table; nobody types it.
"""

from __future__ import annotations

import importlib.util
import json

from sitekit.claims import ROOT

RECORD = ROOT / "results" / "speed-cpu.json"


def load_speed():
    spec = importlib.util.spec_from_file_location("speed", ROOT / "scripts" / "speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_speed_record_holds_each_measurement_with_its_machine_time_and_load():
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    speed = load_speed()
    assert record["steps"], "results/speed-cpu.json measured nothing: run `nox -s speed`"
    assert set(record["steps"]) <= {key for key, _ in speed.ROWS}
    for name, step in record["steps"].items():
        assert step["seconds"] > 0, name
        for key in ("date", "commit", "load_average_before", "load_average_after"):
            assert step["when"][key], (name, key)
    for key in ("cpu", "cores", "torch"):
        assert record["machine"][key], key
    computed = speed.ratios(record["steps"], record["machine"]["cores"])
    assert record["ratios"] == computed  # from the seconds and busy cores, not typed


def test_contributing_shows_the_table_generated_from_the_record():
    speed = load_speed()
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    shown = text.split(speed.START, 1)[1].split(speed.END, 1)[0].strip()
    assert shown == speed.table(json.loads(RECORD.read_text(encoding="utf-8"))), (
        "CONTRIBUTING.md's speed table differs from results/speed-cpu.json: run `nox -s speed -- --table`"
    )
