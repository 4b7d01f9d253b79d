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


def test_every_footer_links_the_back_office() -> None:
    """The pages on how the site is checked are out of the reader's path in the nav; the footer keeps them
    one click away from every page, with or without a repository."""
    for repository in ("", "https://github.com/example/residual-stream"):
        assert 'href="../how-we-check/">How this site is checked</a>' in _footer_at("..", repository)


def _footer_at(base_url: str, repository: str) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT / "overrides"), autoescape=True)
    template = env.get_template("partials/copyright.html")
    return template.render(config={"extra": {"repository": repository}}, base_url=base_url)


def test_the_back_office_is_one_section_of_the_nav_after_the_encyclopedia() -> None:
    nav = [next(iter(e)) if isinstance(e, dict) else e for e in _config()["nav"]]
    assert nav.index("How this site is checked") == nav.index("Encyclopedia") + 1 == len(nav) - 1
    section = next(e for e in _config()["nav"] if isinstance(e, dict) and "How this site is checked" in e)
    pages = [next(iter(e.values())) for e in section["How this site is checked"]]
    assert {"how-we-check.md", "claims.md", "costs.md", "module/sources.md", "contributing.md"} <= set(pages)


def _config() -> dict:
    from sitekit.site_render import ConfigLoader

    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=ConfigLoader)
