"""Claims of the exercise page, read from the worked-solution notebook, which runs ONCE per build.

The module fixture converts snippets/exercise/solution.py (jupytext percent format) to a notebook,
executes it with nbclient in a `python3` kernel (jupyter_client starts that kernel with this very
interpreter, so it sees .nox/site's packages), fails on any failing cell, and writes the executed
notebook to results/build/exercise-solution.ipynb. The MkDocs hook publishes that file as the page
module/exercise-solution.ipynb (rendered by mkdocs-jupyter with execute: false), so the page shows
the outputs of the very run whose numbers the claims below assert and record.
"""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

import pytest

from sitekit.contract import NOT_A_LISTING
from sitekit.pytest_plugin import compute_timer

os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")  # jupyter_core warns without it

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "snippets" / "exercise" / "solution.py"
STARTER = ROOT / "snippets" / "exercise" / "exercise_residual.py"
EXECUTED = ROOT / "results" / "build" / "exercise-solution.ipynb"
PAGE = "module/exercise.md"
PROBE = "import json as _json; print(_json.dumps(summary))"

# The notebook trains 10 models, two at a time (~80 s on 2 idle cores); the default 300 s would
# stop it on a busy machine.
pytestmark = pytest.mark.timeout(1800)


def notebook_from_source():  # -> nbformat.NotebookNode
    """The percent-format source as a notebook, without the contract's marker cell."""
    import jupytext

    nb = jupytext.read(SOURCE)
    nb.cells = [c for c in nb.cells if not c.source.startswith(NOT_A_LISTING)]
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    return nb


@pytest.fixture(scope="module")
def summary(device: str) -> dict:
    """Execute the notebook once on `device`, write it for the docs build, return its `summary`."""
    import nbformat
    from nbclient import NotebookClient

    os.environ["SITE_DEVICE"] = device  # the kernel inherits it; the notebook reads it
    nb = notebook_from_source()
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=900,
        allow_errors=False,  # a failing cell raises CellExecutionError: the claims fail, no page
        record_timing=False,
        resources={"metadata": {"path": str(ROOT)}},
    )
    with compute_timer("snippets.exercise.solution (notebook)"):
        client.execute()
    probe = nb.cells.pop()
    result = json.loads("".join(o["text"] for o in probe.outputs if o.get("name") == "stdout"))
    EXECUTED.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, EXECUTED)
    return result


def finals(summary: dict, kind: str) -> list[float]:
    return [summary["runs"][f"{s}/{kind}"]["losses"][-1] for s in summary["seeds"]]


def norms(summary: dict, kind: str) -> list[float]:
    return [summary["runs"][f"{s}/{kind}"]["grad_norm"] for s in summary["seeds"]]


def per_seed_table(summary: dict) -> dict:
    rows = []
    for s in summary["seeds"]:
        p, r = summary["runs"][f"{s}/plain"], summary["runs"][f"{s}/residual"]
        rows.append([s, p["target_variance"], p["losses"][-1], r["losses"][-1], p["grad_norm"], r["grad_norm"]])
    cols = [
        "seed",
        "target variance",
        "plain final loss",
        "residual final loss",
        "plain ‖∇W₁‖",
        "residual ‖∇W₁‖",
    ]
    return {"columns": cols, "rows": rows}


@pytest.mark.claim(
    "Over 5 seeds (N=1000, d=64, 50 blocks, 200 epochs of full-batch Adam at lr 1e-3), the residual "
    "MLP ends with a lower training loss than the plain MLP started from the same weights, on every seed.",
    page=PAGE,
)
def test_residual_final_loss_below_plain_on_every_seed(claim, summary):
    def lower(residual: list[float], plain: list[float]) -> None:
        for r, p in zip(residual, plain, strict=True):
            assert r < p, (r, p)

    claim.check(lower, finals(summary, "residual"), finals(summary, "plain"))
    claim.rejects(lower, finals(summary, "plain"), finals(summary, "residual"), because="the models swapped")
    claim.record(
        seeds=len(summary["seeds"]),
        table=per_seed_table(summary),
        residual_final_median=statistics.median(finals(summary, "residual")),
        plain_final_median=statistics.median(finals(summary, "plain")),
        residual_final_max=max(finals(summary, "residual")),
        n=summary["n"],
        dim=summary["dim"],
        depth=summary["depth"],
        epochs=summary["epochs"],
        threads=summary["threads"],
        curves={
            kind: [[float(f"{v:.4g}") for v in summary["runs"][f"{s}/{kind}"]["losses"]] for s in summary["seeds"]]
            for kind in ("plain", "residual")
        },
        pair_seconds_median=statistics.median(summary["pair_seconds"]),
        pair_seconds_max=max(summary["pair_seconds"]),
        threads_per_model=summary["threads_per_model"],
        seconds_plain_median=statistics.median(summary["runs"][f"{s}/plain"]["seconds"] for s in summary["seeds"]),
        seconds_residual_median=statistics.median(
            summary["runs"][f"{s}/residual"]["seconds"] for s in summary["seeds"]
        ),
    )


@pytest.mark.claim(
    "The plain 50-block MLP ends at the variance of its target to within 1 %, the loss of always "
    "predicting the mean, on every one of 5 seeds.",
    page=PAGE,
)
def test_plain_stack_ends_at_target_variance(claim, summary):
    variances = [summary["runs"][f"{s}/plain"]["target_variance"] for s in summary["seeds"]]

    within = 0.01

    def at_variance(losses: list[float]) -> None:
        for loss, var in zip(losses, variances, strict=True):
            assert abs(loss / var - 1) < within, (loss, var)

    claim.check(at_variance, finals(summary, "plain"))
    claim.rejects(at_variance, finals(summary, "residual"), because="the residual model, which learns")
    ratios = [loss / var for loss, var in zip(finals(summary, "plain"), variances, strict=True)]
    claim.record(
        ratio_min=min(ratios),
        ratio_max=max(ratios),
        variance_median=statistics.median(variances),
        residual_fraction_of_variance=max(
            loss / var for loss, var in zip(finals(summary, "residual"), variances, strict=True)
        ),
        tolerance=within,
        depth=summary["depth"],
        seeds=len(summary["seeds"]),
    )


@pytest.mark.claim(
    "After the last epoch the residual MLP's first-layer gradient norm exceeds the plain MLP's by "
    "more than 1e20×, on every one of 5 seeds.",
    page=PAGE,
)
def test_residual_first_layer_gradient_norm_above_plain(claim, summary):
    factor = 1e20

    def far_above(residual: list[float], plain: list[float]) -> None:
        for r, p in zip(residual, plain, strict=True):
            assert r > factor * p, (r, p)

    claim.check(far_above, norms(summary, "residual"), norms(summary, "plain"))
    claim.rejects(far_above, norms(summary, "plain"), norms(summary, "residual"), because="the models swapped")
    ratios = [r / p for r, p in zip(norms(summary, "residual"), norms(summary, "plain"), strict=True)]
    claim.record(
        ratio_min=min(ratios),
        plain_median=statistics.median(norms(summary, "plain")),
        residual_median=statistics.median(norms(summary, "residual")),
        plain_smallest_entry=min(summary["runs"][f"{s}/plain"]["smallest_grad"] for s in summary["seeds"]),
        subnormal_slowdown=summary["subnormal_slowdown"],
        plain_over_residual_seconds=summary["plain_over_residual"],
        subnormal_fraction_max=max(
            summary["runs"][f"{s}/{k}"]["subnormal_fraction"] for s in summary["seeds"] for k in ("plain", "residual")
        ),
        factor=factor,
        seeds=len(summary["seeds"]),
    )


def given_section(text: str) -> str:
    """The starter's data-and-model code, from its `given` marker to the `your part` marker."""
    start = text.index("# ---- given: data and models ----")
    return text[start : text.index("# ---- your part", start)].strip()


def test_notebook_models_are_the_starters():
    notebook_cell = next(c.source for c in notebook_from_source().cells if "given: data and models" in c.source)
    assert notebook_cell.strip() == given_section(STARTER.read_text(encoding="utf-8") + "\n# ---- your part")
