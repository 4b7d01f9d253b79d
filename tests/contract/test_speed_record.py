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


def test_the_speed_record_holds_every_measurement_with_its_machine():
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    speed = load_speed()
    wanted = {num for num, _, _ in speed.TARGETS.values()} | {den for _, den, _ in speed.TARGETS.values()}
    assert wanted | {"docs_warm", "docs_snippet"} <= set(record["steps"])
    for name, step in record["steps"].items():
        assert step["seconds"] > 0, name
    for key in ("date", "commit", "cpu", "cores", "torch", "load_average_before"):
        assert record["provenance"][key], key
    assert record["ratios"] == speed.ratios(record["steps"])  # the ratios are computed, not typed


def test_contributing_shows_the_table_generated_from_the_record():
    speed = load_speed()
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    shown = text.split(speed.START, 1)[1].split(speed.END, 1)[0].strip()
    assert shown == speed.table(json.loads(RECORD.read_text(encoding="utf-8"))), (
        "CONTRIBUTING.md's speed table differs from results/speed-cpu.json: run `nox -s speed -- --table`"
    )
