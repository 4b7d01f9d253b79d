"""sitekit/csp.py: the policy a page sends allows its own inline scripts by hash and nothing from another host
(browser_tests/test_csp.py shows a browser enforcing it)."""

import pytest

from sitekit import csp

PAGE = '<html><head><title>t</title><script>var a = 1</script><script type="application/json">{}</script>'
PAGE += '<script src="x.js"></script></head><body><script type="module">go()</script></body></html>'


def test_the_policy_is_the_first_element_of_head():
    out = csp.protect(PAGE, "example")
    assert out.index("Content-Security-Policy") < out.index("<title>")


def test_each_inline_script_is_allowed_by_its_exact_hash_and_data_blocks_are_not_scripts():
    out = csp.protect(PAGE, "example")
    assert csp.digest("var a = 1") in out and csp.digest("go()") in out
    assert csp.digest("{}") not in out  # application/json is data: the browser never runs it
    assert csp.digest("var a = 2") not in out  # a changed script is refused


def test_nothing_may_come_from_another_host():
    policy = csp.policy(PAGE)
    assert "default-src 'self'" in policy and "object-src 'none'" in policy
    assert not any(s in policy for s in ("http:", "https:", "*", "'unsafe-eval'"))


def test_a_page_without_head_or_already_protected_is_refused_with_its_name():
    with pytest.raises(csp.PolicyError, match=r"docs/x\.md: no <head>"):
        csp.protect("<p>fragment</p>", "docs/x.md")
    with pytest.raises(csp.PolicyError, match="already carries"):
        csp.protect(csp.protect(PAGE), "docs/y.md")
