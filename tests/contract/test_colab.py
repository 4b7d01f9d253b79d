"""Open in Colab: a page with a notebook links it on Colab when the build knows the repository (SITE_REPOSITORY),
at the path where the Pages workflow publishes the notebooks this build wrote; without it, no Colab link."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from sitekit import notebooks, render
from sitekit.notebook_index import NOTEBOOKS_BRANCH, colab_url
from sitekit.notebooks import Notebook

ROOT = Path(__file__).resolve().parents[2]
COLAB = re.compile(r"https://colab\.research\.google\.com/github/([\w.-]+)/([\w.-]+)/blob/([\w.-]+)/([^\"')\s]+)")


def _byline(monkeypatch, repository: str | None) -> str:
    if repository is None:
        monkeypatch.delenv("SITE_REPOSITORY", raising=False)
    else:
        monkeypatch.setenv("SITE_REPOSITORY", repository)
    book = Notebook(page="module/x.md", title="X", calls=[{"seconds": 10.0}])
    return render.page_facts(render.Context(page="module/x.md", cpu={}), (1, 7), 5, book)


def test_the_colab_address_names_the_repository_branch_and_notebook() -> None:
    url = colab_url("module-degradation", "https://github.com/owner/residual-stream")
    assert url == (
        "https://colab.research.google.com/github/owner/residual-stream/blob/notebooks/module-degradation.ipynb"
    )
    assert colab_url("x", "") is None and colab_url("x", "https://example.org/owner/name") is None


def test_the_byline_offers_colab_only_when_the_repository_is_known(monkeypatch) -> None:
    with_repo = _byline(monkeypatch, "https://github.com/owner/name")
    assert '<a href="https://colab.research.google.com/github/owner/name/blob/notebooks/module-x.ipynb">' in with_repo
    assert "Open in Colab" in with_repo and "Run it</a>" in with_repo
    without = _byline(monkeypatch, None)
    assert "colab" not in without.lower() and "Run it</a>" in without


def test_the_workflow_publishes_the_built_notebooks_where_the_links_point() -> None:
    """The links say blob/<NOTEBOOKS_BRANCH>/<slug>.ipynb; the build writes site/<FOLDER>/<slug>.ipynb; the workflow
    uploads exactly those files (flat) and pushes them to the root of that branch."""
    jobs = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))["jobs"]
    upload = next(s for s in jobs["verify"]["steps"] if s.get("with", {}).get("name") == "notebooks")
    assert upload["with"]["path"] == f"site/{notebooks.FOLDER}/*.ipynb"
    job = jobs["notebooks"]
    assert job["needs"] == "verify" and job["permissions"] == {"contents": "write"}
    download, push = job["steps"]
    assert download["with"] == {"name": "notebooks", "path": "notebooks"} and push["working-directory"] == "notebooks"
    assert f"git init -q -b {NOTEBOOKS_BRANCH}" in push["run"]
    assert f"{NOTEBOOKS_BRANCH}:{NOTEBOOKS_BRANCH}" in push["run"] and "git add -- *.ipynb" in push["run"]


def test_every_colab_link_in_a_built_site_names_a_notebook_it_publishes() -> None:
    site = ROOT / "site"
    links = [m for page in sorted(site.rglob("*.html")) for m in COLAB.findall(page.read_text(errors="replace"))]
    for _owner, _name, branch, path in links:
        assert branch == NOTEBOOKS_BRANCH and "/" not in path, path
        assert (site / notebooks.FOLDER / path).is_file(), f"{path}: the build published no such notebook"
