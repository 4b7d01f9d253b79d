"""The contributor tooling is well formed: CI workflows against GitHub's schema, the pre-commit config.

Offline and fast: the workflow schema is vendored (tests/contract/schemas/README.md says from where).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from sitekit.claims import ROOT

SCHEMA = Path(__file__).resolve().parent / "schemas" / "github-workflow.json"
SCHEMA_SHA256 = "d10c9f4656e1bd5bc6727e9b35080e017dc167154726fca93da33c7a6bd1c4f3"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))


def load_yaml(path: Path) -> Any:
    """YAML as GitHub reads it: PyYAML turns the key `on` into True (YAML 1.1), GitHub does not."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if isinstance(data, dict) and True in data:
        data["on"] = data.pop(True)
    return data


def workflow_errors(data: Any) -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(data)]


def test_vendored_schema_is_the_pinned_copy():
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == SCHEMA_SHA256


def test_there_is_a_ci_workflow():
    assert ROOT / ".github" / "workflows" / "ci.yml" in WORKFLOWS


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_matches_githubs_schema(path):
    assert workflow_errors(load_yaml(path)) == []


def test_the_schema_rejects_a_broken_workflow():
    broken = load_yaml(ROOT / ".github" / "workflows" / "ci.yml")
    broken["jobs"]["verify"]["runs-on"] = None
    del broken["jobs"]["verify"]["steps"]
    broken["jobs"]["verify"]["stepz"] = []
    assert workflow_errors(broken)


def test_ci_verifies_builds_tests_in_a_browser_publishes_and_runs_cuda():
    ci = load_yaml(ROOT / ".github" / "workflows" / "ci.yml")
    assert "pull_request" in ci["on"] and ci["on"]["push"]["branches"] == ["main"]
    runs = [step["run"] for step in ci["jobs"]["verify"]["steps"] if "run" in step]
    assert runs == ["bash .ci/run"], "the hosted workflow runs .ci/run, the one CI definition, and nothing else"
    uses = [step.get("uses", "") for job in ci["jobs"].values() for step in job["steps"]]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)
    cuda = ci["jobs"]["cuda"]
    assert cuda["runs-on"] == ["self-hosted", "gpu"]
    assert "scripts/gpu_verify.sh" in " ".join(step.get("run", "") for step in cuda["steps"])
    assert "head.repo.full_name == github.repository" in cuda["if"], "fork pull requests must not reach the GPU host"


CI_STEPS = (
    "nox -s lint",
    "nox -s tests docs",
    "nox -s zensical",
    "nox -s notebooks",
    "nox -s heldout",
    "nox -s browser",
)


def test_ci_run_lints_first_then_runs_every_step_in_order():
    """One CI definition: .ci/run, which the hosted workflow calls, runs lint first and every other step."""
    lines = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if "nox -s" in line]
    commands = [line for line in lines if not line.lstrip().startswith("#")]
    found = [next((i for i, line in enumerate(commands) if step in line), -1) for step in CI_STEPS]
    assert -1 not in found, f".ci/run lacks {[s for s, i in zip(CI_STEPS, found, strict=True) if i < 0]}"
    assert found == sorted(found) and found[0] == 0, f".ci/run runs its steps out of order: {commands}"


def test_readme_names_the_one_ci_definition():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "bash .ci/run" in readme and ".github/workflows/ci.yml" in readme


def _lock_version(name: str) -> str:
    for line in (ROOT / "requirements" / "lock.txt").read_text(encoding="utf-8").splitlines():
        if line.lower().startswith(name + "=="):
            return line.split("==", 1)[1]
    raise AssertionError(f"{name} is not pinned in requirements/lock.txt")


def test_pre_commit_config_is_well_formed_and_agrees_with_the_lock():
    config = load_yaml(ROOT / ".pre-commit-config.yaml")
    re.compile(config.get("exclude", ""))
    hooks = {}
    for repo in config["repos"]:
        assert set(repo) <= {"repo", "rev", "hooks"} and repo["repo"].startswith("https://")
        assert re.fullmatch(r"v\d+\.\d+\.\d+", repo["rev"]), f"{repo['repo']}: pin an exact release tag"
        for hook in repo["hooks"]:
            assert isinstance(hook["id"], str)
            re.compile(hook.get("exclude", ""))
            hooks[hook["id"]] = (repo, hook)
    for wanted in ("ruff-check", "ruff-format", "codespell", "end-of-file-fixer", "trailing-whitespace"):
        assert wanted in hooks, f"pre-commit runs no {wanted}"
    assert hooks["ruff-check"][0]["rev"] == "v" + _lock_version("ruff"), "ruff's hook and its lock pin differ"
    words = ROOT / ".codespell-words.txt"
    assert f"--ignore-words={words.name}" in hooks["codespell"][1]["args"] and words.is_file()
