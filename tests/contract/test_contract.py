"""The verified-site contract: each way a contributor can break it fails, with a message that says how to fix it.

These are plain tests of the pipeline (not claims about residual connections).
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import markdown
import pytest
from pymdownx.snippets import SnippetMissingError

from sitekit import claims, contract, figures, render
from sitekit.pytest_plugin import Claim as ClaimHandle

ROOT = claims.ROOT
FENCE = "`" * 3


def make_tree(tmp_path: Path, page: str, snippet: str | None = None, test: str | None = None) -> Path:
    """A miniature site: docs/page.md, snippets/topic/demo.py, tests/topic/test_demo.py."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(page)
    if snippet is not None:
        (tmp_path / "snippets" / "topic").mkdir(parents=True)
        (tmp_path / "snippets" / "topic" / "demo.py").write_text(snippet)
    if test is not None:
        (tmp_path / "tests" / "topic").mkdir(parents=True)
        (tmp_path / "tests" / "topic" / "test_demo.py").write_text(test)
    return tmp_path


SNIPPET = "# --8<-- [start:demo]\nx = 1\n# --8<-- [end:demo]\n"
TEST = "import pytest\n@pytest.mark.claim('x is 1', page='page.md')\ndef test_x(claim): ...\n"
INCLUDE = f'{FENCE}python title="snippets/topic/demo.py"\n--8<-- "snippets/topic/demo.py:demo"\n{FENCE}\n'


def test_the_site_itself_keeps_the_contract():
    assert contract.check_tree() == []


def test_a_well_formed_miniature_site_passes(tmp_path):
    root = make_tree(tmp_path, INCLUDE, SNIPPET, TEST)
    assert contract.check_tree(root) == []


def test_inline_python_in_a_page_is_rejected_with_the_fix(tmp_path):
    root = make_tree(tmp_path, f"# Page\n\n{FENCE}python\nprint('hi')\n{FENCE}\n", SNIPPET, TEST)
    problems = contract.check_page(root / "docs" / "page.md", root=root)
    assert len(problems) == 1
    assert "page.md:3: inline Python code" in problems[0] and "snippets/<topic>/<name>.py" in problems[0]


def test_text_and_console_fences_are_allowed(tmp_path):
    root = make_tree(tmp_path, f"{FENCE}text\nRuntimeError: boom\n{FENCE}\n{FENCE}console\n$ nox\n{FENCE}\n")
    assert contract.check_page(root / "docs" / "page.md", root=root) == []


def test_a_missing_include_file_fails_our_check_and_the_markdown_build(tmp_path):
    page = INCLUDE.replace("topic/demo.py", "topic/gone.py")
    root = make_tree(tmp_path, page, SNIPPET, TEST)
    problems = contract.check_page(root / "docs" / "page.md", root=root)
    assert any("includes snippets/topic/gone.py, which does not exist" in p for p in problems)
    config = {"pymdownx.snippets": {"check_paths": True, "base_path": [str(root)]}}
    with pytest.raises(SnippetMissingError, match=r"gone\.py"):
        markdown.markdown(page, extensions=["pymdownx.snippets"], extension_configs=config)


def test_a_missing_section_fails_our_check_and_the_markdown_build(tmp_path):
    page = INCLUDE.replace(":demo", ":other")
    root = make_tree(tmp_path, page, SNIPPET, TEST)
    problems = contract.check_page(root / "docs" / "page.md", root=root)
    assert any("has no section 'other'" in p and "[start:other]" in p for p in problems)
    config = {"pymdownx.snippets": {"check_paths": True, "base_path": [str(root)]}}
    with pytest.raises(SnippetMissingError, match="other"):
        markdown.markdown(page, extensions=["pymdownx.snippets"], extension_configs=config)


def test_an_untitled_listing_is_rejected(tmp_path):
    root = make_tree(tmp_path, INCLUDE.replace(' title="snippets/topic/demo.py"', ""), SNIPPET, TEST)
    problems = contract.check_page(root / "docs" / "page.md", root=root)
    assert any('title="snippets/topic/demo.py"' in p for p in problems)


def test_an_untested_snippet_is_rejected(tmp_path):
    root = make_tree(tmp_path, INCLUDE, SNIPPET, test=None)
    assert contract.check_tree(root) == [
        "snippets/topic/demo.py: untested snippet. Add tests/topic/test_demo.py with a "
        "@pytest.mark.claim test for each sentence the page says about it."
    ]


def test_a_test_file_without_claims_does_not_count(tmp_path):
    root = make_tree(tmp_path, INCLUDE, SNIPPET, "def test_nothing(): ...\n")
    assert contract.check_tree(root) == ["tests/topic/test_demo.py: has no @pytest.mark.claim test."]


def test_a_snippet_no_page_includes_is_rejected(tmp_path):
    root = make_tree(tmp_path, "# Page\n", SNIPPET, TEST)
    (problem,) = contract.check_tree(root)
    assert problem.startswith("snippets/topic/demo.py: no page includes it.")


def test_an_unused_section_is_rejected(tmp_path):
    snippet = SNIPPET + "# --8<-- [start:extra]\ny = 2\n# --8<-- [end:extra]\n"
    root = make_tree(tmp_path, INCLUDE, snippet, TEST)
    assert contract.check_tree(root) == ["snippets/topic/demo.py:4: section 'extra' is not included by any page."]


def test_an_unclosed_section_is_rejected(tmp_path):
    root = make_tree(tmp_path, INCLUDE, "# --8<-- [start:demo]\nx = 1\n", TEST)
    assert any("section 'demo' is never closed" in p for p in contract.check_tree(root))


# Cited claims: missing, failing, stale, and uncited ones stop the build.


def record(cid: str = "add_node_passes_upstream_gradient_unchanged", **changes: object) -> claims.Claim:
    """A claim record for a real test file, with its current hash unless told otherwise."""
    test = "tests/gradient_highway/test_add_node.py"
    base = claims.Claim(
        id=cid,
        statement="s",
        page="module/gradient-highway.md",
        snippet="snippets/gradient_highway/add_node.py",
        test=f"{test}::test_{cid}",
        values={"x": 1.5, "t": {"columns": ["a", "b"], "rows": [[1, 2.0]]}, "err": "RuntimeError: boom"},
        status="passed",
        device="cpu",
        torch="2.13.0",
        hash=claims.code_hash(ROOT / test, "cpu", "2.13.0"),
        recorded_at="2026-11-29T00:00:00+00:00",
        duration_s=0.1,
        counterfactuals=["c"],
    )
    return dataclasses.replace(base, **changes)


def ctx(*records: claims.Claim, **kw: object) -> render.Context:
    return render.Context(page="module/gradient-highway.md", cpu={r.id: r for r in records}, **kw)


def test_a_fresh_passing_claim_fills_values_tables_and_errors():
    c = record()
    text = 'v={{ value("%s", "x", ".2f") }}\n{{ table("%s", "t") }}\n{{ error("%s", "err") }}' % ((c.id,) * 3)
    out = render.render(text, ctx(c))
    assert out.startswith("v=1.50\n| a | b |")
    assert "RuntimeError: boom" in out


def test_macros_inside_code_are_left_alone():
    text = '`{{ value("nope", "x") }}`\n' + FENCE + 'text\n{{ value("nope", "x") }}\n' + FENCE
    assert render.render(text, ctx()) == text


def test_a_missing_claim_fails_the_build_with_its_name():
    with pytest.raises(claims.ClaimError, match=r"docs/module/gradient-highway.md cites claim 'nope'.*nox -s tests"):
        render.render('{{ value("nope", "x") }}', ctx())


def test_a_failing_claim_fails_the_build():
    c = record(status="failed")
    with pytest.raises(claims.ClaimError, match="is failed: fix it"):
        render.render('{{ claim("%s") }}' % c.id, ctx(c))


def test_a_stale_claim_fails_the_build():
    c = record(hash="0000000000000000")
    with pytest.raises(claims.ClaimError, match=r"changed since it ran \(stale result\).*tests/gradient_highway"):
        render.render('{{ claim("%s") }}' % c.id, ctx(c))


def test_a_stale_claim_is_shown_not_raised_in_preview():
    c = record(hash="0000000000000000")
    out = render.render('{{ claim("%s") }}' % c.id, ctx(c, strict=False))
    assert out.startswith('<span class="claim-problem">⚠')


def test_a_missing_value_key_fails_the_build():
    c = record()
    with pytest.raises(claims.ClaimError, match="no recorded value at 'y'"):
        render.render('{{ value("%s", "y") }}' % c.id, ctx(c))


def test_an_uncited_claim_is_reported():
    c = record()
    assert render.uncited({c.id: c}, {"module/gradient-highway.md": set()})[0].startswith(
        "tests/gradient_highway/test_add_node.py::test_add_node_passes_upstream_gradient_unchanged"
    )
    assert render.uncited({c.id: c}, {"module/gradient-highway.md": {c.id}}) == []


def test_stale_cuda_results_are_shown_as_stale_not_verified():
    c = record()
    gpu = record(hash="0000000000000000", values={"x": 9.0})
    assert render.render('{{ value("%s", "x") }}' % c.id, ctx(c, cuda={c.id: gpu})) == "1.5"
    fresh = record(values={"x": 2.5})
    assert render.render('{{ value("%s", "x") }}' % c.id, ctx(c, cuda={c.id: fresh})) == "1.5 (CPU) / 2.5 (CUDA)"
    assert "stale: code changed since" in render.render("{{ ledger() }}", ctx(c, cuda={c.id: gpu}))


def test_changing_a_snippet_that_a_claim_imports_changes_its_hash():
    files = [
        p.relative_to(ROOT).as_posix() for p in claims.code_files(ROOT / "tests/gradient_highway/test_jacobian.py")
    ]
    assert "snippets/residual_block/identity_shortcut.py" in files  # imported by the jacobian snippet
    assert "snippets/gradient_highway/jacobian.py" in files


def test_a_shared_test_helper_is_part_of_the_hash_of_the_claims_that_import_it():
    files = [p.relative_to(ROOT).as_posix() for p in claims.code_files(ROOT / "tests/costs/test_denormals.py")]
    assert "tests/costs/display.py" in files  # how the recorded table is rounded
    check = [p.relative_to(ROOT).as_posix() for p in claims.code_files(ROOT / "tests/exercise/test_check.py")]
    assert "tests/exercise/test_solution.py" in check  # where the reference solution comes from


def test_a_check_that_accepts_its_counterfactual_is_a_defect():
    class Item:
        nodeid = "tests/x.py::test_y"

    handle = ClaimHandle(Item())  # type: ignore[arg-type]
    measured, counterfactual = 0, 1

    def accepts_anything(v: int) -> None: ...

    def exact(v: int) -> None:
        assert v == 0

    handle.check(accepts_anything, measured)
    with pytest.raises(AssertionError, match="a check that cannot fail proves nothing"):
        handle.rejects(accepts_anything, counterfactual, because="anything")
    handle.check(exact, measured)
    handle.rejects(exact, counterfactual, because="rejected")
    assert handle.counterfactuals == ["rejected"]


def test_figures_are_byte_identical_between_two_draws():
    figures.load_all()
    spec = figures.REGISTRY["input-gradient-vs-depth"]
    table = {"columns": list("abcdefg"), "rows": [[L, 1.0, 0.5, 2.0, 3.0, 2.5, 3.5] for L in (5, 10, 20, 50)]}
    values = {cid: {"table": table, "seeds": 5} for cid in spec.claims}
    first, second = figures._render(spec, values), figures._render(spec, values)  # drawn twice, no cache
    assert first == second
    assert b"<svg" in first and b"Date" not in first


def test_a_figure_is_drawn_only_from_passing_current_claims():
    figures.load_all()
    spec = figures.REGISTRY["input-gradient-vs-depth"]
    table = {"columns": list("abcdefg"), "rows": [[L, 1.0, 0.5, 2.0, 3.0, 2.5, 3.5] for L in (5, 10, 20, 50)]}
    fresh = {cid: record(cid=cid, values={"table": table, "seeds": 5}) for cid in spec.claims}
    fresh = {cid: dataclasses.replace(c, hash=c.current_hash() or "") for cid, c in fresh.items()}
    drawn = figures._render(spec, {cid: {"table": table, "seeds": 5} for cid in spec.claims})
    assert figures.draw(spec, fresh) == drawn
    failing = {**fresh, spec.claims[0]: dataclasses.replace(fresh[spec.claims[0]], status="failed")}
    assert figures.draw(spec, failing) is None


def test_lock_file_pins_every_declared_dependency():
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text())["dependency-groups"]
    lock = {
        line.split("==")[0].lower(): line.split("==")[1]
        for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    for group, pins in groups.items():
        for pin in pins:
            if isinstance(pin, str):
                name, version = pin.split("==")
                assert lock.get(name.lower()) == version, (
                    f"{group}: {pin} is not pinned the same in requirements/lock.txt"
                )


def test_cuda_session_fails_without_a_gpu_instead_of_skipping(tmp_path):
    env = {**os.environ, "SITE_RESULTS_DIR": str(tmp_path), "CUDA_VISIBLE_DEVICES": ""}  # hide any GPU
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--device", "cuda", "tests/gradient_highway/test_add_node.py", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert out.returncode != 0
    assert "no CUDA device is visible" in out.stderr + out.stdout
    assert not (tmp_path / "cuda.json").exists()


def test_the_build_refuses_to_start_without_results(tmp_path):
    env = {**os.environ, "SITE_RESULTS_DIR": str(tmp_path), "NO_MKDOCS_2_WARNING": "1"}
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert out.returncode != 0
    assert "results/cpu.json is missing: run `nox -s tests` first" in out.stderr


def test_an_include_outside_a_fence_is_rejected(tmp_path):
    root = make_tree(tmp_path, '# Page\n\n--8<-- "snippets/topic/demo.py:demo"\n', SNIPPET, TEST)
    problems = contract.check_page(root / "docs" / "page.md", root=root)
    assert problems == [
        f"{root}/docs/page.md:3: an include outside a code fence. Put it in a fence titled with "
        "the file, or link to the file instead."
    ]


def test_recorded_strings_show_as_code_but_never_as_python():
    c = record(values={"bib": "@article{k,\n  title = {T}\n}"})
    assert (
        render.render('{{ code("%s", "bib", "bibtex") }}' % c.id, ctx(c))
        == "``` bibtex\n@article{k,\n  title = {T}\n}\n```"
    )
    with pytest.raises(claims.ClaimError, match="Python listings come from snippets/"):
        render.render('{{ code("%s", "bib", "python") }}' % c.id, ctx(c))


def test_ledger_rows_stay_on_one_line_when_values_hold_newlines():
    c = record(values={"bib": "line one\nline two"})
    rows = [r for r in render.render("{{ ledger() }}", ctx(c)).splitlines() if c.id in r and r.startswith("|")]
    assert len(rows) == 1 and "bib = line one line two" in rows[0]
