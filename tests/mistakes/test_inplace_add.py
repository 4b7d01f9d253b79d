"""Common-mistakes claims about `x += F(x)` on the residual stream.

Every claim runs on the fixture's 5 seeds, but only the last one's outcome (how far the .data gradients are off)
can depend on the seed: whether autograd raises, and that the in-place and out-of-place additions give the same
bits, are properties of the code, so those sentences claim no seeds.
"""

from collections.abc import Callable

import pytest
import torch

from sitekit.margins import above
from snippets.mistakes import inplace_add as snippet

PAGE = "module/common-mistakes.md"
LEAF = "leaf Variable that requires grad"
SAVED = "one of the variables needed for gradient computation has been modified by an inplace operation"
RAISE_AT_BACKWARD = ("after Linear", "after Linear, pre-norm branch", "after ReLU, frozen branch")
RUNS = "after Linear, frozen branch"


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def outcome_text(pair: snippet.Pair) -> str:
    """One table cell: where it raised, or how far its gradients are from x = x + F(x)."""
    o = pair.inplace
    if o.stage:
        return f"RuntimeError in {o.stage}()"
    if pair.bit_identical:
        return "runs; gradients bit-identical"
    return f"runs; gradients off by up to {pair.max_grad_difference:.3g}"


def raised_in(stage: str, text: str) -> Callable[[list[snippet.Outcome]], None]:
    def raised(outcomes: list[snippet.Outcome]) -> None:
        for o in outcomes:
            assert o.stage == stage and text in o.message, (o.stage, o.message)

    return raised


RAISED_IN_FORWARD = raised_in("forward", LEAF)
RAISED_IN_BACKWARD = raised_in("backward", SAVED)


@pytest.mark.claim(
    "x += F(x) on a leaf tensor that requires grad raises RuntimeError in the forward pass.",
    page=PAGE,
    exact="autograd's RuntimeError about a leaf Variable, raised in forward, on every seed",
)
def test_inplace_add_on_leaf_input_raises_in_forward(claim, results):
    claim.check(RAISED_IN_FORWARD, [r.scenarios["input leaf"].inplace for r in results])
    assert all(r.scenarios["input leaf"].reference.stage == "" for r in results)
    claim.rejects(RAISED_IN_FORWARD, [r.scenarios[RUNS].inplace for r in results], because="a non-leaf stream")
    claim.record(seeds=len(results), error=f"RuntimeError: {results[0].scenarios['input leaf'].inplace.message}")


@pytest.mark.claim(
    "x += F(x) raises RuntimeError in backward() whenever autograd saved the stream: after a Linear (the "
    "branch's first layer saves it), with a pre-norm branch (LayerNorm saves it) and after a ReLU (ReLU saves "
    "its output).",
    page=PAGE,
    exact="autograd's RuntimeError about a variable modified in place, raised in backward, in every case and seed",
)
def test_inplace_add_raises_in_backward_when_stream_was_saved(claim, results):
    claim.check(RAISED_IN_BACKWARD, [r.scenarios[name].inplace for r in results for name in RAISE_AT_BACKWARD])
    assert all(r.scenarios[name].reference.stage == "" for r in results for name in RAISE_AT_BACKWARD)
    claim.rejects(RAISED_IN_BACKWARD, [r.scenarios[RUNS].inplace for r in results], because="a stream nobody saved")
    first = results[0].scenarios
    claim.record(
        seeds=len(results),
        error=f"RuntimeError: {first['after Linear'].inplace.message}",
        error_relu=f"RuntimeError: {first['after ReLU, frozen branch'].inplace.message}",
    )


@pytest.mark.claim(
    "Where x += F(x) runs (nothing saved the stream, or under torch.no_grad), its gradients and outputs are "
    "bit-identical to x = x + F(x); under no_grad the caller's input tensor is overwritten too.",
    page=PAGE,
    exact="torch.equal on every gradient and on the no_grad output",
)
def test_inplace_add_that_runs_gives_identical_gradients(claim, results):
    def identical(pairs: list[snippet.Pair]) -> None:
        for pair in pairs:
            assert pair.inplace.stage == "" and pair.bit_identical, pair.max_grad_difference

    claim.check(identical, [r.scenarios[RUNS] for r in results])
    assert all(r.inference_equal and r.caller_tensor_changed for r in results)
    claim.rejects(identical, [r.hidden_write for r in results], because="the update written through .data")
    rows = [[name, outcome_text(pair)] for name, pair in results[0].scenarios.items()]
    rows.append(["after Linear, written through .data", outcome_text(results[0].hidden_write)])
    claim.record(
        table={"columns": ["the stream comes from", "x += F(x)"], "rows": rows},
        max_difference=max(r.scenarios[RUNS].max_grad_difference for r in results),
        seeds=len(results),
    )


@pytest.mark.claim(
    "Writing the update through .data raises nothing and returns wrong gradients: the input gradient misses "
    "the branch's term and the branch gets no gradient at all, for 5 seeds.",
    page=PAGE,
)
def test_update_through_data_gives_wrong_gradients_silently(claim, results):
    def silently_wrong(pairs: list[snippet.Pair]) -> None:
        for pair in pairs:
            assert pair.inplace.stage == "" and pair.reference.stage == ""
            x_grad, _stem_w, _stem_b, *branch = pair.inplace.grads
            assert not torch.equal(x_grad, pair.reference.grads[0]), "the input gradient is right"
            assert all(g.abs().max().item() == 0.0 for g in branch), "the branch received a gradient"
        # "wrong": off by far more than rounding (the missing branch term is of the gradients' own size)
        above("largest |gradient − x = x + F(x)'s|", [p.max_grad_difference for p in pairs], 1e-3)

    claim.check(silently_wrong, [r.hidden_write for r in results])
    claim.rejects(silently_wrong, [r.scenarios[RUNS] for r in results], because="the tracked in-place update")
    claim.record(
        max_difference_min=min(r.hidden_write.max_grad_difference for r in results),
        max_difference_max=max(r.hidden_write.max_grad_difference for r in results),
        seeds=len(results),
    )
