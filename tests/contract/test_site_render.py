"""The rendered site (sitekit/site_render.py): every page and file rendered into a folder without MkDocs, and,
in the preview, a prose edit re-renders its page alone (so MkDocs' dirty rebuild touches only that page)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from sitekit import preview, site_render

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import sys
from pathlib import Path
sys.modules["mkdocs"] = None  # any `import mkdocs...` now raises ImportError
sys.modules["material"] = None
sys.path.insert(0, sys.argv[1])
from sitekit import site_render

folder = Path(sys.argv[2])
site = site_render.render_site(strict=False, folder=folder)  # not strict: claim tests may be recording beside us
for uri in site.order:
    assert (folder / uri).is_file(), uri
assert "module/gradient-highway.md" in site.titles and site.part_numbers["module/gradient-highway.md"] == 3
assert any(p.suffix == ".svg" for p in (folder / "figures").iterdir()), "no figures"
assert (folder / "assets").is_dir() and (folder / "module" / "check_exercise.py").is_file()
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("mkdocs", "material") and sys.modules[m] is not None)
assert loaded == [], loaded
print("rendered the site without MkDocs")
"""


def test_the_site_renders_where_mkdocs_cannot_be_imported(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT), str(tmp_path / "rendered")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "rendered the site without MkDocs" in out.stdout


def test_the_nav_gives_reading_order_titles_and_parts():
    pages = dict(site_render.nav_pages())
    assert pages["module/residual-block.md"] == "Part 2 · The residual block"
    assert pages["module/index.md"] is None  # listed without a title: MkDocs' nav then has none either
    assert next(iter(pages)) == "index.md"


def test_front_matter_is_kept_and_the_page_body_is_what_mkdocs_reads():
    """The rendered page keeps its metadata (the theme reads `hide:`); what is rendered is what MkDocs would have
    handed the page's hooks: mkdocs.utils.meta.get_data's split, YAML or MultiMarkdown-style."""
    head, body = site_render.split_meta("---\nhide:\n  - toc\n---\n\n# Title\n")
    assert head == "---\nhide:\n  - toc\n---\n" and body == "# Title\n"
    assert site_render.split_meta("# Title\n\nText.\n") == ("", "# Title\n\nText.\n")
    assert site_render.split_meta("Title: A\n    more\n\n# Title\n") == ("Title: A\n    more\n\n", "# Title\n")
    assert site_render.split_meta("\n\n# Title\n") == ("\n", "# Title\n")


def test_a_prose_edit_in_the_preview_rewrites_that_page_alone(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    shutil.copytree(site_render.DOCS, docs)
    monkeypatch.setattr(site_render, "DOCS", docs)
    monkeypatch.setattr(site_render, "STAMP", tmp_path / "rendered.stamp")
    monkeypatch.setattr(preview, "stamp", lambda *a, **k: (0, 0, 0))  # the other inputs do not change here
    folder, session = tmp_path / "rendered", preview.Preview(dirty=True)
    assert site_render.ensure(False, session, folder), "the first build renders everything"
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}

    page = docs / "module" / "gradient-highway.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nA sentence with the word previewedit.\n", encoding="utf-8")
    assert not site_render.ensure(False, session, folder), "a prose edit renders its page, not the site"

    after = {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}
    assert set(after) == set(before)
    assert [p for p in after if after[p] != before[p]] == [folder / "module" / "gradient-highway.md"]
    assert "previewedit" in (folder / "module" / "gradient-highway.md").read_text(encoding="utf-8")
