"""The comparison that proves the site can move generators (scripts/zensical_build.py) catches what a reader
would notice, and ignores what only the generator's chrome changes. Also: the rendered-pages writer."""

from sitekit import rendered, site_compare

PAGE = (
    "<html><head><script>var x = 1;</script></head><body><nav>Menu</nav><article class='md-typeset'>"
    "<h1>Title<a class='headerlink' href='#t'>¶</a></h1><p>The gain is <a class='rcpt' href='#r'>1.41</a>.</p>"
    "<figure><svg><text>axis 3</text></svg></figure><h2>Next</h2><p>More.</p></article></body></html>"
)


def test_a_page_reads_as_its_headings_text_figures_and_receipts():
    page = site_compare.read(PAGE)
    assert page.headings == ["Title", "Next"]
    assert page.text == "Title The gain is 1.41 . Next More."
    assert (page.figures, page.receipts) == (1, 1)


def test_the_generators_chrome_outside_the_article_is_not_compared():
    other = PAGE.replace("<nav>Menu</nav>", "<nav>Another menu</nav><header>Site</header>")
    assert site_compare.differences(site_compare.read(PAGE), site_compare.read(other)) == []


def test_a_changed_number_heading_figure_or_receipt_is_a_difference():
    base = site_compare.read(PAGE)
    for changed, what in (
        (PAGE.replace("1.41", "1.42"), "visible text"),
        (PAGE.replace("<h2>Next</h2>", "<h2>Later</h2>"), "headings"),
        (PAGE.replace("<figure><svg><text>axis 3</text></svg></figure>", ""), "figures"),
        (PAGE.replace("class='rcpt'", "class='plain'"), "receipts"),
    ):
        found = site_compare.differences(base, site_compare.read(changed))
        assert any(what in d for d in found), (what, found)


def test_compare_names_a_page_missing_from_the_second_site(tmp_path):
    (tmp_path / "a" / "module").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "module" / "index.html").write_text(PAGE)
    problems, compared = site_compare.compare(tmp_path / "a", tmp_path / "b")
    assert compared == 0 and problems == ["module/index.html: missing from b/"]


def test_a_rendered_file_is_rewritten_only_when_its_bytes_change(tmp_path):
    path = rendered.page("module/p.md", "Text.", {"c": {"v": 1}}, folder=tmp_path)
    assert 'id="receipt-data">{"c":{"v":1}}</script>' in path.read_text()
    before = path.stat().st_mtime_ns
    rendered.page("module/p.md", "Text.", {"c": {"v": 1}}, folder=tmp_path)
    assert path.stat().st_mtime_ns == before  # a preview watching the tree is not set off
    rendered.page("module/p.md", "Text changed.", None, folder=tmp_path)
    assert path.read_text() == "Text changed."
