"""Self-check for the hands-on exercise:  nox -s check -- path/to/exercise_residual.py

Loads the learner's file, watches the first layer's weight while the learner's `train` runs, and
reports each success criterion as PASS or FAIL, with a hint for every failure. A short run on small
budgets catches broken training loops in seconds; the full comparison (both 50-block models,
200 epochs) runs only when that passes, and prints its progress.

Contract with the learner's file: it defines `DeepMLP(depth, dim, use_residual)`, whose first
layer is `input_proj`, and `train(model, x, target, epochs, lr) -> (losses, first_grad_norm)`.
The data always comes from the starter's `make_data`, so everyone's numbers are comparable.
"""

# site: not-a-listing (a tool run with `nox -s check -- FILE`; documented on the exercise page)

from __future__ import annotations

import argparse
import copy
import importlib.util
import math
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from snippets.exercise.exercise_residual import DEPTH, DIM, EPOCHS, LR, make_data
from torch import nn

QUICK_EPOCHS = 3
REQUIRED = ("DeepMLP", "train")

Say = Callable[[str], None]


@dataclass
class Criterion:
    """One success criterion, as the learner sees it."""

    name: str
    passed: bool
    hint: str = ""


@dataclass
class Report:
    """Everything the check found about one file."""

    path: str
    criteria: list[Criterion] = field(default_factory=list)
    problem: str = ""  # set when the file could not be checked at all
    numbers: dict[str, float] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return (
            not self.problem
            and bool(self.criteria)
            and all(c.passed for c in self.criteria)
        )

    def add(self, name: str, passed: bool, hint: str = "") -> bool:
        self.criteria.append(Criterion(name, passed, "" if passed else hint))
        return passed


class Probe:
    """Sees each backward pass through the first layer's weight before it lands in .grad."""

    def __init__(
        self, model: nn.Module, label: str, epochs: int, say: Say | None
    ) -> None:
        self.weight = model.input_proj.weight
        self.label, self.epochs, self.say = label, epochs, say
        self.norms: list[
            float
        ] = []  # float64 norm of each backward pass's own gradient
        self.uncleared = (
            0  # backward passes that found last epoch's gradient still in .grad
        )
        self.start = time.perf_counter()
        self.handle = self.weight.register_hook(self)

    def __call__(self, grad: torch.Tensor) -> None:
        old = self.weight.grad
        if old is not None and bool(old.any()):
            self.uncleared += 1
        self.norms.append(grad.double().norm().item())
        done = len(self.norms)
        if self.say and (done % 20 == 0 or done == self.epochs):
            seconds = time.perf_counter() - self.start
            self.say(f"    {self.label}: epoch {done}/{self.epochs} ({seconds:.0f} s)")


def load(path: Path) -> tuple[ModuleType | None, str]:
    """Import the learner's file; on failure return a short message instead of a traceback."""
    if not path.is_file():
        return None, "no such file. Pass the path of your exercise file."
    spec = importlib.util.spec_from_file_location("learner_exercise", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as err:
        line = (err.text or "").strip()
        return (
            None,
            f"line {err.lineno}: Python cannot read this line ({err.msg}):\n    {line}",
        )
    except Exception as err:  # anything the learner's top-level code raises
        return None, f"importing it failed: {_where(err, path)}"
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        return None, (
            f"it does not define {', '.join(missing)}. Keep the starter's names: "
            "DeepMLP(depth, dim, use_residual) and train(model, x, target, epochs, lr)."
        )
    return module, ""


def _where(err: BaseException, path: Path) -> str:
    """`Type: message (line N of your file)`, from the deepest frame in the learner's file."""
    frames = [
        f
        for f in traceback.extract_tb(err.__traceback__)
        if Path(f.filename) == path.resolve()
    ]
    at = (
        f" (line {frames[-1].lineno} of your file: {frames[-1].line})" if frames else ""
    )
    return f"{type(err).__name__}: {err}{at}"


def explain(err: BaseException, path: Path) -> str:
    """A hint for an exception raised by the learner's train()."""
    text = str(err)
    if isinstance(err, NotImplementedError):
        return f"train() is not written yet: {text or 'fill in the training loop'}."
    if "modified by an inplace operation" in text:
        return (
            "an in-place update broke backpropagation: `x += ...` (or `h += ...`) overwrote a "
            "tensor that backward still needs. Write the residual as `x = x + self.branch(x)`."
        )
    if "NoneType" in text:
        return (
            "a gradient was None when you read it: optimizer.zero_grad() sets .grad to None. Read "
            "the gradient norm after loss.backward() and before the next zero_grad()."
        )
    return f"train() raised {_where(err, path)}"


def _make(module: ModuleType, residual: bool, seed: int) -> nn.Module:
    torch.manual_seed(seed)
    model = module.DeepMLP(DEPTH, DIM, use_residual=residual)
    if not isinstance(getattr(model, "input_proj", None), nn.Linear):
        raise AttributeError(
            "the model has no `input_proj` Linear layer: keep the starter's name"
        )
    return model


def _run(
    module: ModuleType,
    path: Path,
    residual: bool,
    seed: int,
    epochs: int,
    say: Say | None,
) -> dict[str, Any]:
    """Train one model with the learner's train(); return its output and the probe."""
    x, target = make_data(seed)
    model = _make(module, residual, seed)
    with torch.no_grad():
        start_loss = nn.functional.mse_loss(copy.deepcopy(model)(x), target).item()
    probe = Probe(model, "residual" if residual else "plain", epochs, say)
    try:
        out = module.train(model, x, target, epochs=epochs, lr=LR)
    except Exception as err:
        return {"error": explain(err, path)}
    finally:
        probe.handle.remove()
    grad = model.input_proj.weight.grad
    left_in_grad = grad is not None and bool(grad.any())
    return {
        "out": out,
        "start_loss": start_loss,
        "probe": probe,
        "left_in_grad": left_in_grad,
    }


def _judge_run(report: Report, run: dict[str, Any], label: str, epochs: int) -> bool:
    """The criteria every run must meet, whatever the model."""
    if not report.add(
        f"{label}: train() runs", "error" not in run, run.get("error", "")
    ):
        return False
    out, probe = run["out"], run["probe"]
    shaped = (
        isinstance(out, tuple)
        and len(out) == 2
        and isinstance(out[0], list)
        and len(out[0]) == epochs
        and all(isinstance(v, float) and math.isfinite(v) for v in out[0])
        and isinstance(out[1], float)
    )
    if not report.add(
        f"{label}: returns one loss per epoch and the gradient norm",
        shaped,
        f"return (losses, first_layer_grad_norm): a list of {epochs} floats "
        "(loss.item() each epoch) and one float.",
    ):
        return False
    losses, reported = out
    ok = report.add(
        f"{label}: the first loss is the untrained model's MSE",
        abs(losses[0] - run["start_loss"]) <= 1e-4 * run["start_loss"],
        f"losses[0] is {losses[0]:.6g} but the untrained model's MSE is {run['start_loss']:.6g}: "
        "append loss.item() from each epoch's forward pass, computed with nn.MSELoss().",
    )
    ok &= report.add(
        f"{label}: gradients are cleared every epoch",
        probe.uncleared == 0,
        f"in {probe.uncleared} of {epochs - 1} epochs the previous epoch's gradient was still in "
        ".grad: PyTorch adds new gradients to old ones, so call optimizer.zero_grad() before "
        "loss.backward() every epoch.",
    )
    true = probe.norms[-1] if probe.norms else float("nan")
    if probe.uncleared:
        hint = "never cleared, .grad holds the sum of every epoch's gradient: see the hint above."
    elif reported == 0.0 and true > 0.0 and run["left_in_grad"]:
        hint = (
            "you reported 0.0 for a gradient that is not zero: the norm was taken in float32, "
            "where the squares of entries this small underflow to 0. Take it in float64: "
            "model.input_proj.weight.grad.double().norm()."
        )
    elif reported == 0.0 and true > 0.0:
        hint = (
            "you reported 0.0, and .grad was empty when train() returned: you read the norm "
            "after optimizer.zero_grad(). Read it right after loss.backward()."
        )
    else:
        hint = (
            f"you reported {reported:.4g}; the first layer's gradient in the last backward "
            f"pass has norm {true:.4g}. Read model.input_proj.weight.grad right after the "
            "last loss.backward()."
        )
    ok &= report.add(
        f"{label}: reports the first layer's gradient norm from the last backward pass",
        isinstance(reported, float)
        and math.isclose(reported, true, rel_tol=1e-3, abs_tol=0.0),
        hint,
    )
    return ok


def check(
    path: Path, seed: int = 0, say: Say | None = print, epochs: int = EPOCHS
) -> Report:
    """Every criterion for one learner file; the full comparison only if the short runs pass."""
    path = Path(path)
    report = Report(str(path))
    module, problem = load(path)
    if module is None:
        report.problem = problem
        return report
    say = say or (lambda _: None)
    say(f"short runs ({QUICK_EPOCHS} epochs of each model) ...")
    quick = True
    for residual in (True, False):
        label = f"short {'residual' if residual else 'plain'} run"
        try:
            run = _run(module, path, residual, seed, QUICK_EPOCHS, None)
        except Exception as err:  # the learner's DeepMLP could not be built
            report.problem = f"building DeepMLP failed: {_where(err, path)}"
            return report
        quick &= _judge_run(report, run, label, QUICK_EPOCHS)
        if "error" in run:
            break  # the other model would fail the same way
    if not quick:
        report.add(
            "full comparison", False, "not run: fix the short-run failures above first."
        )
        return report
    say(f"full comparison ({epochs} epochs of each model, seed {seed}) ...")
    runs = {}
    for kind in ("plain", "residual"):
        runs[kind] = run = _run(module, path, kind == "residual", seed, epochs, say)
        if not _judge_run(report, run, f"full {kind} run", epochs):
            return report
    (plain, plain_norm), (resid, resid_norm) = (
        runs["plain"]["out"],
        runs["residual"]["out"],
    )
    report.numbers = {
        "plain_final_loss": plain[-1],
        "residual_final_loss": resid[-1],
        "plain_grad_norm": plain_norm,
        "residual_grad_norm": resid_norm,
    }
    report.add(
        "the residual model ends with a lower loss than the plain one",
        resid[-1] < plain[-1],
        f"residual {resid[-1]:.4f} against plain {plain[-1]:.4f}: check that the residual blocks "
        "add their input (x + self.branch(x)) and that both models train for the same epochs.",
    )
    report.add(
        "the residual model's loss falls below half its starting value",
        resid[-1] < 0.5 * resid[0],
        f"it went from {resid[0]:.4f} to {resid[-1]:.4f}: does optimizer.step() run every epoch?",
    )
    report.add(
        "the residual model's first-layer gradient norm is larger than the plain model's",
        resid_norm > plain_norm,
        f"residual {resid_norm:.3g} against plain {plain_norm:.3g}.",
    )
    return report


def render(report: Report) -> str:
    """The report as the learner reads it."""
    if report.problem:
        return f"Could not check {report.path}:\n  {report.problem}"
    lines = [f"Checking {report.path}"]
    for c in report.criteria:
        lines.append(f"  {'PASS' if c.passed else 'FAIL'}  {c.name}")
        if c.hint:
            lines.append(f"        hint: {c.hint}")
    passed = sum(c.passed for c in report.criteria)
    lines.append(
        f"{passed} of {len(report.criteria)} criteria passed."
        + (" Well done." if report.passed else "")
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """0 when every criterion passes, 1 when one fails, 2 when the file cannot be checked."""
    parser = argparse.ArgumentParser(
        prog="nox -s check --", description=__doc__.splitlines()[0]
    )
    parser.add_argument("path", type=Path, help="your exercise file")
    parser.add_argument(
        "--seed", type=int, default=0, help="data and weight seed (default 0)"
    )
    args = parser.parse_args(argv)
    report = check(args.path, seed=args.seed, say=lambda s: print(s, flush=True))
    print(render(report))
    return 2 if report.problem else (0 if report.passed else 1)


if __name__ == "__main__":
    sys.exit(main())
