"""The browser suite's scheduler gives each page's tests to one worker (see conftest.pytest_xdist_make_scheduler)."""

from __future__ import annotations

import pytest

from browser_tests.harness import page_id, page_scope, site_pages


def test_every_page_test_is_grouped_by_its_own_page(request: pytest.FixtureRequest) -> None:
    ids = [page_id(p) for p in site_pages()]
    page_tests = [i for i in request.session.items if hasattr(i, "callspec") and "page_path" in i.callspec.params]
    assert page_tests, "no test takes page_path in this run"
    wrong = [
        (item.nodeid, page_scope(item.nodeid, ids))
        for item in page_tests
        if page_scope(item.nodeid, ids) != "page:" + page_id(item.callspec.params["page_path"])
    ]
    assert not wrong, f"tests the scheduler would put with the wrong page: {wrong[:5]}"
    others = [item.nodeid for item in request.session.items if item not in page_tests]
    assert all(page_scope(n, ids) is None for n in others), "a test without a page would be tied to one"


def test_a_page_is_told_apart_from_a_page_whose_id_it_begins() -> None:
    ids = ["module", "module-degradation", "costs"]
    assert page_scope("t.py::test_x[module-degradation-light]", ids) == "page:module-degradation"
    assert page_scope("t.py::test_x[module-light]", ids) == "page:module"
    assert page_scope("t.py::test_x[module]", ids) == "page:module"
    assert page_scope("t.py::test_x[390]", ids) is None
    assert page_scope("t.py::test_plain", ids) is None
