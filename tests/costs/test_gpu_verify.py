"""The GPU tooling, exercised without a GPU: the wheel set, the download commands, the run plan.

No claims here: these tests keep scripts/gpu_verify.sh and scripts/fetch_gpu_wheels.sh honest on
every CPU run, so that the one GPU session a change gets does not fail on a typo.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

from sitekit.claims import ROOT

SCRIPTS = ROOT / "scripts"


def load_gpu_wheels():
    spec = importlib.util.spec_from_file_location("gpu_wheels", SCRIPTS / "gpu_wheels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpu_wheels_cover_the_test_stack_and_leave_the_hosts_own_torch_alone():
    wheels = load_gpu_wheels().wheels()
    for needed in ("pytest", "pytest-timeout", "pytest-benchmark", "nbclient", "ipykernel", "pyzmq", "jupytext"):
        assert needed in wheels, needed
    for host_owned in ("torch", "numpy", "matplotlib", "typing-extensions"):
        assert host_owned not in wheels, host_owned
    locked = load_gpu_wheels().pins()
    assert all(locked[name] == version for name, version in wheels.items())


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120, env=env)


def test_fetch_gpu_wheels_downloads_each_pin_for_cpython_312_on_linux_x86_64():
    env = {**os.environ, "PYTHON": sys.executable}  # PYTHONPATH too: on a GPU host the wheels live there
    out = run("scripts/fetch_gpu_wheels.sh", "--dry-run", env=env)
    assert out.returncode == 0, out.stderr
    *lines, data = out.stdout.splitlines()
    wheels = load_gpu_wheels().wheels()
    assert len(lines) == len(wheels)
    # test_facts reads torchvision's model sources from its pinned wheel: fetched (and sha256-checked)
    # by sitekit/facts.py into .whl/data/, which gpu_verify.sh copies to .nox/wheels/ without installing it
    assert "facts.torchvision_wheel(Path('.whl/data'))" in data, data
    for line, (name, version) in zip(lines, wheels.items(), strict=True):
        assert "pip download" in line and "--no-deps --only-binary=:all: --python-version 3.12" in line
        assert "--implementation cp" in line and "--platform manylinux_2_28_x86_64" in line
        assert line.endswith(f"-d .whl {name}=={version}"), line


def test_gpu_verify_plans_benchmarks_then_every_claim_on_cuda_and_copies_the_results(tmp_path):
    out = run("scripts/gpu_verify.sh", "--dry-run", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    steps = [line for line in out.stdout.splitlines() if line.startswith("+ ")]
    bench = next(i for i, s in enumerate(steps) if "pytest" in s and "benchmarks" in s)
    claims = next(i for i, s in enumerate(steps) if "pytest" in s and s.split(">")[0].rstrip().endswith(" tests"))
    assert bench < claims, "the claims in tests/costs read the CUDA benchmark results: bench first"
    assert "--device cuda --benchmark-enable" in steps[bench]
    assert "--device cuda" in steps[claims]
    copied = [s for s in steps if s.startswith("+ cp ") and not s.endswith(" .nox/wheels/")]
    assert [c.split()[2] for c in copied][:2] == ["results/cuda.json", "results/bench-cuda.json"]
    assert all(c.endswith(f"{tmp_path}/") for c in copied)
    assert list(tmp_path.iterdir()) == []  # a dry run changes nothing


def test_gpu_verify_passes_a_test_selection_through():
    out = run("scripts/gpu_verify.sh", "--dry-run", "--skip-bench", "tests/costs", "-x")
    assert out.returncode == 0, out.stderr
    assert not any("benchmarks" in line for line in out.stdout.splitlines())
    assert any(line.split(">")[0].rstrip().endswith("--device cuda tests/costs -x") for line in out.stdout.splitlines())


def test_gpu_verify_puts_the_torchvision_wheel_where_test_facts_reads_it_without_installing_it(tmp_path):
    from sitekit import facts

    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "gpu_verify.sh").write_bytes((SCRIPTS / "gpu_verify.sh").read_bytes())
    (tmp_path / ".whl" / "data").mkdir(parents=True)
    (tmp_path / ".whl" / "data" / facts.WHEEL).write_bytes(b"")
    out = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "gpu_verify.sh"), "--dry-run", "--skip-bench"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    steps = [line for line in out.stdout.splitlines() if line.startswith("+ ")]
    assert f"+ cp .whl/data/{facts.WHEEL} .nox/wheels/" in steps
    assert not any("pip install" in s and facts.WHEEL in s for s in steps)  # data, never installed
    assert facts.CACHE.relative_to(ROOT).as_posix() == ".nox/wheels"  # where test_facts looks
