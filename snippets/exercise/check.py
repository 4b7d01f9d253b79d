"""Self-check for the hands-on exercise:  python check_exercise.py exercise_residual.py

Needs only Python and PyTorch. (In the site's repository, `nox -s check -- FILE` runs this same
file.) It loads the learner's file, checks that each residual block starts as the identity, watches
the first layer's weight and the optimiser's learning rate while the learner's `train` runs, and
reports each success criterion as PASS or FAIL, with a hint for every failure. Short runs catch a
broken block or training loop in seconds; the full comparison (four models, as the exercise page
describes) runs only when they pass, and prints its progress.

Contract with the learner's file: it defines `DeepMLP(depth, dim, width, use_residual)`, whose
first layer is `input_proj` and whose blocks are in `blocks`, and
`train(model, data, epochs, lr, warmup) -> (losses, held_out_mse)`. The data always comes from
`make_data` below (the starter's, unchanged), so everyone's numbers are comparable.
"""

# site: not-a-listing (a tool, downloadable as check_exercise.py; docs/module/exercise.md)

from __future__ import annotations

import argparse
import copy
import importlib.util
import math
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from torch import nn
from torch.optim.optimizer import register_optimizer_step_pre_hook

# The starter's configuration and data, unchanged (a test keeps the two identical).
N, DIM, WIDTH, SHALLOW, DEEP, EPOCHS, LR, WARMUP = 1024, 4, 32, 2, 16, 100, 1e-2, 20


def make_data(seed: int, n: int = N, dim: int = DIM) -> tuple[torch.Tensor, ...]:
    """n training and n held-out points x ~ N(0, I_d), with the noisy target sin(‖x‖)."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(2 * n, dim, generator=gen)  # (2N, d)
    noise = 0.05 * torch.randn(2 * n, 1, generator=gen)  # (2N, 1)
    y = torch.sin(x.norm(dim=1, keepdim=True)) + noise  # (2N, 1)
    return x[:n], y[:n], x[n:], y[n:]  # train, then held out


QUICK_EPOCHS, QUICK_WARMUP = 3, 2
REQUIRED = ("DeepMLP", "ResidualBlock", "train")
# name -> (depth, residual?, warm-up epochs): the four models of the full comparison
RUNS = {
    "plain, shallow": (SHALLOW, False, 0),
    "plain, deep": (DEEP, False, 0),
    "residual, deep": (DEEP, True, 0),
    "residual, deep, warm-up": (DEEP, True, WARMUP),
}

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
    """Sees each backward pass through the first layer's weight, and each optimiser step's rate."""

    def __init__(
        self, model: nn.Module, label: str, epochs: int, say: Say | None
    ) -> None:
        self.weight = model.input_proj.weight
        self.label, self.epochs, self.say = label, epochs, say
        self.backwards = 0
        self.uncleared = (
            0  # backward passes that found last epoch's gradient still in .grad
        )
        self.rates: list[float] = []  # the learning rate of each optimiser step
        self.handles = [
            self.weight.register_hook(self.on_backward),
            register_optimizer_step_pre_hook(self.on_step),
        ]

    def on_backward(self, grad: torch.Tensor) -> None:
        old = self.weight.grad
        if old is not None and bool(old.any()):
            self.uncleared += 1
        self.backwards += 1
        if self.say and (self.backwards % 25 == 0 or self.backwards == self.epochs):
            self.say(f"    {self.label}: epoch {self.backwards}/{self.epochs}")

    def on_step(self, optimizer: torch.optim.Optimizer, *_: Any) -> None:
        if any(p is self.weight for g in optimizer.param_groups for p in g["params"]):
            self.rates.append(float(optimizer.param_groups[0]["lr"]))

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


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
            f"it does not define {', '.join(missing)}. Keep the starter's names: ResidualBlock, "
            "DeepMLP(depth, dim, width, use_residual) and train(model, data, epochs, lr, warmup)."
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
    """A hint for an exception raised by the learner's code."""
    text = str(err)
    if isinstance(err, NotImplementedError):
        return f"not written yet: {text or 'fill in the TODOs'}."
    if "modified by an inplace operation" in text:
        return (
            "an in-place update broke backpropagation: `x += ...` overwrote a tensor that backward "
            "still needs. Write the residual as `return x + self.branch(x)`."
        )
    return f"it raised {_where(err, path)}"


def _make(module: ModuleType, depth: int, residual: bool, seed: int) -> nn.Module:
    torch.manual_seed(seed)
    model = module.DeepMLP(depth, DIM, WIDTH, use_residual=residual)
    if not isinstance(getattr(model, "input_proj", None), nn.Linear):
        raise AttributeError(
            "the model has no `input_proj` Linear layer: keep the starter's name"
        )
    return model


def _judge_block(report: Report, module: ModuleType, path: Path, seed: int) -> bool:
    """A residual block must start as the identity: x + F(x) with F's last layer zeroed."""
    model = _make(module, DEEP, True, seed)
    h = torch.randn(
        64, WIDTH, generator=torch.Generator().manual_seed(seed)
    )  # (64, width)
    try:
        out = model.blocks[0](h.clone())
    except Exception as err:
        return report.add(
            "a residual block starts as the identity", False, explain(err, path)
        )
    if torch.equal(out, h):
        return report.add("a residual block starts as the identity", True)
    if not bool(out.any()):
        hint = (
            "the block returned zeros, which is F(x) alone: the shortcut is missing. "
            "Return the input plus the branch: x + self.branch(x)."
        )
    else:
        hint = (
            "the block changes its input, so F(x) is not zero at the start: in zero_last_layer, "
            "set the weight and the bias of the branch's last Linear, self.branch[-1], to zero."
        )
    return report.add("a residual block starts as the identity", False, hint)


def _run(
    module: ModuleType,
    path: Path,
    depth: int,
    residual: bool,
    warmup: int,
    seed: int,
    epochs: int,
    say: Say | None,
) -> dict[str, Any]:
    """Train one model with the learner's train(); return its output and what the probe saw."""
    data = make_data(seed)
    model = _make(module, depth, residual, seed)
    try:
        with torch.no_grad():
            start_loss = nn.functional.mse_loss(
                copy.deepcopy(model).train()(data[0]), data[1]
            ).item()
    except Exception as err:  # the learner's forward
        return {"error": explain(err, path)}
    label = next(
        (n for n, spec in RUNS.items() if spec == (depth, residual, warmup)), "model"
    )
    probe = Probe(model, label, epochs, say)
    try:
        out = module.train(model, data, epochs=epochs, lr=LR, warmup=warmup)
    except Exception as err:
        return {"error": explain(err, path)}
    finally:
        probe.remove()
    with torch.no_grad():
        in_train_mode = nn.functional.mse_loss(
            copy.deepcopy(model).train()(data[2]), data[3]
        ).item()
        held_out = nn.functional.mse_loss(model.eval()(data[2]), data[3]).item()
    return {
        "out": out,
        "start_loss": start_loss,
        "probe": probe,
        "held_out": held_out,
        "held_out_train_mode": in_train_mode,
        "warmup": warmup,
    }


def _rates(epochs: int, warmup: int) -> list[float]:
    """The learning rate of each epoch: linear warm-up over `warmup` epochs, then LR."""
    return [LR * min(1.0, (e + 1) / warmup) if warmup else LR for e in range(epochs)]


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
        f"{label}: returns one loss per epoch and the held-out MSE",
        shaped,
        f"return (losses, held_out_mse): a list of {epochs} floats (loss.item() each "
        "epoch) and one float.",
    ):
        return False
    losses, reported = out
    ok = report.add(
        f"{label}: the first loss is the untrained model's MSE",
        abs(losses[0] - run["start_loss"]) <= 1e-4 * run["start_loss"],
        f"losses[0] is {losses[0]:.6g} but the untrained model's MSE is {run['start_loss']:.6g}: "
        "append loss.item() from each epoch's forward pass, in training mode, computed "
        "with nn.MSELoss().",
    )
    ok &= report.add(
        f"{label}: gradients are cleared every epoch",
        probe.uncleared == 0,
        f"in {probe.uncleared} of {epochs - 1} epochs the previous epoch's gradient was still in "
        ".grad: PyTorch adds new gradients to old ones, so call optimizer.zero_grad() before "
        "loss.backward() every epoch.",
    )
    expected = _rates(epochs, run["warmup"])
    if run["warmup"] and probe.rates and all(r == LR for r in probe.rates):
        rate_hint = (
            f"every step used the full rate {LR:g}: during the first {run['warmup']} epochs set "
            "param_group['lr'] = lr * (epoch + 1) / warmup for each of "
            "optimizer.param_groups (the warm-up)."
        )
    else:
        rate_hint = (
            f"the steps used the learning rates {probe.rates}, expected {expected}."
        )
    ok &= report.add(
        f"{label}: the learning rate follows the warm-up",
        len(probe.rates) == epochs
        and all(math.isclose(a, b) for a, b in zip(probe.rates, expected, strict=True)),
        rate_hint,
    )
    if math.isclose(reported, run["held_out_train_mode"], rel_tol=1e-4):
        held_hint = (
            f"you reported {reported:.6g}, the held-out MSE in training mode, where BatchNorm "
            "normalises with the held-out batch's own statistics. Call model.eval() first (and "
            "compute it under torch.no_grad())."
        )
    else:
        held_hint = (
            f"you reported {reported:.6g}; the trained model's MSE on x_held_out in "
            "evaluation mode "
            f"is {run['held_out']:.6g}."
        )
    ok &= report.add(
        f"{label}: reports the held-out MSE in evaluation mode",
        isinstance(reported, float)
        and math.isclose(reported, run["held_out"], rel_tol=1e-4),
        held_hint,
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
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # models this small run fastest on one thread
    try:
        _check(report, module, path, seed, say, epochs)
    finally:
        torch.set_num_threads(threads)
    return report


def _check(
    report: Report, module: ModuleType, path: Path, seed: int, say: Say, epochs: int
) -> None:
    """The criteria, in order; stops early when a stage fails."""
    say(f"short runs ({QUICK_EPOCHS} epochs) ...")
    try:
        quick = _judge_block(report, module, path, seed)
    except Exception as err:  # the learner's DeepMLP could not be built
        report.problem = f"building DeepMLP failed: {_where(err, path)}"
        return
    for label, (depth, residual, warmup) in (
        ("short plain run", (SHALLOW, False, 0)),
        ("short residual run with warm-up", (DEEP, True, QUICK_WARMUP)),
    ):
        run = _run(module, path, depth, residual, warmup, seed, QUICK_EPOCHS, None)
        quick &= _judge_run(report, run, label, QUICK_EPOCHS)
        if "error" in run:
            break  # the other model would fail the same way
    if not quick:
        report.add(
            "full comparison", False, "not run: fix the short-run failures above first."
        )
        return
    say(
        f"full comparison ({epochs} epochs of each of {len(RUNS)} models, seed {seed}) ..."
    )
    runs = {}
    for name, (depth, residual, warmup) in RUNS.items():
        runs[name] = run = _run(
            module, path, depth, residual, warmup, seed, epochs, say
        )
        if not _judge_run(report, run, name, epochs):
            return
    final = {name: run["out"][0][-1] for name, run in runs.items()}
    held = {name: run["out"][1] for name, run in runs.items()}
    early = {
        name: max(run["out"][0][1:WARMUP]) / run["out"][0][0]
        for name, run in runs.items()
    }
    report.numbers = {"final": final, "held_out": held, "early_peak": early}
    shallow, deep, res, warm = RUNS
    report.add(
        "the deep plain model ends with a higher training and held-out error than the shallow one",
        final[deep] > final[shallow] and held[deep] > held[shallow],
        f"training {final[deep]:.4f} against {final[shallow]:.4f}, "
        f"held out {held[deep]:.4f} against "
        f"{held[shallow]:.4f}: train both for the same epochs, with model.train() while training.",
    )
    report.add(
        "the deep residual model ends below the deep plain one, in training and held-out error",
        final[res] < final[deep] and held[res] < held[deep],
        f"training {final[res]:.4f} against {final[deep]:.4f}, held out {held[res]:.4f} against "
        f"{held[deep]:.4f}: does every residual block return x + self.branch(x)?",
    )
    report.add(
        "with warm-up, the deep residual model's loss never rises above where it started",
        early[warm] <= 1.0,
        f"in its first {WARMUP} epochs it reached {early[warm]:.3g} times its starting "
        "loss: does the "
        "warm-up set the rate of every parameter group before each step?",
    )


def render(report: Report) -> str:
    """The report as the learner reads it."""
    if report.problem:
        return f"Could not check {report.path}:\n  {report.problem}"
    lines = [f"Checking {report.path}"]
    for c in report.criteria:
        lines.append(f"  {'PASS' if c.passed else 'FAIL'}  {c.name}")
        if c.hint:
            lines.append(f"        hint: {c.hint}")
    if report.numbers:
        lines.append(
            "  final training loss, held-out MSE, highest early loss / starting loss:"
        )
        for name in RUNS:
            lines.append(
                f"    {name:<24} {report.numbers['final'][name]:.4f}  "
                f"{report.numbers['held_out'][name]:.4f}"
                f"  {report.numbers['early_peak'][name]:.3g}"
            )
    passed = sum(c.passed for c in report.criteria)
    lines.append(
        f"{passed} of {len(report.criteria)} criteria passed."
        + (" Well done." if report.passed else "")
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """0 when every criterion passes, 1 when one fails, 2 when the file cannot be checked."""
    parser = argparse.ArgumentParser(
        prog="check_exercise.py", description=__doc__.splitlines()[0]
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
