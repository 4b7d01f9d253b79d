"""Costs: forward latency of ResNet-50, -101, -152 and Wide ResNet-50-2 next to their multiply-adds.

Letters: N batch size (1 here: one 224×224 image, as a model serving requests sees it).
The models are the ones the depth-versus-width page builds layer by layer
(snippets/depth_width/resnet.py), with random weights: latency does not depend on what the
weights are. Run `python -m snippets.costs.resnet_latency`.
"""

from __future__ import annotations

import statistics
import time

import torch

from snippets.costs.add_share import one_thread
from snippets.depth_width.resnet import RESNETS, multiply_adds, resnet


# --8<-- [start:latency]
def latencies(device: str, rounds: int, side: int = 224) -> dict[str, list[float]]:
    """Seconds per forward pass of each model on one image, the models timed in turn."""
    models = {name: resnet(**spec).to(device).eval() for name, spec in RESNETS.items()}
    x = torch.randn(1, 3, side, side, device=device)  # (N, 3, 224, 224), N = 1
    gpu = device.startswith("cuda")
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    clock = time.perf_counter if gpu else time.process_time  # CPU: this process's time
    times: dict[str, list[float]] = {name: [] for name in models}
    with torch.inference_mode():
        for model in models.values():
            model(x)  # warm-up: first-call allocations and kernel choice
        for r in range(rounds):
            names = list(models)[r % len(models) :] + list(models)[: r % len(models)]
            for name in names:  # a different order each round, so drift hits all alike
                sync()
                start = clock()
                models[name](x)
                sync()
                times[name].append(clock() - start)
    return times


# --8<-- [end:latency]


def sweep(device: str, rounds: int, small_side: int) -> dict:
    """The benchmark (`nox -s bench`): median latency, multiply-adds, ratios to ResNet-50.

    The same models are timed on a small_side×small_side image too, where each layer's fixed
    cost weighs more against its arithmetic: the regime the page's check must reject.
    """
    with one_thread(device):
        times = latencies(device, rounds)
        small_times = latencies(device, rounds, side=small_side)
    with torch.device("meta"):
        macs = {name: multiply_adds(resnet(**spec)) for name, spec in RESNETS.items()}
        small_macs = {
            name: multiply_adds(resnet(**spec).eval(), side=small_side)
            for name, spec in RESNETS.items()
        }  # eval: at this size the last stage is 1×1, one value per channel
    median = {name: statistics.median(t) for name, t in times.items()}
    rows = [
        [
            name,
            macs[name] / 1e9,
            median[name] * 1e3,
            macs[name] / macs["resnet50"],
            median[name] / median["resnet50"],
            macs[name] / median[name] / 1e9,
        ]
        for name in RESNETS
    ]
    columns = [
        "model",
        "multiply-adds (billions)",
        "median latency (ms)",
        "multiply-adds × ResNet-50",
        "latency × ResNet-50",
        "billion multiply-adds per second",
    ]
    # Every round's latency of each model, divided by ResNet-50's in the same round.
    per_round = {
        name: [t / r50 for t, r50 in zip(times[name], times["resnet50"], strict=True)]
        for name in RESNETS
    }
    return {
        "table": {"columns": columns, "rows": rows},
        "seconds": times,
        "ratio_per_round": per_round,
        "small": {
            "side": small_side,
            "seconds": small_times,
            "macs_billions": {name: m / 1e9 for name, m in small_macs.items()},
        },
        "rounds": rounds,
        "threads": 1 if not device.startswith("cuda") else torch.get_num_threads(),
        "batch": 1,
    }


def measure(
    device: str = "cpu", seed: int = 0, rounds: int = 1, small_side: int = 32
) -> dict:
    """One quick round of the sweep (the page cites the committed benchmark, not this)."""
    torch.manual_seed(seed)
    return sweep(device, rounds, small_side)


if __name__ == "__main__":
    for row in measure(rounds=3)["table"]["rows"]:
        print(row)
