"""Common-mistakes claims about how far the stream grows by block 50 for each branch init (5 seeds)."""

import math
import statistics
from collections.abc import Callable

import pytest

from sitekit.margins import above, below
from snippets.mistakes import large_init as snippet

PAGE = "module/common-mistakes.md"


@pytest.fixture(scope="module")
def results(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


@pytest.mark.claim(
    "With every branch's last layer zeroed, the stream after 50 blocks is the input bit for bit, for 5 seeds.",
    page=PAGE,
    exact="torch.equal(h_50, x) and ‖h_50‖/‖x‖ == 1.0",
)
def test_zero_init_stream_is_exactly_the_input_at_block_50(claim, results):
    def unchanged(equal: list[bool], ratio: list[float]) -> None:
        assert all(equal) and all(q == 1.0 for q in ratio), ratio

    claim.check(unchanged, [r.exact_at_depth["zero"] for r in results], [r.growth["zero"][-1] for r in results])
    claim.rejects(
        unchanged,
        [r.exact_at_depth["default"] for r in results],
        [r.growth["default"][-1] for r in results],
        because="default",
    )
    claim.record(ratio=results[0].growth["zero"][-1], depth=results[0].depth, seeds=len(results))


@pytest.mark.claim(
    "By block 50 the stream has grown to about (1 + ρ²)^25 times the input: about 4× with PyTorch's default "
    "init (ρ² = 1/18, within a factor 1.5) and about 10¹¹× with He init (ρ² = 2, within a factor 10), for 5 seeds.",
    page=PAGE,
)
def test_stream_growth_by_block_50_follows_branch_energy(claim, results):
    factor = {"default": 1.5, "he": 10.0}

    def follows(init: str) -> Callable[[list[float]], None]:
        # "Within a factor f" either way is |ln(measured / predicted)| < ln f: the scale in which a factor too
        # large and a factor too small are the same distance from the prediction.
        def check(ratios: list[float]) -> None:
            predicted = snippet.predicted_growth(snippet.RHO2[init], 50)
            off = [abs(math.log(q / predicted)) for q in ratios]
            below(f"|ln(‖h_50‖/‖x‖ / (1 + ρ²)^25)|, {init}", off, math.log(factor[init]))

        return check

    default, he = follows("default"), follows("he")
    claim.check(default, [r.growth["default"][-1] for r in results])
    claim.check(he, [r.growth["he"][-1] for r in results])
    claim.rejects(
        default, [r.growth["he"][-1] for r in results], because="the He-initialised stack against default's ρ²"
    )
    claim.rejects(
        he, [r.growth["default"][-1] for r in results], because="the default-initialised stack against He's ρ²"
    )

    def spread(init: str, block: int) -> list[float]:
        v = [r.growth[init][block - 1] for r in results]
        return [statistics.median(v), min(v), max(v)]

    blocks = [1, 10, 20, 30, 40, 50]
    every = list(range(1, results[0].depth + 1))
    curves = {init: {"block": every, "spread": [spread(init, b) for b in every]} for init in snippet.INITS}
    rows = [[b, *spread("default", b), *spread("he", b)] for b in blocks]
    cols = ["block l", "default median", "default min", "default max", "He median", "He min", "He max"]
    rho2 = {i: statistics.median(r.first_block_rho2[i] for r in results) for i in ("default", "he")}
    # The branch-to-stream ratio that would make a tenfold growth by block 50 come true.
    rho_for_10x = math.sqrt(10 ** (2 / 50) - 1)
    claim.record(
        table={"columns": cols, "rows": rows},
        curves=curves,
        default=dict(zip(["median", "min", "max"], spread("default", 50), strict=True)),
        he=dict(zip(["median", "min", "max"], spread("he", 50), strict=True)),
        predicted_default=snippet.predicted_growth(snippet.RHO2["default"], 50),
        predicted_he=snippet.predicted_growth(snippet.RHO2["he"], 50),
        rho2=snippet.RHO2,
        measured_rho2=rho2,
        rho_for_10x=rho_for_10x,
        seeds=len(results),
        factor=factor,
        block=results[0].depth,
        target=10,  # the tenfold growth rho_for_10x is solved for
        per_block_for_target=10 ** (2 / 50),  # the second moment's growth per block that gives it
    )


@pytest.mark.claim(
    "A zero-initialised last layer still learns: on the first backward pass it gets a non-zero weight "
    "gradient while the branch's first layer gets exactly zero, for 5 seeds.",
    page=PAGE,
    exact="the first layer's weight gradient is exactly 0.0 and the last layer's is not",
)
def test_zeroed_last_layer_gets_gradient_first_layer_gets_none(claim, results):
    def only_last_learns(grads: list[list[float]]) -> None:
        assert all(first == 0.0 for first, _ in grads), grads
        above("‖∂ℒ/∂W‖ of the last layer", [last for _, last in grads], 0.0)

    claim.check(only_last_learns, [r.first_step for r in results])
    claim.rejects(only_last_learns, [r.first_step_default for r in results], because="a default-initialised branch")
    claim.record(
        first=max(r.first_step[0] for r in results),
        last_min=min(r.first_step[1] for r in results),
        seeds=len(results),
    )
