"""The site as rendered Markdown: every page after the pipeline (checks, macros, typesetting, receipts), in a
folder that any generator reading plain Markdown + pymdown-extensions can build, with nothing of sitekit's.

sitekit/site_render.py writes it (`nox -s render`; every build, before MkDocs reads it as its docs_dir); `nox -s
zensical` builds it with Zensical as well and compares the two sites page by page (sitekit/site_compare.py). A
file is rewritten only when its bytes change, so a build that changed nothing sets off no rebuild.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from sitekit.claims import ROOT

DIR = ROOT / "build" / "rendered"  # git ignores build/


def write(uri: str, data: bytes | str, folder: Path = DIR) -> Path:
    """Write one file of the rendered site (docs path `uri`), atomically, only when it changed."""
    blob = data.encode("utf-8") if isinstance(data, str) else data
    path = folder / uri
    if path.is_file() and path.read_bytes() == blob:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_bytes(blob)
    os.replace(tmp, path)
    return path


def page(uri: str, markdown: str, receipts: dict | None = None, folder: Path = DIR) -> Path:
    """A rendered page; its receipts' popover data goes in as a raw HTML block at its end (receipts.js reads it)."""
    if receipts:
        blob = json.dumps(receipts, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
        markdown = markdown.rstrip("\n") + f'\n\n<script type="application/json" id="receipt-data">{blob}</script>\n'
    return write(uri, markdown, folder)


def copy_static(docs: Path = ROOT / "docs", folder: Path = DIR) -> list[str]:
    """Everything under docs/ that is not a page (styles, scripts, fonts, images, downloads): copied as it is. Returns
    their docs paths."""
    done = []
    for source in sorted(docs.rglob("*")):
        if source.is_file() and source.suffix != ".md":
            target = folder / source.relative_to(docs)
            if not target.is_file() or target.read_bytes() != source.read_bytes():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
            done.append(source.relative_to(docs).as_posix())
    return done
