"""Receipts: a measured number opens its record on hover, click, tap or Enter (not on focus alone); the ledger
filters and links back; error and console blocks wrap instead of hiding their ends."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from browser_tests.harness import ROOT, SITE, site_pages, soup
from sitekit.render import typeset
from sitekit.typesetting import PLAIN, POWER


def flat(text: str) -> str:
    """Text as a reader's browser gives it back where the page sets 10⁻²⁹ as 10<sup>−29</sup>."""
    return POWER.sub(lambda m: "10" + m["exp"].translate(PLAIN), text)


POP = "#rcpt-pop"


@cache
def records() -> dict[str, Any]:
    """The CPU records the site was built from."""
    path = ROOT / "results" / "cpu.json"
    if not path.is_file():
        pytest.fail("results/cpu.json is missing: the receipts are checked against the records the site shows")
    return json.loads(path.read_text(encoding="utf-8"))["claims"]


@cache
def receipt_page() -> str:
    """A page whose first numeric receipt comes from a claim recorded over several seeds."""
    for path in site_pages():
        for a in soup(path).select("a.rcpt[data-key]"):
            c = records().get(a["data-claim"], {})
            if c.get("values", {}).get("seeds"):
                return path
    pytest.fail("no page shows a number from a claim recorded over seeds")


def _first_seeded(page: Any) -> Any:
    receipts = page.locator("a.rcpt[data-key]")
    for i in range(receipts.count()):
        a = receipts.nth(i)
        if records()[a.get_attribute("data-claim")]["values"].get("seeds"):
            return a
    raise AssertionError("no receipt of a seeded claim")


def _open(new_context: Any, base_url: str, path: str, width: int | None = None, **options: Any) -> Any:
    page = new_context(**options).new_page()
    if width is not None:
        page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url + path, wait_until="load")
    page.errors = errors
    return page


KIND_WORDS = {"measured": "measured finding", "exact": "exact finding", "identity": "checked identity"}


def _check_popover_matches_record(page: Any, a: Any) -> None:
    """The popover leads with what the number is and its value, then the claim's title and kind; its closed
    Details fold holds the record, which equals the record in results/cpu.json."""
    c = records()[a.get_attribute("data-claim")]
    data = json.loads(page.locator("#receipt-data").text_content())[a.get_attribute("data-claim")]
    key = a.get_attribute("data-key")
    pop = page.locator(POP)
    assert pop.is_visible()
    # The first view: the headline (what this number is: its value), the claim's title and kind, no build words.
    head = pop.locator(".rcpt-head").inner_text().strip()
    assert head.endswith(": " + a.inner_text().strip()), head
    label = (data.get("what") or {}).get(key) or data.get("title")
    if label:
        assert head.startswith(flat(label).replace("`", "")), head
    kind = "identity" if c.get("identity") else "exact" if c.get("exact") else "measured"
    badge = pop.locator(".rcpt-badge")
    assert badge.inner_text().strip() == KIND_WORDS[kind] and f"rcpt-badge--{kind}" in badge.get_attribute("class")
    assert pop.locator("details.rcpt-details").evaluate("d => !d.open"), "Details is open at first"
    first = pop.inner_text()
    machine = any(ch in key for ch in "._") and key not in (label or "")  # a record's key, not a word
    assert not (machine and key in first) and "::" not in first and "torch" not in first, first
    how = pop.locator("a", has_text="What is this?").evaluate("e => e.href")
    assert how.endswith("/how-we-check/"), how
    # The record, under Details.
    pop.locator("details.rcpt-details").evaluate("d => { d.open = true; }")
    assert pop.locator(".rcpt-statement").inner_text().strip() == flat(typeset(c["statement"])).replace("`", "")
    text = pop.inner_text()
    assert f"torch {c['torch']}" in text and c["recorded_at"][:10] in text
    for because in c["counterfactuals"]:
        assert (because if isinstance(because, str) else because["because"]) in text
    if c["values"].get("seeds"):
        assert f"{c['values']['seeds']} seeds" in text
    # How the check came out: exactly, or the thinnest margin (sitekit.margins), in the words the record gives.
    if c.get("identity"):
        assert "checked identity" in text and c["identity"] in text.replace("`", ""), text
        assert "not evidence" in text
    elif c.get("exact"):
        assert f"checked exactly: {c['exact']}" in text.replace("`", "")
    else:
        assert "Result" in text and ("passes" in text or "clears" in text), text
    # A value the check asserted says so; any other is a reading the run recorded (and says so).
    asserted = key in (c.get("asserted_keys") or [])
    assert ("asserted by the check" if asserted else "recorded by the run, not asserted") in text, text
    assert key in text and a.inner_text() in text
    node, _, function = c["test"].partition("::")
    assert node in text and function in text, text
    value = c["values"]
    for part in key.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    assert data["values"][key] == value
    ledger = pop.locator("a", has_text="Ledger row").evaluate("e => e.href")
    assert ledger == a.evaluate("e => e.href") and ledger.endswith("/claims/#claim-" + c["id"].replace("_", "-"))
    assert pop.locator("a", has_text="Listing").count() == (1 if data["listing"] else 0)
    pop.locator("details.rcpt-details").evaluate("d => { d.open = false; }")


def test_hover_shows_the_record_and_leaving_hides_it(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, receipt_page())
    a = _first_seeded(page)
    a.scroll_into_view_if_needed()
    a.hover()
    page.wait_for_selector(POP, state="visible")
    _check_popover_matches_record(page, a)
    assert a.get_attribute("aria-expanded") == "true"
    page.mouse.move(0, 0)
    page.wait_for_selector(POP, state="detached")
    assert a.get_attribute("aria-expanded") == "false"
    assert not page.errors


def test_focus_alone_opens_nothing_enter_opens_tab_enters_and_escape_closes(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, receipt_page())
    a = _first_seeded(page)
    a.focus()
    page.wait_for_timeout(300)  # longer than a hover's delay
    assert page.locator(POP).count() == 0, "focus alone opened the popover: each receipt would cost extra Tab stops"
    page.keyboard.press("Enter")
    page.wait_for_selector(POP, state="visible")
    assert page.locator(POP).get_attribute("role") == "dialog"
    _check_popover_matches_record(page, a)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#rcpt-pop') !== null"), "Tab did not enter the popover"
    page.keyboard.press("Escape")
    page.wait_for_selector(POP, state="detached")
    assert page.evaluate("document.activeElement.classList.contains('rcpt')"), "Escape did not return focus"
    page.keyboard.press("Enter")
    page.wait_for_selector(POP, state="visible")
    page.keyboard.press("Enter")
    page.wait_for_selector(POP, state="detached")  # Enter again closes it
    assert not page.errors


def test_tab_from_the_popovers_last_link_goes_on_after_the_receipt(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, receipt_page())
    a = _first_seeded(page)
    a.focus()
    page.keyboard.press("Tab")
    after = page.evaluate("document.activeElement.outerHTML")  # where Tab goes with no popover open
    a.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(POP, state="visible")
    links = page.locator(POP).locator("a[href], button, summary").filter(visible=True).count()
    for _ in range(links + 1):  # into the popover, through its links, and out
        page.keyboard.press("Tab")
    assert page.locator(POP).count() == 0, "Tab out of the popover's last link left it open"
    assert page.evaluate("document.activeElement.outerHTML") == after, "Tab out of the popover skipped ahead"
    assert not page.errors


def test_escape_closes_a_hover_popover_without_pinning_it(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, receipt_page())
    a = _first_seeded(page)
    a.scroll_into_view_if_needed()
    a.hover()
    page.wait_for_selector(POP, state="visible")
    page.keyboard.press("Escape")
    page.wait_for_selector(POP, state="detached")
    page.wait_for_timeout(300)
    assert page.locator(POP).count() == 0, "Escape closed a hover popover and then opened it again, pinned"
    assert not page.errors


def test_tap_on_a_phone_opens_a_sheet_that_fits_the_screen(new_context: Any, base_url: str) -> None:
    """At 390 x 844 a tap opens a bottom sheet, at most 40 % of the screen even with its Details open, that
    leads with the headline, keeps the receipt in view above it, and that Back to top never covers."""
    page = _open(
        new_context,
        base_url,
        receipt_page(),
        width=390,
        has_touch=True,
        is_mobile=True,
    )
    a = _first_seeded(page)
    a.scroll_into_view_if_needed()
    page.mouse.wheel(0, 400)  # down, then up a little: the Back to top pill shows
    page.wait_for_timeout(200)
    page.mouse.wheel(0, -200)
    page.wait_for_timeout(300)
    a.scroll_into_view_if_needed()
    a.tap()
    page.wait_for_selector(POP, state="visible")
    pop = page.locator(POP)
    assert "rcpt-sheet" in pop.get_attribute("class")
    assert pop.evaluate("p => p.querySelector('.rcpt-body').firstElementChild.classList.contains('rcpt-head')")
    _check_popover_matches_record(page, a)
    for state in ("closed", "open"):
        box = pop.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (state, box)
        assert box["height"] <= 0.4 * 844 + 0.5, (state, box)
        assert box["y"] + box["height"] <= 844 + 0.5, (state, box)
        top = page.locator(".md-top")
        if top.count() and top.is_visible():
            t = top.bounding_box()
            assert t["y"] + t["height"] <= box["y"] or t["y"] >= box["y"] + box["height"], (state, t, box)
        r = a.bounding_box()
        assert r["y"] >= 0 and r["y"] + r["height"] <= box["y"], f"the sheet covers its receipt ({state})"
        pop.locator("summary").tap()
    assert page.url.split("#")[0] == base_url + receipt_page(), "the tap followed the link instead of opening"
    pop.locator(".rcpt-close").tap()
    page.wait_for_selector(POP, state="detached")
    assert not page.errors


def test_escape_closes_a_sheet_and_focus_returns_to_the_receipt(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, receipt_page(), width=390)
    a = _first_seeded(page)
    a.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(POP, state="visible")
    assert "rcpt-sheet" in page.locator(POP).get_attribute("class")
    assert page.evaluate("getComputedStyle(document.querySelector('.md-top')).visibility") == "hidden"
    page.keyboard.press("Tab")
    page.keyboard.press("Escape")
    page.wait_for_selector(POP, state="detached")
    assert page.evaluate("document.activeElement.classList.contains('rcpt')"), "Escape did not return focus"
    assert page.evaluate("getComputedStyle(document.querySelector('.md-top')).visibility") == "visible"
    assert not page.errors


def test_a_marker_leads_with_its_claim(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, receipt_page())
    mark = page.locator("a.rcpt-mark:visible").first
    mark.scroll_into_view_if_needed()
    mark.click()
    page.wait_for_selector(POP, state="visible")
    data = json.loads(page.locator("#receipt-data").text_content())[mark.get_attribute("data-claim")]
    head = page.locator(POP).locator(".rcpt-head").inner_text().strip()
    if data.get("title"):
        assert head == flat(data["title"]).replace("`", "")
    else:
        assert flat(data["statement"]).startswith(head.rstrip("…")), head
    assert not page.errors


def test_without_javascript_a_receipt_is_a_link_to_its_ledger_row(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, receipt_page(), java_script_enabled=False)
    a = page.locator("a.rcpt[data-key]").first
    cid = a.get_attribute("data-claim")
    a.click()
    page.wait_for_url("**/claims/#claim-*")
    assert page.url.endswith("#claim-" + cid.replace("_", "-"))
    assert page.locator(f"#claim-{cid.replace('_', '-')}").is_visible()


def test_every_popover_record_on_the_site_equals_the_results_file() -> None:
    checked = 0
    for path in site_pages():
        blob = soup(path).select_one("#receipt-data")
        if blob is None:
            continue
        for cid, data in json.loads(blob.string).items():
            c = records()[cid]
            assert data["statement"] == typeset(c["statement"]), (path, cid)
            assert data["runs"][0]["torch"] == c["torch"] and data["runs"][0]["date"] == c["recorded_at"][:10]
            assert data["test"] == c["test"] and data["snippet"] == c["snippet"]
            if data["listing"] and not data["listing"].startswith("#"):  # a published copy of the file
                assert (SITE / path / data["listing"]).resolve().is_file(), (path, data["listing"])
            elif data["listing"]:
                assert soup(path).select_one(data["listing"]) is not None, (path, data["listing"])
            for key, value in data["values"].items():
                recorded = c["values"]
                for part in key.split("."):
                    recorded = recorded[int(part)] if isinstance(recorded, list) else recorded[part]
                assert value == recorded, (path, cid, key)
            checked += 1
    assert checked >= len(records()) // 2, f"only {checked} receipts' records were checked"


def test_the_ledger_filter_narrows_rows_and_hides_empty_pages(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, "claims/")
    rows = page.locator(".ledger-table tbody tr")
    total = rows.count()
    assert total == len(records())
    box = page.locator("#ledger-filter")
    assert box.is_visible()
    word = next(iter(records()))  # a claim id matches its own row
    box.fill(word.replace("_", "-"))
    visible = page.locator(".ledger-table tbody tr:not([hidden])")
    assert 1 <= visible.count() < total
    assert page.locator(f"#claim-{word.replace('_', '-')}").is_visible()
    hidden_pages = page.locator("details.ledger-page[hidden]").count()
    assert hidden_pages >= 1
    assert "of" in page.locator("#ledger-count").inner_text()
    box.fill("")
    assert page.locator(".ledger-table tbody tr:not([hidden])").count() == total
    assert not page.errors


def test_the_ledger_hides_its_filter_without_javascript(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, "claims/", java_script_enabled=False)
    assert not page.locator("#ledger-filter").is_visible()
    assert page.locator(".ledger-table tbody tr").count() == len(records())


def test_ledger_rows_link_back_to_the_receipt_in_context(new_context: Any, base_url: str) -> None:
    page = _open(new_context, base_url, "claims/")
    back = page.locator(".ledger-table a.back").first
    href = back.get_attribute("href")
    back.click()
    page.wait_for_url("**#use-*")
    target = page.locator("#" + href.split("#")[1])
    assert target.count() == 1 and target.is_visible()
    assert target.evaluate("e => e.matches(':target')")
    assert not page.errors


def test_the_targeted_ledger_row_is_highlighted(new_context: Any, base_url: str) -> None:
    cid = next(iter(records())).replace("_", "-")
    page = _open(new_context, base_url, f"claims/#claim-{cid}")
    row = page.locator(f"#claim-{cid}")
    other = page.locator(f".ledger-table tbody tr:not(#claim-{cid})").first
    style = "e => getComputedStyle(e).outlineStyle + getComputedStyle(e).backgroundColor"
    assert row.evaluate(style) != other.evaluate(style)


@pytest.mark.pages_with(".wrap pre")
@pytest.mark.parametrize("width", [390, 1280])
def test_error_and_console_blocks_wrap_and_the_copy_button_covers_no_text(
    new_context: Any, base_url: str, page_path: str, width: int
) -> None:
    page = _open(new_context, base_url, page_path, width=width)
    overflow = page.evaluate(
        """() => [...document.querySelectorAll('.wrap pre > code')]
             .filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent.slice(0, 60))"""
    )
    assert not overflow, f"/{page_path} at {width} px: blocks scroll sideways: {overflow}"
    covered = page.evaluate(
        """() => [...document.querySelectorAll('.wrap pre')].filter(pre => {
             const button = pre.querySelector('.md-clipboard'), code = pre.querySelector('code');
             if (!button || !code) return false;
             const b = button.getBoundingClientRect(), c = code.getBoundingClientRect();
             const pad = parseFloat(getComputedStyle(code).paddingRight);
             return c.right - pad > b.left + 1;   // the text column reaches under the button
           }).length"""
    )
    assert covered == 0, f"/{page_path} at {width} px: the copy button sits over {covered} blocks' text"
    assert not page.errors


def test_every_page_with_numbers_says_what_it_rests_on() -> None:
    for path in site_pages():
        s = soup(path)
        if not s.select("a.rcpt"):
            continue
        facts = s.select_one("article .page-facts")
        assert facts is not None, f"/{path} shows receipts but no line under its title"
        assert "min read" in facts.get_text() and "torch" in facts.get_text(), facts.get_text()
        h1 = s.select_one("article h1")
        if h1 is not None:
            assert h1.find_next_sibling() is facts, f"/{path}: the line is not right under the title"
    parts = [soup(p).select_one("article .page-facts") for p in site_pages() if p.startswith("module/")]
    assert any(f is not None and "Part 3 of 7" in f.get_text() for f in parts)


def test_published_snippet_copies_match_the_repository() -> None:
    copies = sorted((SITE / "src" / "snippets").rglob("*.py"))
    assert copies, "no snippet is published for its listing's title to link to"
    for copy in copies:
        rel = copy.relative_to(SITE / "src")
        assert copy.read_bytes() == (ROOT / rel).read_bytes(), rel
