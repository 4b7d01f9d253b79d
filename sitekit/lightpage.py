"""Lighter pages: images that load lazily without moving the text, and code blocks a keyboard reaches before
the theme's script has set them up.

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
