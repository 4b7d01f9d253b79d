"""Every page's footer links the repository when the build knows its address (SITE_REPOSITORY, set by the Pages
workflow), and a build that does not know it prints no link at all: no placeholder host."""

from __future__ import annotations

from pathlib import Path

import jinja2
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _footer(repository: str) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT / "overrides"), autoescape=True)
    return env.get_template("partials/copyright.html").render(config={"extra": {"repository": repository}})


def test_a_known_repository_is_linked() -> None:
    html = _footer("https://github.com/example/residual-stream")
    assert '<a href="https://github.com/example/residual-stream">github.com/example/residual-stream</a>' in html


def test_an_unknown_repository_prints_no_link() -> None:
    html = _footer("")
    assert "Code, tests and records" not in html and "github.com" not in html


def test_the_address_comes_from_the_environment_and_the_workflow_sets_it() -> None:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!ENV", lambda loader, node: ("ENV", *loader.construct_sequence(node)))
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    assert config["extra"]["repository"] == ("ENV", "SITE_REPOSITORY", "")
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert "SITE_REPOSITORY: ${{ format('{0}/{1}', github.server_url, github.repository) }}" in workflow
