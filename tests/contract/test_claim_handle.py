"""The claim handle refuses counterfactuals that are typed instead of measured, and unrecorded sentence numbers."""

from __future__ import annotations

import functools

import pytest

from sitekit import runs
from sitekit.claim_numbers import sentence_numbers, unbound
from sitekit.pytest_plugin import Claim
from tests.contract import miniature


class Item:
    nodeid = "tests/topic/test_demo.py::test_claim"


@pytest.fixture(autouse=True)
def _own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from an empty run registry: values are keyed by value, so a number another test in the
    same worker registered (a benchmark's load average of 0.28, say) would otherwise be named as a source."""
    monkeypatch.setattr(runs, "REGISTRY", runs.Registry())


def exact(deviation: float) -> None:
    assert deviation == 0.0


def below(value: float, bound: float) -> None:
    assert value < bound


def measured() -> tuple[float, float]:
    """What a snippet returns: the zeroed block's deviation and the un-zeroed one's (registered as a run's)."""
    return runs.register((0.0, 0.25), "snippets.topic.demo.measure()")


def sweep() -> dict[str, list[float]]:
    """What a snippet's sweep returns: losses of a residual and a plain net, and a citation it formats."""
    return runs.register(
        {"residual": [0.31, 0.29, 0.33], "plain": [0.92, 0.88, 0.95], "cited": "He, Zhang, Ren and Sun"},
        "snippets.topic.demo.measure(sweep=True)",
    )


def lower(a: list[float], b: list[float]) -> None:
    assert max(a) < min(b)


def names(text: str) -> None:
    assert text.count(" and ") == 1


def handle() -> Claim:
    return Claim(Item())  # type: ignore[arg-type]


def test_a_measured_counterfactual_through_the_same_check_is_accepted():
    claim = handle()
    zeroed, unzeroed = measured()
    claim.check(exact, zeroed)
    claim.rejects(exact, unzeroed, because="the un-zeroed block")
    assert claim.counterfactuals == ["the un-zeroed block"]


def test_rejects_before_the_check_was_applied_is_refused():
    claim = handle()
    _, unzeroed = measured()
    with pytest.raises(AssertionError, match=r"exact was never applied to the measured values.*claim\.check\(exact"):
        claim.rejects(exact, unzeroed, because="the un-zeroed block")


def test_a_different_check_for_the_counterfactual_is_refused():
    claim = handle()
    zeroed, unzeroed = measured()
    claim.check(exact, zeroed)
    looser = functools.partial(below, bound=0.1)
    with pytest.raises(AssertionError, match="was never applied to the measured values"):
        claim.rejects(looser, unzeroed, because="the un-zeroed block")


def test_a_literal_flag_is_refused_with_the_fix():
    claim = handle()
    zeroed, _ = measured()

    def identity(equal: bool, deviation: float) -> None:
        assert equal and deviation == 0.0

    claim.check(identity, True, zeroed)
    with pytest.raises(AssertionError, match=r"the counterfactual False is typed, not measured\. Run the alternative"):
        claim.rejects(identity, False, zeroed, because="a post-norm stack")


def test_a_wholly_literal_value_or_a_swapped_expected_number_is_refused():
    claim = handle()
    zeroed, unzeroed = measured()
    claim.check(below, zeroed, 0.1)
    with pytest.raises(AssertionError, match=r"the counterfactual \[0\.5, 0\.5\], 0\.1 is typed"):
        claim.rejects(below, [0.5, 0.5], 0.1, because="a container of constants")
    with pytest.raises(AssertionError, match=r"the counterfactual 0\.0 is typed.*functools\.partial"):
        claim.rejects(below, unzeroed, 0.0, because="the expected number swapped")
    with pytest.raises(AssertionError, match=r"the counterfactual 1 / 2 is typed"):
        claim.rejects(below, 1 / 2, bound=unzeroed, because="an expression of constants")


def test_a_literal_in_a_call_over_several_lines_is_refused():
    claim = handle()
    zeroed, unzeroed = measured()
    claim.check(below, zeroed, 0.1)
    with pytest.raises(AssertionError, match=r"the counterfactual None is typed"):
        claim.rejects(
            below,
            unzeroed,
            None,
            because="a bound typed in",
        )


def test_the_measured_value_itself_is_not_a_counterfactual():
    claim = handle()
    zeroed, _ = measured()
    claim.check(exact, zeroed)
    with pytest.raises(AssertionError, match="the counterfactual is the measured value itself"):
        claim.rejects(exact, zeroed, because="the same value")


def test_a_check_that_accepts_the_measured_counterfactual_still_fails():
    claim = handle()
    zeroed, unzeroed = measured()
    check = functools.partial(below, bound=1.0)
    claim.check(check, zeroed)
    with pytest.raises(AssertionError, match="a check that cannot fail proves nothing"):
        claim.rejects(check, unzeroed, because="the un-zeroed block")


def test_a_sentence_number_must_be_recorded_at_the_precision_shown():
    sentence = "Doubling h doubles its weights (1.9995× with biases) over 5 seeds, below 1e-20 of the start."
    assert unbound(sentence, {"ratio": 1.99951, "seeds": 5}, asserted=[1e-20]) == []
    assert unbound(sentence, {"ratio": 1.9990, "seeds": 5}, asserted=[1e-20]) == ["1.9995"]
    assert unbound(sentence, {"ratio": 1.99951, "seeds": 5}) == ["1e-20 (a bound: assert it through sitekit.margins)"]
    assert unbound(sentence, {"ratio": 1.99951, "seeds": 5, "bound": 1e-20}) == [
        "1e-20 (a bound: assert it through sitekit.margins)"
    ], "a bound recorded beside the check, not asserted by it, does not bind"


def test_a_bound_binds_only_to_the_threshold_asserted_and_a_loosened_one_fails():
    sentence = "R² stays above 0.99 on every seed."
    assert unbound(sentence, {"r2_min": 0.9931}) == ["0.99 (a bound: assert it through sitekit.margins)"]
    assert unbound(sentence, {"r2_min": 0.9931}, asserted=[0.99]) == []
    assert unbound(sentence, {"r2_min": 0.9931}, asserted=[0.95]) != [], "a loosened threshold fails the sentence"


def test_coincidental_bindings_are_refused():
    assert unbound("errors below 1e-12", {}, asserted=[3e-12]) != [], "a power of ten is not its whole decade"
    assert unbound("exactly 0 of the gradient", {"share": 0.49}) == ["0"]
    assert unbound("exactly 0 of the gradient", {"share": 0.0}) == []
    assert unbound("0 of the gradient", {"share": 0.5}) == ["0"], "0.5 does not print as 0"
    assert unbound("ρ² = 1/18", {"numerator": 1, "denominator": 18}) == ["1/18"], "a fraction's parts apart"
    assert unbound("ρ² = 1/18", {"rho2": 1 / 18}) == []


def test_numbers_in_words_are_bound_like_digits():
    sentence = "The default init's variance is one sixth of He's; a lesion removes half of all paths in six deletions."
    assert unbound(sentence, {"ratio": 1 / 6, "surviving": 0.5, "deletions": 6}) == []
    assert unbound(sentence, {"ratio": 1 / 3, "surviving": 0.5, "deletions": 6}) == ["one sixth"]
    assert unbound(sentence, {"ratio": 1 / 6, "surviving": 0.5, "deletions": 5}) == ["six"]
    assert unbound("the stream triples", {"growth": 3.04}) == []
    assert unbound("within an order of magnitude", {"ratio": 10.0}) != [], "a bound in words is a bound too"


def test_names_years_references_and_formulas_are_not_quantities():
    sentence = (
        "ResNet-50 and VGG-19 in float64 (He et al., ILSVRC 2015, arXiv 1512.03385, Part 2): "
        "the block has 12d² + 13d parameters, 16·N·d² FLOPs, 1/σ, g/2, 2^L paths and 1 − T."
    )
    assert [text for text, _ in sentence_numbers(sentence)] == []


def test_units_fractions_percent_and_powers_match_their_values():
    assert (
        unbound(
            "25.6M parameters, 3.5 % of them, ρ² = 1/18, 10¹¹× and 2³⁰ bytes",
            {
                "params": 25_557_032,
                "share": 0.035,
                "rho2": 1 / 18,
                "growth": 1.2e11,
                "gib": 2**30,
            },
        )
        == []
    )
    assert unbound("7,978,856 parameters and 0.47 points", {"p": 7978856, "gap": 0.4699}) == []
    assert unbound("0.47 points", {"gap": 0.4649}) == ["0.47"]


MINI_TEST = """
import pytest

from snippets.topic import demo


def exact(deviation):
    assert deviation == 0.0


@pytest.mark.claim("Doubling h gives 1.9995× the weights over 5 seeds.", page="page.md", exact="a count")
def test_says_what_it_did_not_record(claim, device):
    r = demo.measure()
    claim.check(exact, r["zeroed"])
    claim.rejects(exact, r["plain"], because="the plain block")
    claim.record(ratio=r["ratio"], seeds=5)


@pytest.mark.claim("Doubling h gives 1.9990× the weights over 5 seeds.", page="page.md", exact="a count")
def test_says_what_it_recorded(claim, device):
    r = demo.measure()
    claim.check(exact, r["zeroed"])
    claim.rejects(exact, r["plain"], because="the plain block")
    claim.record(ratio=r["ratio"], seeds=5)
"""


def test_a_claim_whose_sentence_states_an_unrecorded_number_fails_with_the_fix(tmp_path):
    """A miniature project with this sitekit, one snippet and two claims, run by pytest in a subprocess."""
    measured = '{"zeroed": 0.0, "plain": 0.25, "ratio": 1.9990}'
    out = miniature.run(tmp_path, MINI_TEST, measured, "--no-record", "-rf")
    assert "1 failed, 1 passed" in out.stdout, out.stdout + out.stderr
    assert "FAILED tests/topic/test_demo.py::test_says_what_it_did_not_record" in out.stdout
    assert "the sentence states 1.9995, which no recorded value shows at the precision written" in out.stdout
    assert "claim.record(...) the threshold, setting or result it stands for" in out.stdout


# Each way of faking a counterfactual, refused however it is spelled (sitekit.runs.judge).


def test_a_swapped_counterfactual_is_refused():
    claim = handle()
    r = sweep()
    claim.check(lower, r["residual"], r["plain"])
    with pytest.raises(AssertionError, match="moved to another argument or passed twice"):
        claim.rejects(lower, r["plain"], r["residual"], because="the nets swapped")


def test_a_duplicated_counterfactual_is_refused():
    claim = handle()
    r = sweep()
    claim.check(lower, r["residual"], r["plain"])
    with pytest.raises(AssertionError, match="moved to another argument or passed twice"):
        claim.rejects(lower, r["plain"], r["plain"], because="the plain net against itself")


def test_an_edited_counterfactual_is_refused():
    claim = handle()
    r = sweep()
    claim.check(names, r["cited"])
    with pytest.raises(AssertionError, match="no run produced"):
        claim.rejects(names, r["cited"].replace(", ", " and "), because="authors joined by 'and'")


@pytest.mark.parametrize(
    "spell",
    [
        lambda x: [v * -1 for v in x],
        lambda x: [-1.0],
        lambda x: [float("-1")],
        lambda x: [v + 1e-9 for v in x],
        lambda x: [v * 3 for v in x],
    ],
    ids=["times -1", "a typed -1.0", "float('-1')", "nudged", "scaled"],
)
def test_an_arithmetic_or_typed_counterfactual_is_refused_however_it_is_spelled(spell):
    claim = handle()
    r = sweep()
    claim.check(lower, r["residual"], r["plain"])
    with pytest.raises(AssertionError, match="no run produced"):
        claim.rejects(lower, spell(r["plain"]), r["plain"], because="made up in the test")


def test_a_run_alternative_is_accepted_and_its_source_recorded():
    claim = handle()
    r = sweep()
    claim.check(lower, r["residual"], r["plain"])
    again = runs.register({"plain": [0.3, 0.28, 0.32]}, "snippets.topic.demo.measure(depth=2)")
    claim.rejects(lower, r["residual"], again["plain"], because="a shallow plain net")
    assert claim.alternatives == [
        {"because": "a shallow plain net", "from": ["snippets.topic.demo.measure(depth=2)['plain']"]}
    ]


def test_runs_run_takes_only_snippet_code():
    with pytest.raises(TypeError, match=r"not by tests\.contract\.test_claim_handle written in the test"):
        runs.run(sweep)
