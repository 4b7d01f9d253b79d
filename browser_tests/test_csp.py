"""Every page sends a Content-Security-Policy (sitekit/csp.py) that the browser enforces: a script from another
host, or an inline script the build did not write, is refused. A normal visit raises no violation (a refused
resource logs a console error, which test_pages.py fails on)."""

from __future__ import annotations

from typing import Any

from browser_tests.harness import SITE, site_pages, soup

FOREIGN = "https://cdn.example.com/tracker.js"
LISTEN = """() => {
  window.__violations = [];
  document.addEventListener("securitypolicyviolation", (e) =>
    window.__violations.push({blocked: e.blockedURI, directive: e.effectiveDirective}));
}"""
INJECT_FOREIGN = """(url) => new Promise((done) => {
  const s = document.createElement("script");
  s.src = url;
  s.onload = () => done("loaded");
  s.onerror = () => done("refused");
  document.head.appendChild(s);
})"""
INJECT_INLINE = """() => {
  window.__ran = false;
  const s = document.createElement("script");
  s.textContent = "window.__ran = true";
  document.head.appendChild(s);
  return window.__ran;
}"""


def test_every_built_page_carries_the_policy_before_any_script() -> None:
    for path in site_pages():
        head = soup(path).head
        first = head.find(True)
        assert first is not None and first.get("http-equiv") == "Content-Security-Policy", (
            f"/{path}: the Content-Security-Policy must be the first element of <head> (sitekit/csp.py)"
        )
        policy = first["content"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy, f"/{path}: {policy}"
        assert "http:" not in policy and "https:" not in policy and "*" not in policy, f"/{path}: {policy}"


def test_the_404_page_carries_the_policy_too() -> None:
    assert "Content-Security-Policy" in (SITE / "404.html").read_text(encoding="utf-8")


def test_the_browser_refuses_a_foreign_script_and_an_unhashed_inline_one(new_context: Any, base_url: str) -> None:
    ctx = new_context()
    page = ctx.new_page()
    page.goto(base_url + "index.html", wait_until="load")
    page.evaluate(LISTEN)
    assert page.evaluate(INJECT_FOREIGN, FOREIGN) == "refused"
    assert page.evaluate(INJECT_INLINE) is False, "an injected inline script ran: its hash is not in the policy"
    page.wait_for_timeout(100)  # violation events are queued as tasks
    violations = page.evaluate("window.__violations")
    directives = {v["directive"] for v in violations}
    assert any(v["blocked"].startswith("https://cdn.example.com") for v in violations), violations
    assert directives <= {"script-src-elem", "script-src"}, violations
    # The policy, not the test's network guard, refused it: the guard never saw the request.
    assert FOREIGN not in ctx.guard.foreign, "the request left the page: the policy did not stop it"
    ctx.guard.foreign.clear()


def test_without_the_policy_the_same_injection_reaches_the_network(new_context: Any, base_url: str) -> None:
    """The counterfactual: with CSP bypassed, the injected script's request is made (and the guard stops it)."""
    ctx = new_context(bypass_csp=True)
    page = ctx.new_page()
    page.goto(base_url + "index.html", wait_until="load")
    assert page.evaluate(INJECT_FOREIGN, FOREIGN) == "refused"  # aborted by the guard: the network is closed
    assert FOREIGN in ctx.guard.foreign, "without the policy the request should have been made"
    assert page.evaluate(INJECT_INLINE) is True
    ctx.guard.foreign.clear()  # expected here: new_context's teardown fails on requests to other hosts
