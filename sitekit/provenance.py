"""Where a run happened: the processor, cores and threads, torch, CUDA and driver, the seed set, the
commit; written beside every results file."""

from __future__ import annotations

import datetime as dt
import platform
from pathlib import Path
from typing import Any

from sitekit import claims as store


def provenance(device: str, seed_set: str | None = None) -> dict[str, Any]:
    """Where and with what the claims ran (and on which seed set, for a claim run)."""
    import torch

    info: dict[str, Any] = {
        "device": device,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpu": _cpu_model(),
        "threads": torch.get_num_threads(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    if seed_set is not None:
        info["seed_set"] = seed_set
    if device == "cuda":
        info.update(
            gpu=torch.cuda.get_device_name(0),
            cuda=torch.version.cuda,
            cudnn=torch.backends.cudnn.version(),
            capability=".".join(map(str, torch.cuda.get_device_capability(0))),
            driver=_nvidia_driver(),
        )
    return info


def _provenance_kept(device: str) -> dict[str, Any]:
    """The results file's provenance as it is (reused records change no run's provenance), else this machine's."""
    return store.load(device)[1] or provenance(device)


def _cpu_model() -> str | None:
    """The CPU's model name (platform.processor() is empty on Linux)."""
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), None)


def _nvidia_driver() -> str | None:
    """The NVIDIA driver version as nvidia-smi reports it, or None where it cannot be run."""
    import subprocess

    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    return out[0] if out else None
