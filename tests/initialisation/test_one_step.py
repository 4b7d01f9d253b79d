"""Claims of "Initialisation and scale" about the size of one optimiser step in a deep residual stack."""

import statistics

import pytest

from sitekit.margins import above, below, between
from snippets.initialisation import one_step as snippet

PAGE = "module/initialisation.md"


@pytest.fixture(scope="module")
def runs(device, seeds):
    """Five seeds of every setting, shared by the claims below."""
    return [snippet.measure(device, seed=s) for s in seeds(5)]


FLAT, GROWS, SQRT_BAND, SMALL_LR = 1.5, 10, (2, 8), 1 / 5


def rate(*names: str) -> float:
    """The learning rate the snippet's SETTINGS give these settings (one rate: they are compared at it)."""
    rates = {snippet.SETTINGS[name][1] for name in names}
    assert len(rates) == 1, rates
    return rates.pop()


def spread_over_depth(change: dict[int, float]) -> float:
    """Largest over smallest one-step change across L = 4, 16, 64 (one seed, the same batch at each L)."""
    return max(change.values()) / min(change.values())


def growth(change: dict[int, float]) -> float:
    return change[max(change)] / change[min(change)]


def flat(changes: list[dict[int, float]]) -> None:
    """The same amount at every depth to within 1.5×, in every seed."""
    below("largest / smallest one-step change over L", [spread_over_depth(c) for c in changes], FLAT)


def grows_10x(changes: list[dict[int, float]]) -> None:
    """More than 10× further at L = 64 than at L = 4, in every seed."""
    above("one-step change at L = 64 / at L = 4", [growth(c) for c in changes], GROWS)


def table(runs, names: list[str]) -> dict:
    rows = [[L, *(statistics.median(r.change[n][L] for r in runs) for n in names)] for L in snippet.DEPTHS]
    return {"columns": ["branches L", *names], "rows": rows}


@pytest.mark.claim(
    "After one SGD step (η = 1e-3) from zeroed last layers, on the same batch and loss at every depth, a stack's "
    "output moves in proportion to its number of branches without Fixup's rescaling (more than 10× further at "
    "L = 64 than at L = 4) and by the same amount to within 1.5× at L = 4, 16 and 64 with it, in each of 5 seeds.",
    page=PAGE,
)
def test_fixup_keeps_one_sgd_step_the_same_size_at_any_depth(claim, runs):
    fixup = [r.change["sgd fixup"] for r in runs]
    unscaled = [r.change["sgd unscaled"] for r in runs]
    claim.check(flat, fixup)
    claim.rejects(flat, unscaled, because="the same stack without the L^(-1/2) rescaling")
    claim.check(grows_10x, unscaled)
    claim.rejects(grows_10x, fixup, because="the same stack with the L^(-1/2) rescaling")
    claim.record(
        seeds=len(runs),
        lr=rate("sgd unscaled", "sgd fixup"),
        L_small=min(snippet.DEPTHS),
        L_large=max(snippet.DEPTHS),
        depths=list(snippet.DEPTHS),
        unscaled_growth=statistics.median(growth(c) for c in unscaled),
        fixup_growth=statistics.median(growth(c) for c in fixup),
        fixup_spread_over_depth={
            "median": statistics.median(spread_over_depth(c) for c in fixup),
            "max": max(spread_over_depth(c) for c in fixup),
        },
        table=table(runs, ["sgd unscaled", "sgd fixup"]),
    )


@pytest.mark.claim(
    "After one Adam step (η = 1e-3) a default-init residual stack's output moves more than 10× further at L = 64 "
    "than at L = 4; with every branch multiplied by 1/√L the move grows 2× to 8× (about √16), and with 1/L it "
    "stays within 1.5×; at η = 1e-4 the unscaled stack's move at L = 64 is under a fifth of that at 1e-3 "
    "(each of 5 seeds).",
    page=PAGE,
)
def test_adam_steps_of_every_branch_add_up_in_the_stream(claim, runs):
    def grows_like_sqrt_depth(changes: list[dict[int, float]]) -> None:
        between("one-step change at L = 64 / at L = 4", [growth(c) for c in changes], *SQRT_BAND)

    deepest = max(snippet.DEPTHS)

    def smaller_step_moves_less(small_lr: list[dict[int, float]], lr: list[dict[int, float]]) -> None:
        below(
            "change at the largest L, smaller η / larger η",
            [s[deepest] / b[deepest] for s, b in zip(small_lr, lr, strict=True)],
            SMALL_LR,
        )

    unscaled = [r.change["adam α=1"] for r in runs]
    sqrt_scaled = [r.change["adam α=1/√L"] for r in runs]
    inverse = [r.change["adam α=1/L"] for r in runs]
    claim.check(flat, inverse)
    claim.rejects(flat, unscaled, because="the same stack with unscaled branches")
    claim.check(grows_10x, unscaled)
    claim.rejects(grows_10x, inverse, because="the same stack with every branch multiplied by 1/L")
    claim.check(grows_like_sqrt_depth, sqrt_scaled)
    claim.rejects(grows_like_sqrt_depth, unscaled, because="the same stack with unscaled branches")
    claim.check(smaller_step_moves_less, [r.change["adam α=1 η=1e-4"] for r in runs], unscaled)
    names = ["adam α=1", "adam α=1/√L", "adam α=1/L"]
    claim.record(
        seeds=len(runs),
        lr=rate(*names),
        L_small=min(snippet.DEPTHS),
        L_large=deepest,
        growth={n: statistics.median(growth(r.change[n]) for r in runs) for n in names},
        change_64=statistics.median(r.change["adam α=1"][deepest] for r in runs),
        change_64_small_lr=statistics.median(r.change["adam α=1 η=1e-4"][deepest] for r in runs),
        small_lr=rate("adam α=1 η=1e-4"),
        table=table(runs, names),
    )
