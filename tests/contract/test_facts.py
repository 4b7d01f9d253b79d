"""Sourced facts: the registry's schema, derived facts, and the torchvision facts checked against the wheel."""

from __future__ import annotations

import pytest

from sitekit import facts
from snippets.depth_width import model_zoo

WORK = '[works.w]\ngroup = "g"\ncite = "A and B"\ntitle = "T"\nurl = "https://example.org"\ncited_for = "x"\n'


def load_text(tmp_path, text: str) -> facts.Registry:
    path = tmp_path / "facts.toml"
    path.write_text(text)
    return facts.load(path)


def test_the_site_registry_loads():
    reg = facts.load()
    assert reg.facts and all(f.work in reg.works for f in reg.facts.values() if f.value is not None)


def test_a_fact_missing_its_source_fails_naming_the_file_and_the_fact(tmp_path):
    with pytest.raises(facts.FactError, match=r"facts.toml: fact 'top1': missing where"):
        load_text(tmp_path, WORK + '[facts.top1]\nvalue = 76.13\nwork = "w"\nabout = "top-1"\n')


def test_a_fact_citing_an_unknown_work_fails(tmp_path):
    with pytest.raises(facts.FactError, match=r"fact 'top1': work 'nope' is not a \[works.<id>\]"):
        load_text(tmp_path, WORK + '[facts.top1]\nvalue = 1.5\nwork = "nope"\nwhere = "Table 2"\nabout = "x"\n')


def test_a_derived_fact_is_computed_from_its_formula(tmp_path):
    text = WORK + "".join(
        f'[facts.{k}]\nvalue = {v}\nwork = "w"\nwhere = "Table 1"\nabout = "{k}"\n' for k, v in (("a", 3.0), ("b", 1.5))
    )
    reg = load_text(
        tmp_path,
        text + '[facts.gap]\nformula = "a - b"\nabout = "gap"\n[facts.r]\nformula = "a / b"\nabout = "r"\n'
        '[facts.p]\nformula = "b ** a"\nabout = "compounded"\n',
    )
    assert reg.value("gap") == 1.5 and reg.value("r") == 2.0 and reg.value("p") == 1.5**3
    assert [s.id for s in reg.sources("gap")] == ["a", "b"]


def test_a_formula_with_a_typed_number_is_refused(tmp_path):
    text = WORK + '[facts.a]\nvalue = 3\nwork = "w"\nwhere = "p. 1"\nabout = "a"\n'
    with pytest.raises(facts.FactError, match="may only use"):
        load_text(tmp_path, text + '[facts.g]\nformula = "a - 2.5"\nabout = "g"\n')


def test_every_derived_fact_of_the_site_is_computed_not_typed():
    reg = facts.load()
    for f in reg.facts.values():
        if f.value is None:
            assert reg.sources(f.id), f.id


def test_the_metadata_parser_reads_weights_without_importing():
    source = (
        '_COMMON_META = {"min_size": (1, 1)}\n'
        "class Net_Weights(WeightsEnum):\n"
        "    IMAGENET1K_V1 = Weights(url='u', transforms=partial(f), meta={**_COMMON_META,\n"
        '        "num_params": 123, "_ops": 1.25, "_metrics": {"ImageNet-1K": {"acc@1": 70.5, "acc@5": 90.25}}})\n'
    )
    assert facts.weights_metadata(source) == {
        "Net_Weights.IMAGENET1K_V1": {"num_params": 123, "_ops": 1.25, "acc@1": 70.5, "acc@5": 90.25}
    }


@pytest.fixture(scope="module")
def wheel():
    return facts.torchvision_wheel()  # pinned and hash-checked; downloaded once into .nox/wheels


CHECKED = [f for f in facts.load().facts.values() if f.check]


@pytest.mark.parametrize("fact", CHECKED, ids=[f.id for f in CHECKED])
def test_torchvision_facts_match_the_published_weights_metadata(wheel, fact):
    assert fact.value == facts.torchvision_value(wheel, fact.check), f"{fact.id}: {fact.check}"


def test_the_model_zoo_listing_shows_the_registry_values():
    reg = facts.load()
    for name, (params, acc1) in model_zoo.TORCHVISION.items():
        assert (params, acc1) == (reg.value(f"{name}_params"), reg.value(f"{name}_top1")), name
    for name, ops in model_zoo.OPS.items():
        assert ops == reg.value(f"{name}_ops"), name


def test_a_fact_reads_as_plain_text_with_one_source_mark_a_work_a_paragraph():
    from sitekit import render

    ctx = render.Context(page="module/depth-vs-width.md", cpu={})
    out = render.render('DenseNet-121: {{ fact("densenet121_top1") }}, {{ fact("densenet121_top1") }}.', ctx)
    assert out.startswith('DenseNet-121: 74.434%<sup class="src"><a href="../sources/#fact-densenet121-top1" ')
    assert "densenet.py" in out and out.count("†") == 1 and out.endswith("</sup>, 74.434%.")
    again = render.render('One: {{ fact("densenet121_top1") }}.\n\nTwo: {{ fact("densenet121_top1") }}.', ctx)
    assert again.count("†") == 2  # a new paragraph names its source again


def test_the_sources_page_lists_every_fact_and_every_work():
    reg = facts.load()
    page = facts.sources_markdown(reg)
    assert all(f'id="{facts.anchor(fid)}"' in page for fid in reg.facts)
    assert all(w.title in page for w in reg.works.values())


def test_a_works_description_may_not_type_a_number(tmp_path):
    reg = load_text(tmp_path, WORK.replace('cited_for = "x"', 'cited_for = "the 56-layer net"'))
    with pytest.raises(facts.FactError, match="cited_for types"):
        facts.sources_markdown(reg)


def test_facts_show_as_papers_write_them():
    assert [facts.display(v) for v in (2015, 1202, 64_000, 76.13, 1.6959999999999980)] == [
        "2015",
        "1202",
        "64,000",
        "76.13",
        "1.696",
    ]


def test_an_offline_download_fails_with_what_to_do(tmp_path, monkeypatch):
    def offline(cmd, **kwargs):
        return facts.subprocess.CompletedProcess(cmd, 1, "", "ERROR: network is unreachable")

    monkeypatch.setattr(facts.subprocess, "run", offline)
    with pytest.raises(facts.FactError, match=r"could not download .*network is unreachable.*copy the wheel"):
        facts.torchvision_wheel(tmp_path)


def test_a_wheel_with_another_hash_is_refused(tmp_path):
    (tmp_path / facts.WHEEL).write_bytes(b"not the pinned wheel")
    with pytest.raises(facts.FactError, match="not the pinned"):
        facts.torchvision_wheel(tmp_path)


def test_the_sources_page_folds_each_works_numbers_and_prints_metadata_plainly():
    page = facts.sources_markdown(facts.load())
    assert '??? note "The numbers taken from it (' in page
    line = next(x for x in page.split("\n") if 'id="fact-resnet50-params"' in x)
    assert line.startswith("    - ") and "metadata field `num_params` = 25,557,032." in line, line
    assert '""' not in page and " meta " not in page
    top1 = next(x for x in page.split("\n") if 'id="fact-resnet50-top1"' in x)
    assert 'metadata field `_metrics["ImageNet-1K"]["acc@1"]` = 76.130' in top1, top1
