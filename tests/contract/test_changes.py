"""The What changed page (sitekit/changes.py; git is read by sitekit/history.py): from a small git history
it says exactly what each day changed, marks a reworded claim and a corrected fact as corrections, reads its parses
from the cache the second time, and says in one sentence that history is not available where a checkout has none
(no .git, a shallow clone)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from sitekit import changes, history

TEST = """import pytest

PAGE = "module/p.md"


@pytest.mark.claim("{a}", page=PAGE)
def test_loss_falls(claim):
    pass
{more}"""
ADDED = """

@pytest.mark.claim("The residual stack trains.", page="module/q.md", identity="by construction")
def test_residual_trains(claim):
    pass
"""
WORK = '[works.he2015]\ncite = "He, Zhang, Ren and Sun"\ntitle = "Deep Residual Learning"\n'
FACT = '[facts.depth]\nvalue = {v}\nwork = "he2015"\nwhere = "Table 1"\nabout = "layers"\n'


def _experiments(worst: float, median: float) -> str:
    margin = {"what": "final loss", "op": "<", "threshold": 0.5, "worst": worst, "median": median}
    return json.dumps({"schema": 1, "claims": {"loss_falls": {"margins": [margin], "values": {}}}})


def _commit(root: Path, when: str, files: dict[str, str], message: str) -> str:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(root),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "A",
        "GIT_AUTHOR_EMAIL": "a@example.org",
        "GIT_COMMITTER_NAME": "A",
        "GIT_COMMITTER_EMAIL": "a@example.org",
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
    }
    for args in (["add", "-A"], ["commit", "-q", "-m", message]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["git", "rev-parse", "--short=7", "HEAD"], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


def _history(root: Path) -> list[str]:
    """Three commits over two days: day one states claim a, fact depth = 56 and an experiment record; on day
    two claim a is reworded, the fact corrected to 110, the record moves, claim c and page q are added."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, capture_output=True)
    first = _commit(
        root,
        "2026-01-05T10:00:00+00:00",
        {
            "tests/topic/test_demo.py": TEST.format(a="The loss falls below 0.5 in every seed.", more=""),
            "facts/facts.toml": WORK + FACT.format(v=56),
            "results/experiments-cpu.json": _experiments(0.31, 0.25),
            "docs/module/p.md": "# Page P\n",
        },
        "first",
    )
    second = _commit(
        root,
        "2026-01-07T09:00:00+00:00",
        {
            "tests/topic/test_demo.py": TEST.format(a="The loss falls below 0.4 in every seed.", more=ADDED),
            "facts/facts.toml": WORK + FACT.format(v=110),
            "docs/module/q.md": "# Page Q\n",
        },
        "second",
    )
    third = _commit(
        root, "2026-01-07T15:00:00+00:00", {"results/experiments-cpu.json": _experiments(0.35, 0.25)}, "third"
    )
    return [first, second, third]


def test_each_day_says_exactly_what_changed_newest_first(tmp_path):
    first, second, third = _history(tmp_path)

    page = changes.changes_markdown(tmp_path)

    assert page == "\n".join(
        [
            "## 7 January 2026 {#2026-01-07}",
            "",
            f"2 commits (<code>{second}</code> to <code>{third}</code>): 2 corrections, 1 claim added, "
            "1 experiment record moved, 1 page added or removed.",
            "",
            '???+ warning "Corrections: 2"',
            "",
            "    - **Claim reworded** · [Page P](module/p.md): The loss falls below "
            '<del class="changed">0.5</del> <ins class="changed">0.4</ins> in every seed. '
            "· <code>loss_falls</code>",
            "    - **Fact corrected** · He, Zhang, Ren and Sun, *Deep Residual Learning*: <code>depth</code> 56 → 110",
            "",
            '???+ note "Claims added: 1"',
            "",
            "    - The residual stack trains. · [Page Q](module/q.md)",
            "",
            '???+ note "Experiment records whose asserted values moved: 1"',
            "",
            "    - <code>loss_falls</code>: final loss (&lt; 0.5): worst 0.31 → 0.35",
            "",
            '???+ note "Pages added or removed: 1"',
            "",
            "    - added [Page Q](module/q.md)",
            "",
            "## 5 January 2026 {#2026-01-05}",
            "",
            f"1 commit (<code>{first}</code>): 1 claim added, 1 sourced fact added, removed or re-sourced, "
            "1 page added or removed.",
            "",
            '???+ note "Claims added: 1"',
            "",
            "    - The loss falls below 0.5 in every seed. · [Page P](module/p.md)",
            "",
            '???+ note "Sourced facts added, removed or re-sourced: 1"',
            "",
            "    - added <code>depth</code> = 56 (He, Zhang, Ren and Sun, *Deep Residual Learning*)",
            "",
            '???+ note "Pages added or removed: 1"',
            "",
            "    - added [Page P](module/p.md)",
            "",
        ]
    )


def test_a_claim_in_the_ledger_links_to_its_row_and_pages_link_relative_to_the_page(tmp_path):
    _history(tmp_path)

    page = changes.changes_markdown(tmp_path, link=lambda p: "../" + p, known_claims={"loss_falls"})

    assert "· [<code>loss_falls</code>](../claims.md#claim-loss-falls)" in page
    assert "[Page P](../module/p.md)" in page


def test_a_second_build_reads_its_parses_from_the_cache(tmp_path, monkeypatch):
    _history(tmp_path)
    cold = changes.changes_markdown(tmp_path)
    assert (tmp_path / "build" / "history" / "parsed.json").is_file()

    def no_reading(root, shas):
        assert not shas, f"read {len(shas)} blobs again"
        return {}

    monkeypatch.setattr(history, "_read_blobs", no_reading)
    assert changes.changes_markdown(tmp_path) == cold


def test_a_checkout_without_git_history_says_so_in_one_sentence(tmp_path):
    (tmp_path / "docs").mkdir()

    assert changes.changes_markdown(tmp_path) == changes.UNAVAILABLE + "\n"


def test_a_shallow_clone_says_so_too(tmp_path):
    _history(tmp_path / "full")
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", (tmp_path / "full").as_uri(), str(shallow)],
        check=True,
        capture_output=True,
    )

    assert changes.changes_markdown(shallow) == changes.UNAVAILABLE + "\n"


def test_a_copy_unpacked_inside_another_repository_does_not_report_that_history(tmp_path):
    _history(tmp_path)
    inner = tmp_path / "unpacked"
    (inner / "docs").mkdir(parents=True)

    assert changes.changes_markdown(inner) == changes.UNAVAILABLE + "\n"
