"""The verified-site contract: each way a contributor can break it fails, with a message that says how to fix it.

These are plain tests of the pipeline (not claims about residual connections).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import markdown
import pytest
from pymdownx.snippets import SnippetMissingError

from sitekit import claims, contract, figures, render, runs
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
    assert any('title="What the code is · snippets/topic/demo.py"' in p for p in problems)


def _indented(block: str, prefix: str) -> str:
    return "\n".join(prefix + row if row else row for row in block.splitlines()) + "\n"


@pytest.mark.parametrize(
    ("where", "width", "wide"),
    [
        ("body", 92, False),
        ("body", 93, True),  # the Lab 2 docstring that overflowed at 1280 px was 96
        ("tab", 93, True),  # a tab's listing is checked though a reader sees it only after a click
        ("fold", 112, False),  # a fold sets code smaller: more characters fit
        ("fold", 113, True),
        ("list", 88, False),  # a list item takes 4 columns
        ("list", 89, True),
    ],
)
def test_a_listing_line_wider_than_its_block_is_rejected(tmp_path, where, width, wide):
    line = "x = 1  # " + "w" * (width - 9)
    snippet = f"# --8<-- [start:demo]\n{line}\n# --8<-- [end:demo]\n"
    page = {
        "body": INCLUDE,
        "tab": '=== "One"\n\n' + _indented(INCLUDE, "    "),
        "fold": '??? note "More"\n' + _indented(INCLUDE, "    "),
        "list": "- An item:\n\n" + _indented(INCLUDE, "    "),
    }[where]
    root = make_tree(tmp_path, page, snippet, TEST)
    problems = [p for p in contract.check_page(root / "docs" / "page.md", root=root) if "characters wide" in p]
    assert bool(problems) == wide, problems
    if wide:
        assert f"snippets/topic/demo.py:2 is {width} characters wide" in problems[0]
        assert "Break the line" in problems[0]


@pytest.mark.parametrize(
    ("title", "ok"),
    [
        ("snippets/topic/demo.py", True),
        ("The demo block · snippets/topic/demo.py", True),
        ("The demo block", False),
        (" · snippets/topic/demo.py", False),
        ("The demo block · snippets/topic/other.py", False),
    ],
)
def test_a_listing_title_says_what_the_code_is_and_keeps_the_path(tmp_path, title, ok):
    root = make_tree(tmp_path, INCLUDE.replace('title="snippets/topic/demo.py"', f'title="{title}"'), SNIPPET, TEST)
    assert (contract.check_page(root / "docs" / "page.md", root=root) == []) is ok


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


@pytest.fixture(autouse=True)
def labelled(monkeypatch):
    """The test records' results as facts/receipts.toml would name them: "x" of every claim is a result."""
    from sitekit import receipt_labels

    monkeypatch.setattr(receipt_labels, "labels", lambda: {cid: {"x": "The value"} for cid in RESULT_CLAIMS})


RESULT_CLAIMS = (
    "add_node_passes_upstream_gradient_unchanged",
    "zeroed_block_returns_its_input_exactly",
    "plain_stack_input_gradient_vanishes_by_depth_50",
)


def test_a_fresh_passing_claim_fills_values_tables_and_errors():
    c = record()
    text = 'v={{ value("%s", "x", ".2f") }}\n{{ table("%s", "t") }}\n{{ error("%s", "err") }}' % ((c.id,) * 3)
    out = render.render(text, ctx(c))
    assert out.startswith(
        'v=<a class="rcpt num k-measured" href="../../claims/#claim-add-node-passes-upstream-gradient-unchanged"'
    )
    assert 'data-key="x" id="use-add-node-passes-upstream-gradient-unchanged">1.50</a>\n| a | b |' in out
    assert "RuntimeError: boom" in out
    assert out.count('class="rcpt-line"') == 2  # one "measured" mark under the table, one under the error


def text_of(html: str) -> str:
    import re

    return re.sub(r"<[^>]+>", "", html)


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
    with pytest.raises(claims.ClaimError, match=r"is out of date: .*changed since it ran.*tests/gradient_highway"):
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
    assert text_of(render.render('{{ value("%s", "x") }}' % c.id, ctx(c, cuda={c.id: gpu}))) == "1.5"
    fresh = record(values={"x": 2.5})
    both = render.render('{{ value("%s", "x") }}' % c.id, ctx(c, cuda={c.id: fresh}))
    assert text_of(both) == "1.5 (CPU) / 2.5 (CUDA)"
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
    assert "snippets/exercise/learner.py" in check  # how a reader runs the exercise's files


def test_a_check_that_accepts_its_counterfactual_is_a_defect():
    class Item:
        nodeid = "tests/x.py::test_y"

    handle = ClaimHandle(Item())  # type: ignore[arg-type]
    measured, counterfactual = runs.register((0, 1), "snippets.topic.demo.measure()")  # what two runs gave

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
    assert render.render('{{ code("%s", "bib", "bibtex") }}' % c.id, ctx(c)).startswith(
        '``` { .bibtex .wrap }\n@article{k,\n  title = {T}\n}\n```\n\n<p class="rcpt-line">'
    )
    with pytest.raises(claims.ClaimError, match="Python listings come from snippets/"):
        render.render('{{ code("%s", "bib", "python") }}' % c.id, ctx(c))


def test_ledger_rows_stay_on_one_line_when_values_hold_newlines():
    c = record(values={"bib": "line one\nline two"})
    rows = [r for r in render.render("{{ ledger() }}", ctx(c)).splitlines() if c.id.replace("_", "-") in r]
    assert len(rows) == 1 and rows[0].startswith("<tr id=")


# Typesetting and receipts.

NNBSP = "\u202f"


@pytest.mark.parametrize(
    ("value", "spec", "prose", "tex"),
    [
        (4.4e-29, ".1e", f"4.4{NNBSP}×{NNBSP}10⁻²⁹", "4.4 \\times 10^{-29}"),
        (5.654e10, ".1e", f"5.7{NNBSP}×{NNBSP}10¹⁰", "5.7 \\times 10^{10}"),
        (1e-12, ".0e", "10⁻¹²", "10^{-12}"),
        (0.0, ".1e", "0.0", "0.0"),
        (-0.25, ".2f", "−0.25", "-0.25"),
        (0.123, ".1%", "12.3%", "12.3\\%"),
        (1234567, ",", "1,234,567", "1{,}234{,}567"),
        (6.103515625e-05, "", f"6.103515625{NNBSP}×{NNBSP}10⁻⁵", "6.103515625 \\times 10^{-5}"),
        ("2.06e-04", "", f"2.06{NNBSP}×{NNBSP}10⁻⁴", "2.06 \\times 10^{-4}"),
        ("RuntimeError: a view", "", "RuntimeError: a view", "RuntimeError: a view"),
    ],
)
def test_numbers_are_typeset_as_a_reader_expects(value, spec, prose, tex):
    assert render.fmt(value, spec) == prose
    assert render.fmt(value, spec, math_mode=True) == tex


def test_a_number_that_ends_a_sentence_is_typeset_and_a_version_is_not():
    # The ledger prints claim sentences through typeset(): "below 1e-6." stayed raw while the final dot counted as
    # part of the number.
    assert render.typeset("the largest difference is below 1e-6.") == "the largest difference is below 10⁻⁶."
    assert render.typeset("torch 1.2e3.4") == "torch 1.2e3.4"


def test_a_table_column_keeps_one_notation_and_its_significant_figures():
    assert render.column_formats([0.000977, 0.000244, 6.1e-05], ".3g") == [
        f"9.77{NNBSP}×{NNBSP}10⁻⁴",
        f"2.44{NNBSP}×{NNBSP}10⁻⁴",
        f"6.10{NNBSP}×{NNBSP}10⁻⁵",
    ]
    assert render.column_formats([0.5, 0.25, 1.0], ".2g") == ["0.50", "0.25", "1.0"]
    assert render.column_formats([64, 256, 1024], ".3g") == ["64", "256", "1024"]
    assert render.column_formats([64, "n/a"], ".3g") == ["64", "n/a"]


def test_a_value_inside_math_is_plain_tex_even_across_lines():
    c = record(values={"x": 4.4e-29, "n": 128})
    one = render.render('\\( d = {{ value("%s", "n") }} \\) and {{ value("%s", "x", ".1e") }}' % (c.id, c.id), ctx(c))
    assert one.startswith('\\( d = 128 \\) and <a class="rcpt num k-measured"')
    two = render.render('\\[\n x = {{ value("%s", "x", ".1e") }}\n\\]\n\n{{ claim("%s") }}' % (c.id, c.id), ctx(c))
    assert "x = 4.4 \\times 10^{-29}\n" in two and "<a" not in two.split("\\]")[0]


def test_a_claim_marker_appears_only_where_no_number_already_carries_the_receipt():
    c = record()
    alone = render.render('A sentence. {{ claim("%s") }}' % c.id, ctx(c))
    assert 'class="rcpt rcpt-mark k-measured"' in alone and "verified" not in text_of(alone)
    with_number = render.render('It is {{ value("%s", "x") }}. {{ claim("%s") }}' % (c.id, c.id), ctx(c))
    assert with_number.count("<a ") == 1 and with_number.endswith("</a>.")
    under_a_table = render.render('{{ table("%s", "t") }}\n\n{{ claim("%s") }}' % (c.id, c.id), ctx(c))
    assert under_a_table.count("<a ") == 1
    indented = render.render('    {{ table("%s", "t") }}\n\n    {{ claim("%s") }} Then more.' % (c.id, c.id), ctx(c))
    assert indented.endswith("\n\n    Then more."), "a claim that adds nothing keeps the line's indentation"
    later = render.render('It is {{ value("%s", "x") }}.\n\nMore.\n\n{{ claim("%s") }}' % (c.id, c.id), ctx(c))
    assert later.count("<a ") == 1, "one mark a claim a page: a later sentence about it stays plain"


def test_the_first_receipt_on_the_claims_own_page_is_the_ledgers_back_link_target():
    c = record()
    out = render.render('{{ value("%s", "x") }} {{ value("%s", "x") }}' % (c.id, c.id), ctx(c))
    assert out.count('id="use-add-node-passes-upstream-gradient-unchanged"') == 1
    elsewhere = render.Context(page="module/quiz.md", cpu={c.id: c})
    assert 'id="' not in render.render('{{ value("%s", "x") }}' % c.id, elsewhere)


def test_a_claim_shown_only_inside_math_on_its_own_page_is_refused():
    c = record()
    with pytest.raises(claims.ClaimError, match=r"only inside math.*add \{\{ claim"):
        render.render('\\( x = {{ value("%s", "x") }} \\)' % c.id, ctx(c))


def test_the_ledger_groups_by_page_in_reading_order_and_shows_cuda_only_when_recorded():
    def ctx(*records: claims.Claim, **kw: object) -> render.Context:
        return render.Context(page="claims.md", cpu={r.id: r for r in records}, **kw)

    a = record()
    b = record(cid="other_claim", page="module/degradation.md")
    order = ["index.md", "module/degradation.md", "module/gradient-highway.md"]
    out = render.render("{{ ledger() }}", ctx(a, b, page_order=order))
    assert out.index('id="page-module-degradation"') < out.index('id="page-module-gradient-highway"')
    assert "CUDA has not run yet" in out and "<th>CUDA</th>" not in out
    assert '<a class="back" href="../module/gradient-highway/#use-add-node-passes-upstream-gradient-unchanged">' in out
    gpu = record()
    with_cuda = render.render("{{ ledger() }}", ctx(a, b, page_order=order, cuda={a.id: gpu}))
    assert "<th>CUDA</th>" in with_cuda and "1 verified on CUDA" in with_cuda
    independent = dataclasses.replace(gpu)
    object.__setattr__(independent, "device_independent", "pure arithmetic")
    alone = render.render("{{ ledger() }}", ctx(a, b, page_order=order, cuda={a.id: independent}))
    assert "0 verified on CUDA" in alone


def test_the_ledgers_key_value_is_the_outcome_its_margin_is_about():
    c = record(values={"seeds": 5, "x": 0.123456})
    assert render.key_value(c, {f"{c.page}\0{c.id}": [("seeds", ""), ("x", ".2f")]}) == ("", "—")
    margins = [
        {"what": "final loss ratio", "op": ">", "threshold": 3.0, "n": 5, "worst": 4.1637, "relative": 0.39},
        {"what": "other", "op": ">", "threshold": 1.0, "n": 5, "worst": 9.0, "relative": 8.0},
    ]
    measured = dataclasses.replace(c, margins=margins)
    assert render.key_value(measured, {}) == ("final loss ratio, worst of 5", "4.16")
    assert render.key_value(dataclasses.replace(c, exact="equal"), {}) == ("", "holds exactly")
    headline = record(values={"x": 1.0, "headline": 2.5})
    assert render.key_value(headline, {}) == ("", "2.5")


def test_merge_drops_records_of_renamed_claims(tmp_path, monkeypatch):
    """A record whose test function no longer exists (a renamed claim) leaves results/<device>.json."""
    from sitekit import claims as store

    monkeypatch.setenv("SITE_RESULTS_DIR", str(tmp_path))
    kept = "tests/contract/test_contract.py::test_merge_drops_records_of_renamed_claims"
    gone = "tests/contract/test_contract.py::test_a_name_that_was_renamed_away"
    store.merge("cpu", {"kept": {"test": kept}, "gone": {"test": gone}}, {})
    store.merge("cpu", {}, {})
    assert set(json.loads((tmp_path / "cpu.json").read_text())["claims"]) == {"kept"}


def test_a_question_title_shows_a_fact_without_its_link():
    """A `???` title becomes a <summary>, itself a control: a link in it is a control in a control."""
    fid = next(iter(__import__("sitekit.facts", fromlist=["registry"]).registry().facts))
    text = f'??? question "Q: {{{{ fact("{fid}") }}}} layers?"\n\n    Body {{{{ fact("{fid}") }}}}.'
    title, body = render.render(text, ctx()).split("\n\n")
    assert "](" not in title and "<a" not in title and "†" not in title
    assert 'class="src"' in body  # the body keeps its source mark, linked to the Sources entry


def test_a_sentence_mark_after_a_macro_line_joins_it():
    """`…\\n  {{ claim(...) }}.` must not become "… ." when the marker renders as nothing."""
    assert render.render("the value 3\n  .\nNext, and\n, more", ctx()) == "the value 3.\nNext, and, more"
    assert render.render("a list\n\n. not joined", ctx()) == "a list\n\n. not joined"


def test_a_claim_marker_sits_on_the_word_before_it_so_no_reading_of_the_page_has_a_space_before_a_mark():
    """`rounding {{ claim(...) }}.` and `rounding\\n{{ claim(...) }}.` read "rounding." with the icon
    dropped (search index, reader mode, copied text), not "rounding ."."""
    c = record()
    inline = render.render('to the same works {{ claim("%s") }}. Every' % c.id, ctx(c))
    assert inline.startswith('to the same works<a class="rcpt rcpt-mark k-measured"') and inline.endswith("</a>. Every")
    own_line = render.render('weights, to float64 rounding\n{{ claim("%s") }}. The original' % c.id, ctx(c))
    assert own_line.startswith('weights, to float64 rounding<a class="rcpt rcpt-mark k-measured"'), own_line
    assert "\n" not in own_line and own_line.endswith("</a>. The original")
    assert text_of(own_line) == "weights, to float64 rounding. The original"
    kept = render.render('## A heading\n{{ claim("%s") }} after it' % c.id, ctx(c))
    assert kept.startswith("## A heading\n<a "), "a heading keeps its own line"


def test_a_marker_after_a_formula_and_a_colon_left_by_a_claim_join_the_text_before():
    c = record()
    after_math = render.render('norms\' \\(12d^2 + 13d\\) {{ claim("%s") }}.' % c.id, ctx(c))
    assert '\\)<a class="rcpt rcpt-mark k-measured"' in after_math and after_math.endswith("</a>.")
    colon = render.render('by {{ value("%s", "x") }}\n{{ claim("%s") }}:\n\nNext' % (c.id, c.id), ctx(c))
    assert text_of(colon).startswith("by 1.5:"), colon
    assert render.render("Term\n: a definition", ctx()) == "Term\n: a definition"  # Markdown's own colon


def test_identities_exact_and_measured_findings_are_shown_and_counted_apart():
    ident = record(identity="the hand-written backward returns g for both operands")
    exact = record("zeroed_block_returns_its_input_exactly", exact="torch.equal")
    found = record("plain_stack_input_gradient_vanishes_by_depth_50")
    page = render.render("{{ ledger() }}", ctx(ident, exact, found, page_order=["module/gradient-highway.md"]))
    assert "measured findings 1," in page and "exact findings 1 (" in page
    assert "checked identities 1, which hold by construction" in page and "not evidence" in page
    data = render.receipt_data(ctx(ident), ident)
    assert data["kind"] == "checked identity" and data["margin"].startswith("checked identity (holds by construction")
    assert render.receipt_data(ctx(found), found)["kind"] == "measured finding"
    assert render.render('{{ kinds("identity") }}/{{ kinds("exact") }}', ctx(ident, exact, found)) == "1/1"


def test_how_we_check_says_what_this_build_ran_or_reused():
    fresh = record()
    said = render.render("{{ this_build() }}", ctx(fresh))
    assert said.startswith("This copy of the site was built after all 1 claims ran")
    reused = record("zeroed_block_returns_its_input_exactly", reused="2026-11-20T00:00:00+00:00")
    said = render.render("{{ this_build() }}", ctx(fresh, reused))
    assert "ran 1 of its 2 claims and reused the passing records of the other 1" in said
    head = render.render("{{ ledger() }}", ctx(fresh, reused))
    assert "1 run by this build and 1 reused from an earlier run" in head
    # CI's rotation: an experiment resting on a reproduced committed record is not a contributor's build
    resting = record(
        "zeroed_block_returns_its_input_exactly",
        reused="2026-11-20T00:00:00+00:00",
        experiment="trains two nets",
        reproduced={"commit": "abc", "cpu": "AMD EPYC", "date": "2026-11-21"},
        ran={"date": "2026-11-20", "cpu": "Intel Xeon", "file": "tests/x/test_y.py"},
    )
    said = render.render("{{ this_build() }}", ctx(fresh, resting))
    assert "the other 1 show committed records that an earlier run of CI reproduced" in said
    assert "contributor's build" not in said


def test_only_a_labelled_result_carries_a_receipt_and_only_its_first_on_a_page():
    """Bound everywhere, marked where it matters: a setting ("y", unlabelled) prints as plain text; the result
    ("x") carries one receipt a page, whose popover leads with its label; a later mention is plain."""
    c = record(asserted_keys=["x", "y"], values={"x": 1.5, "y": 5})
    text = 'Over {{ value("%s", "y") }} seeds: {{ value("%s", "x", ".2f") }}.\n\nAgain {{ value("%s", "x", ".2f") }}.'
    page = ctx(c)
    out = render.render(text % ((c.id,) * 3), page)
    assert out.count("<a ") == 1 and text_of(out) == "Over 5 seeds: 1.50.\n\nAgain 1.50."
    assert 'data-key="x"' in out and 'data-key="y"' not in out
    assert page.receipts[c.id]["what"] == {"x": "The value"}
    assert page.receipts[c.id]["title"] == "Add node passes upstream gradient unchanged"


def test_a_paragraph_carries_at_most_three_marks_and_a_fourth_result_waits_for_its_next_mention(monkeypatch):
    ids = (*RESULT_CLAIMS, "fourth_claim")
    recs = [record(cid) for cid in ids]
    from sitekit import receipt_labels

    monkeypatch.setattr(receipt_labels, "labels", lambda: {cid: {"x": "The value"} for cid in ids})
    calls = " ".join('{{ value("%s", "x") }}' % cid for cid in ids)
    out = render.render(calls + '\n\nLater {{ value("fourth_claim", "x") }}.', ctx(*recs))
    first, later = out.split("\n\n")
    assert first.count('class="rcpt num') == 3 and later.count('class="rcpt num') == 1


def test_a_claim_marker_for_a_claim_whose_result_is_marked_later_on_the_page_adds_nothing():
    c = record()
    out = render.render('A sentence. {{ claim("%s") }}\n\nThe result: {{ value("%s", "x") }}.' % (c.id, c.id), ctx(c))
    assert out.count("<a ") == 1 and 'class="rcpt num' in out


def test_two_claim_tests_with_one_name_in_different_files_are_refused(tmp_path):
    """Their records would share one id; a run that reuses one file and runs the other never sees both."""
    source = 'import pytest\n\n\n@pytest.mark.claim("s", page="p.md")\ndef test_same(claim):\n    pass\n'
    for topic in ("a", "b"):
        (tmp_path / "tests" / topic).mkdir(parents=True)
        (tmp_path / "tests" / topic / f"test_{topic}.py").write_text(source, encoding="utf-8")
    assert contract.duplicate_claim_ids(tmp_path) == [
        "tests/b/test_b.py: claim id 'same' is also tests/a/test_a.py's: rename one of the two tests"
    ]
