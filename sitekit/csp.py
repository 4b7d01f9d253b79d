"""The Content-Security-Policy every page sends: scripts, styles, fonts and images from the site itself.

A built page's inline scripts are allowed by their sha256 (so an injected one is not), and nothing may
load from another host, so "the site works offline, nothing comes from elsewhere" is enforced by the
browser, not only tested. Callable without MkDocs: `protect(html)` takes a finished page and returns it
with the policy as the first element of its <head>.
"""

from __future__ import annotations

import base64
import hashlib
import re

SCRIPT = re.compile(r"<script\b(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S | re.I)
HEAD = re.compile(r"<head\b[^>]*>", re.I)
META = '<meta http-equiv="Content-Security-Policy" content="{policy}">'
# What the browser runs as script: no type, or a JavaScript type (a JSON or template block is data).
JS_TYPES = {"", "text/javascript", "application/javascript", "module"}
TYPE = re.compile(r"""\btype\s*=\s*(["']?)(?P<type>[^"'\s>]*)\1""", re.I)

# Styles may be inline (the theme and the figures set style attributes), never from another host.
# Images and fonts may also be data: URLs (the theme's icons); nothing else leaves the site.
BASE = {
    "default-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "worker-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
}


class PolicyError(ValueError):
    """A page the policy cannot be added to."""


def inline_scripts(html: str) -> list[str]:
    """The bodies of the page's inline scripts that a browser would run."""
    out = []
    for m in SCRIPT.finditer(html):
        attrs = m.group("attrs")
        if re.search(r"\bsrc\s*=", attrs, re.I):
            continue
        kind = TYPE.search(attrs)
        if (kind.group("type").lower() if kind else "") in JS_TYPES:
            out.append(m.group("body"))
    return out


def digest(body: str) -> str:
    """A CSP hash source for one inline script: 'sha256-<base64>' of its exact text."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'"


def policy(html: str) -> str:
    """The policy for one page: the base list, with each of its inline scripts allowed by hash."""
    hashes = sorted({digest(body) for body in inline_scripts(html)})
    rules = {**BASE, "script-src": ["'self'", *hashes]}
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in rules.items())


def protect(html: str, where: str = "page") -> str:
    """The page with its policy as the first element of <head> (before any script it governs)."""
    if "Content-Security-Policy" in html:
        raise PolicyError(f"{where}: already carries a Content-Security-Policy; protect() runs once per page")
    head = HEAD.search(html)
    if head is None:
        raise PolicyError(f"{where}: no <head> to put the Content-Security-Policy in (is it a whole HTML page?)")
    meta = META.format(policy=policy(html))
    return html[: head.end()] + meta + html[head.end() :]
