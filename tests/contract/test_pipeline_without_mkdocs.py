"""The page code is callable without MkDocs: in a process where `mkdocs` and `material` cannot be imported,
sitekit checks a page for typed numbers, fills in its macros from a claim record, typesets it and adds the
page's Content-Security-Policy. (mkdocs_hook.py is the only module that may import MkDocs.)"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import dataclasses, sys
sys.modules["mkdocs"] = None  # any `import mkdocs...` now raises ImportError
sys.modules["material"] = None
sys.path.insert(0, sys.argv[1])
from sitekit import claims, csp, numbers, render

test = "tests/gradient_highway/test_add_node.py"
c = claims.Claim(
    id="add_node_passes_upstream_gradient_unchanged", statement="s", page="module/gradient-highway.md",
    snippet="snippets/gradient_highway/add_node.py", test=f"{test}::test_add_node_passes_upstream_gradient_unchanged",
    values={"x": 1.5}, status="passed", device="cpu", torch="2.13.0",
    hash=claims.code_hash(claims.ROOT / test, "cpu", "2.13.0"), recorded_at="2026-11-29T00:00:00+00:00",
    duration_s=0.1, counterfactuals=["c"],
)
page = 'The gradient arrives unchanged: {{ value("add_node_passes_upstream_gradient_unchanged", "x", ".2f") }}.'
assert numbers.check_markdown(page, "module/gradient-highway.md") == [], "no typed numbers"
assert numbers.check_markdown("It is 2.5 times larger.", "module/gradient-highway.md"), "a typed number is found"
ctx = render.Context(page="module/gradient-highway.md", cpu={c.id: c})
out = render.render(page, ctx)
assert ">1.50</" in out and "{{" not in out, out  # filled in from the record (marked or plain)
html = csp.protect("<html><head><title>t</title></head><body>" + render.typeset_html(out) + "</body></html>")
assert "Content-Security-Policy" in html
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("mkdocs", "material") and sys.modules[m] is not None)
assert loaded == [], loaded
print("rendered without MkDocs")
"""


def test_a_page_renders_where_mkdocs_cannot_be_imported():
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "rendered without MkDocs" in out.stdout


def test_only_the_hook_imports_mkdocs():
    importers = [
        p.relative_to(ROOT).as_posix()
        for p in sorted((ROOT / "sitekit").glob("*.py"))
        if any(
            line.lstrip().startswith(("import mkdocs", "from mkdocs", "import material", "from material"))
            for line in p.read_text(encoding="utf-8").splitlines()
        )
    ]
    assert importers == ["sitekit/mkdocs_hook.py"], importers
