"""Lighter pages: images that load lazily without moving the text, code blocks a keyboard reaches before
the theme's script has set them up, and notebook pages without the CSS that mkdocs-jupyter inlines but
the page never uses.

All work on the HTML MkDocs is about to write; nothing here changes what a reader can see.
"""

from __future__ import annotations

import base64
import posixpath
import re
import struct
from collections.abc import Callable

IMG = re.compile(r"<img\b([^>]*?)\s*/?>", re.S)
ATTR = re.compile(r'([\w:-]+)\s*=\s*"([^"]*)"')
SVG_SIZE = re.compile(r"<svg\b[^>]*?\bwidth=\"([\d.]+)(pt|px)?\"[^>]*?\bheight=\"([\d.]+)(pt|px)?\"", re.S)
PX_PER = {"pt": 4 / 3, "px": 1.0, None: 1.0}


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height in CSS pixels of a PNG or an SVG with absolute width/height; None otherwise."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    m = SVG_SIZE.search(data[:4000].decode("utf-8", "replace"))
    if m:
        return round(float(m.group(1)) * PX_PER[m.group(2)]), round(float(m.group(3)) * PX_PER[m.group(4)])
    return None


def lazy_images(page_html: str, page_url: str, read: Callable[[str], bytes | None]) -> str:
    """Every <img> gets loading="lazy", decoding="async" and, where its file tells, width and height.

    `page_url` is the page's URL under the site root ("module/part/"); `read(path)` returns the bytes of
    a site file or None. With width and height set the browser reserves the figure's box before the
    image arrives, so nothing below it moves.
    """

    def fix(m: re.Match[str]) -> str:
        attrs = dict(ATTR.findall(m.group(1)))
        extra = {"loading": "lazy", "decoding": "async"}
        src = attrs.get("src", "")
        if "width" not in attrs and "height" not in attrs:
            if src.startswith("data:image/png;base64,"):
                data: bytes | None = base64.b64decode(src.split(",", 1)[1][:64] + "==")
            elif src and not re.match(r"[a-z]+:|/", src):
                data = read(posixpath.normpath(posixpath.join(posixpath.dirname(page_url + "x"), src)))
            else:
                data = None
            size = image_size(data) if data else None
            if size:
                extra.update(width=str(size[0]), height=str(size[1]))
        added = "".join(f' {k}="{v}"' for k, v in extra.items() if k not in attrs)
        return f"<img{m.group(1)}{added} />"

    return IMG.sub(fix, page_html)


# A code block as Pygments and pymdownx write it: <pre ...><span></span><code ...>; no tabindex yet.
CODE_BLOCK = re.compile(r"(<pre\b[^>]*>(?:<span></span>)?<code)(?=[\s>])(?![^>]*\btabindex=)")


def focusable_code(page_html: str) -> str:
    """Every code block (`pre > code`) gets tabindex="0", so that a reader can scroll a wide one with the
    keyboard. The theme sets it itself, but with content.lazy only once the block has come on screen (it
    then takes it away from a block that does not overflow); until then the build's attribute stands.
    """
    return CODE_BLOCK.sub(r'\1 tabindex="0"', page_html)


# --- Notebook pages -----------------------------------------------------------------------------------

STYLE = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.S)
CLASS_ATTR = re.compile(r'\bclass="([^"]*)"')
# Classes the theme's JavaScript adds after load: a rule naming one of them is always kept.
ADDED_BY_SCRIPT = re.compile(r"md-[\w-]*|js|no-js|focus-visible")
ROOT_INSIDE = re.compile(r"[\s>+~](?::root|html|body)(?![\w-])")
COMMENT = re.compile(r"/\*.*?\*/", re.S)


def _blocks(css: str) -> list[tuple[str, str | None]]:
    """Top-level items of a style sheet: (prelude, body) for `x { body }`, (statement, None) for `@x;`."""
    items: list[tuple[str, str | None]] = []
    i, start, depth, body_start = 0, 0, 0, 0
    while i < len(css):
        c = css[i]
        if c in "\"'":
            i = css.index(c, i + 1) if c in css[i + 1 :] else len(css)
        elif c == "{":
            depth += 1
            if depth == 1:
                body_start = i
        elif c == "}":
            depth -= 1
            if depth == 0:
                items.append((css[start:body_start].strip(), css[body_start + 1 : i]))
                start = i + 1
        elif c == ";" and depth == 0:
            items.append((css[start : i + 1].strip(), None))
            start = i + 1
        i += 1
    return items


def _can_match(selector: str, classes: set[str]) -> bool:
    """False only when `selector` needs a class that no element of the page has, or puts the root
    element (`:root`, html, body) inside another element (the notebook CSS scopes `:root` that way)."""
    if ROOT_INSIDE.search(selector.strip()):
        return False
    needed = re.sub(r"\((?:[^()]|\([^()]*\))*\)", "", selector)  # :not(.x), :is(.a, .b): not required
    needed = re.sub(r"\[[^\]]*\]", "", needed)  # [class~=x] and friends: keep it simple, not required
    return all(c in classes or ADDED_BY_SCRIPT.fullmatch(c) for c in re.findall(r"\.(-?[_a-zA-Z][\w-]*)", needed))


def prune_css(css: str, classes: set[str]) -> str:
    """The style sheet without the rules whose every selector names a class missing from the page."""
    out = []
    for prelude, body in _blocks(COMMENT.sub("", css)):
        if body is None:
            out.append(prelude)
        elif prelude.startswith("@media") or prelude.startswith("@supports"):
            inner = prune_css(body, classes)
            if inner:
                out.append(f"{prelude}{{{inner}}}")
        elif prelude.startswith("@") or any(_can_match(s, classes) for s in prelude.split(",")):
            out.append(f"{prelude}{{{body}}}")
    return "".join(out)


def slim_notebook(page_html: str, classes_elsewhere: set[str] = frozenset()) -> str:
    """The notebook page's HTML with its inline style sheets cut down to the rules its elements use."""
    classes = set(classes_elsewhere)
    for value in CLASS_ATTR.findall(STYLE.sub("", page_html)):
        classes.update(value.split())

    def prune(m: re.Match[str]) -> str:
        css = m.group(2).strip()
        if css.startswith("["):  # mkdocs-jupyter 0.26 also prints a Python list of its Pygments CSS
            return ""
        pruned = prune_css(css, classes)
        return f"{m.group(1)}{pruned}{m.group(3)}" if pruned else ""

    return STYLE.sub(prune, page_html)
