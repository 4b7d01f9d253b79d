"""Build-time page work: math typeset by KaTeX under Node, figures that reserve their box, slim notebooks."""

from __future__ import annotations

import base64
import struct
import zlib

import markdown
import pytest

from sitekit import lightpage, mathrender


@pytest.fixture(scope="module")
def katex():
    k = mathrender.KaTeX()
    yield k
    k.close()


def arithmatex(source: str) -> str:
    return markdown.markdown(
        source, extensions=["pymdownx.arithmatex"], extension_configs={"pymdownx.arithmatex": {"generic": True}}
    )


def test_every_formula_becomes_katex_html_with_no_tex_left(katex):
    page = arithmatex("Inline \\(a < b\\) and $x^2$.\n\n\\[\n\\frac{\\partial y}{\\partial x} = I + J_F\n\\]\n")
    out, problems = mathrender.typeset(page, katex)
    assert problems == []
    assert out.count('class="katex"') == 3 and out.count('class="katex-display"') == 1
    assert "\\(" not in out and "\\[" not in out
    assert '<annotation encoding="application/x-tex">a &lt; b</annotation>' in out  # TeX unescaped, then KaTeX's


def test_a_caption_formula_read_twice_is_typeset_once(katex):
    """A figure in a content tab: its caption's formula, already wrapped, passes through arithmatex again."""
    page = arithmatex('the line <span class="arithmatex">\\(\\rho^2\\)</span> in a caption')
    assert page.count('class="arithmatex"') == 2  # wrapped twice
    out, problems = mathrender.typeset(page, katex)
    assert problems == [] and out.count('class="katex"') == 1 and "\\(" not in out


def test_a_formula_katex_rejects_is_named_and_kept(katex):
    page = arithmatex("Fine \\(x\\), broken \\(\\frac{1}{\\)")
    out, problems = mathrender.typeset(page, katex)
    assert len(problems) == 1
    assert "KaTeX rejects '\\\\(\\\\frac{1}{\\\\)'" in problems[0] and "parse error" in problems[0]
    assert out.count('class="katex"') == 1 and "\\(\\frac{1}{\\)" in out


def test_the_build_names_the_page_and_the_formula(monkeypatch):
    from mkdocs.exceptions import PluginError

    from sitekit import mkdocs_hook

    class Page:
        class file:
            src_uri = "module/broken.md"

    monkeypatch.setitem(mkdocs_hook._state, "strict", True)
    with pytest.raises(PluginError) as err:
        mkdocs_hook.on_post_page(arithmatex("Fine \\(x\\), not \\(\\undefinedmacro\\)"), Page(), None)
    mkdocs_hook.on_post_build(None)
    assert "docs/module/broken.md: math that KaTeX cannot typeset" in str(err.value)
    assert "Undefined control sequence: \\undefinedmacro" in str(err.value)


def test_cached_formulas_are_not_sent_again(katex, monkeypatch):
    page = arithmatex("\\(y = x + F(x)\\)")
    first, _ = mathrender.typeset(page, katex)
    katex.close()
    monkeypatch.setattr(katex, "_start", lambda: pytest.fail("Node was started for a cached formula"))
    assert mathrender.typeset(page, katex) == (first, [])


def png(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))


def test_images_load_lazily_and_reserve_their_box():
    svg = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="450pt" height="300pt">'
    files = {"figures/a.svg": svg}
    data = base64.b64encode(png(640, 480)).decode()
    page = (
        '<p><img alt="a" src="../../figures/a.svg" /></p><img src="data:image/png;base64,' + data + '">'
        '<img alt="sized" src="x.svg" width="10" height="5" loading="eager">'
    )
    out = lightpage.lazy_images(page, "module/part/", files.get)
    assert '<img alt="a" src="../../figures/a.svg" loading="lazy" decoding="async" width="600" height="400" />' in out
    assert 'width="640" height="480"' in out
    assert '<img alt="sized" src="x.svg" width="10" height="5" loading="eager" decoding="async" />' in out


def test_code_blocks_take_keyboard_focus_before_the_theme_sets_them_up():
    page = (
        '<div class="highlight"><pre><span></span><code><span class="k">def</span></code></pre></div>'
        '<pre class="x"><code class="language-text">a</code></pre><pre><code tabindex="-1">b</code></pre>'
        "<p><code>inline</code></p><pre><span></span><span>notebook cell</span></pre>"
    )
    out = lightpage.focusable_code(page)
    assert out == page.replace("<pre><span></span><code>", '<pre><span></span><code tabindex="0">').replace(
        '<code class="language-text">', '<code tabindex="0" class="language-text">'
    )


def test_pages_preload_exactly_the_katex_fonts_their_math_uses(katex):
    page = arithmatex("\\(\\mathcal{L} = \\sum_i x_i\\)\n\n\\[\n\\Big( \\mathbb{R} \\Big)\n\\]\n")
    out, _ = mathrender.typeset(page, katex)
    assert mathrender.fonts(out) == [
        "KaTeX_AMS-Regular.woff2",
        "KaTeX_Caligraphic-Regular.woff2",
        "KaTeX_Main-Regular.woff2",
        "KaTeX_Math-Italic.woff2",
        "KaTeX_Size1-Regular.woff2",
        "KaTeX_Size2-Regular.woff2",
    ]
    head = '<head><link rel="stylesheet" href="../assets/katex/katex.min.css"></head>'
    preloaded = mathrender.preload_fonts(head + out)
    assert preloaded.index('href="../assets/katex/fonts/KaTeX_Main-Regular.woff2" as="font"') < preloaded.index(
        "katex.min.css"
    )
    assert mathrender.preload_fonts(head + "<p>no math</p>") == head + "<p>no math</p>"
