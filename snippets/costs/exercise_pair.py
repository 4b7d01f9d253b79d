# site: not-a-listing (timing harness for the worked solution; the page shows its numbers)
"""Costs: how long the worked solution takes to train its deep pair of models, and why.

The exercise's worked solution (snippets/exercise/solution.py, a notebook) trains its models two
at a time, one thread each, with fused Adam; the deep plain and the deep residual model are the
pair timed here. This sweep times that against the
obvious alternatives on the same seeds, using the notebook's own code: its cells run here up to
(not including) the one that trains all seeds. Run `nox -s bench -- -k exercise_pair`.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from snippets.costs.add_share import one_thread

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercise" / "solution.py"
FUSED = "torch.optim.Adam(model.parameters(), lr=lr, fused=True)"
DEFAULT = "torch.optim.Adam(model.parameters(), lr=lr)"

# name -> (side by side?, which Adam, one CPU thread?); side by side halves the threads itself
VARIANTS: dict[str, tuple[bool, str, bool]] = {
    "one after the other, default Adam, all threads": (False, "default", False),
    "one after the other, fused Adam, all threads": (False, "fused", False),
    "one after the other, fused Adam, 1 thread": (False, "fused", True),
    "side by side, default Adam": (True, "default", False),
    "side by side, fused Adam (the notebook)": (True, "fused", False),
}
BASELINE = "one after the other, default Adam, all threads"
NOTEBOOK_VARIANT = "side by side, fused Adam (the notebook)"


def definition_cells() -> list[str]:
    """The notebook's code cells before the one that trains all seeds: what this sweep runs."""
    import jupytext

    cells = [c.source for c in jupytext.read(NOTEBOOK).cells if c.cell_type == "code"]
    stop = next((i for i, c in enumerate(cells) if c.startswith("runs = {}")), None)
    if stop is None:
        raise ValueError(
            f"{NOTEBOOK.name}: no code cell starts with `runs = {{}}`; update this sweep"
        )
    return [c for c in cells[:stop] if not c.startswith("# site:")]


def notebook_definitions(device: str, adam: str) -> dict[str, Any]:
    """The notebook's namespace after its definition cells, with Adam `fused` or `default`."""
    namespace: dict[str, Any] = {"__name__": "worked_solution"}
    before = os.environ.get("SITE_DEVICE")
    os.environ["SITE_DEVICE"] = device
    try:
        with contextlib.redirect_stdout(None):
            for source in definition_cells():
                if source.startswith("def train("):
                    if FUSED not in source:
                        raise ValueError(
                            f"{NOTEBOOK.name}: train() no longer builds {FUSED}; update this sweep"
                        )
                    source = (
                        source.replace(FUSED, DEFAULT) if adam == "default" else source
                    )
                exec(
                    compile(source, str(NOTEBOOK), "exec"), namespace
                )  # the site's own notebook
    finally:
        if before is None:
            del os.environ["SITE_DEVICE"]
        else:
            os.environ["SITE_DEVICE"] = before
    return namespace


def train_pair(
    ns: dict[str, Any], side_by_side: bool, single_thread: bool, seed: int
) -> tuple[float, dict[str, float]]:
    """Wall seconds to train the deep pair on one seed, and each model's final loss."""
    if side_by_side:
        start = time.perf_counter()
        pair = ns["train_side_by_side"](seed, ns["PAIR"])
        seconds = time.perf_counter() - start
        return seconds, {name: r["losses"][-1] for name, r in pair.items()}
    data = tuple(t.to(ns["DEVICE"]) for t in ns["make_data"](seed))
    finals, seconds = {}, 0.0
    with one_thread(ns["DEVICE"]) if single_thread else contextlib.nullcontext():
        for name in ns["PAIR"]:
            depth, residual, warmup = ns["RUNS"][name]
            torch.manual_seed(seed)
            model = ns["DeepMLP"](
                depth, ns["DIM"], ns["WIDTH"], use_residual=residual
            ).to(ns["DEVICE"])
            start = time.perf_counter()
            losses, _ = ns["train"](model, data, warmup=warmup)
            seconds += time.perf_counter() - start
            finals[name] = losses[-1]
    return seconds, finals


def sweep(device: str, rounds: int) -> dict[str, Any]:
    """Each variant once per round, on seeds 0..rounds-1, in an order that rotates each round."""
    spaces = {adam: notebook_definitions(device, adam) for adam in ("default", "fused")}
    names = list(VARIANTS)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    finals: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for seed in range(rounds):
        for name in names[seed % len(names) :] + names[: seed % len(names)]:
            side_by_side, adam, single_thread = VARIANTS[name]
            t, f = train_pair(spaces[adam], side_by_side, single_thread, seed)
            seconds[name].append(t)
            finals[name].append(f)
    base = statistics.median(seconds[BASELINE])
    rows = [
        [
            name,
            statistics.median(seconds[name]),
            min(seconds[name]),
            max(seconds[name]),
            base / statistics.median(seconds[name]),
        ]
        for name in names
    ]
    return {
        "table": {
            "columns": ["variant", "median s", "fastest s", "slowest s", "speed-up"],
            "rows": rows,
        },
        "seconds": seconds,
        "finals": finals,
        "rounds": rounds,
        "epochs": spaces["fused"]["EPOCHS"],
        "depth": spaces["fused"]["DEEP"],
        "threads": torch.get_num_threads(),
        "notebook_median": statistics.median(seconds[NOTEBOOK_VARIANT]),
        "baseline_median": base,
    }


if __name__ == "__main__":
    for row in sweep("cuda" if torch.cuda.is_available() else "cpu", rounds=1)["table"][
        "rows"
    ]:
        print(f"{row[0]:<48} {row[1]:6.1f} s  ×{row[4]:.2f}")
