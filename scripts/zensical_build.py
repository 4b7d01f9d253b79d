"""Build the rendered site (build/rendered/: `nox -s render`, `nox -s docs`) with Zensical, then compare it with the
MkDocs build in site/ page by page (sitekit/site_compare.py). `nox -s zensical` runs it with the site's Python
and a Zensical installed in an environment of its own; it exits non-zero, naming each page, when the sites
differ. Zensical's pages then go through the pipeline's HTML stage (sitekit/html_stage.py: listing links,
KaTeX, the Content-Security-Policy), as MkDocs' pages do through the hook.

    python scripts/zensical_build.py --zensical PATH [--site site] [--out build/zensical]

Zensical reads mkdocs.yml but runs no hooks or plugins: the config it gets is mkdocs.yml with the hook and the
plugins removed and docs_dir pointed at the rendered pages. Every page is ported: the one notebook page (the
worked solution) is rendered by the pipeline itself (sitekit/notebook_page.py), not by a plugin.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sitekit import csp, html_stage, mathrender, site_compare, site_render  # noqa: E402  (after the path)

RENDERED = ROOT / "build" / "rendered"


# Overrides that are copies of a Material partial with one change: Zensical's theme has its own version of
# the partial (its search box is laid out differently), so the copy would break its header.
MATERIAL_COPIES = ("partials/search.html",)


def _overrides(source: Path) -> Path:
    target = ROOT / "build" / "zensical-overrides"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(
        source,
        target,
        ignore=lambda d, names: [
            n for n in names if f"{Path(d).relative_to(source).as_posix()}/{n}".lstrip("./") in MATERIAL_COPIES
        ],
    )
    return target


def config(out: Path) -> Path:
    """mkdocs.yml for Zensical: no hook, no plugins, the rendered pages as docs_dir (written next to them)."""
    cfg = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=site_render.ConfigLoader)
    for key in ("hooks", "plugins", "watch", "validation"):
        cfg.pop(key, None)
    path = ROOT / "build" / "zensical.yml"  # Zensical wants docs_dir and site_dir relative to the config
    cfg["docs_dir"] = os.path.relpath(RENDERED, path.parent)
    cfg["site_dir"] = os.path.relpath(out, path.parent)
    theme = cfg.get("theme", {})
    if theme.get("custom_dir"):  # the overrides, less the copies of Material's own partials (MATERIAL_COPIES)
        theme["custom_dir"] = os.path.relpath(_overrides(ROOT / theme["custom_dir"]), path.parent)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def html_stage_all(out: Path) -> list[str]:
    """Every page Zensical wrote, through the pipeline's HTML stage (as the hook does for MkDocs)."""
    katex, problems = mathrender.KaTeX(), []
    try:
        for rel in [*site_compare.pages(out), "404.html"]:
            path = out / rel
            if not path.is_file():
                continue
            url = rel.removesuffix("index.html")  # the page's address, as MkDocs gives it (use_directory_urls)
            uri = (url.rstrip("/") or "index") + ".md"
            html = html_stage.content(path.read_text(encoding="utf-8"), uri, url, lambda u: _file(out, u))
            html, rejected = html_stage.finish(html, katex)
            problems += [f"{rel}: {p}" for p in rejected]
            path.write_text(csp.protect(html, rel), encoding="utf-8")
    finally:
        katex.close()
    return problems


def _file(out: Path, uri: str) -> bytes | None:
    path = out / uri
    return path.read_bytes() if path.is_file() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--zensical", default="zensical", help="the zensical command (its own environment)")
    parser.add_argument("--site", default="site", help="the MkDocs build to compare with (default: site)")
    parser.add_argument("--out", default="build/zensical", help="where Zensical writes its site")
    args = parser.parse_args()
    site, out = ROOT / args.site, ROOT / args.out
    if not (RENDERED / "index.md").is_file() or not (site / "index.html").is_file():
        print(
            f"{RENDERED.relative_to(ROOT)}/ or {args.site}/ is missing: build the site first (`nox -s docs`), "
            "which writes both",
            file=sys.stderr,
        )
        return 2
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run([args.zensical, "build", "-f", str(config(out))], cwd=ROOT, check=False)
    print(f"zensical: built in {time.perf_counter() - start:.1f} s -> {out.relative_to(ROOT)}/")
    if done.returncode != 0:
        return done.returncode
    rejected = html_stage_all(out)
    for problem in rejected:
        print(f"  KaTeX {problem}")
    problems, compared = site_compare.compare(site, out)
    print(f"zensical: {compared} pages compared with {args.site}/ (visible text, headings, figures, receipts)")
    for problem in problems:
        print(f"  DIFFERS {problem}")
    return 1 if problems or rejected else 0


if __name__ == "__main__":
    raise SystemExit(main())
