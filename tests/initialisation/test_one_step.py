"""Claims of "Initialisation and scale" about the size of one optimiser step in a deep residual stack."""

import statistics

import pytest

from snippets.initialisation import one_step as snippet

PAGE = "module/initialisation.md"


@pytest.fixture(scope="module")
def runs(device):
    """Five seeds of every setting, shared by the claims below."""
    return [snippet.measure(device, seed=s) for s in range(5)]


def flat(change: dict[int, float]) -> None:
    assert max(change.values()) / min(change.values()) < 1.5, change


def growth(change: dict[int, float]) -> float:
    return change[max(change)] / change[min(change)]


def table(runs, names: list[str]) -> dict:
    rows = [[L, *(statistics.median(r.change[n][L] for r in runs) for n in names)] for L in snippet.DEPTHS]
    return {"columns": ["branches L", *names], "rows": rows}


@pytest.mark.claim(
    "After one SGD step (η = 1e-3) from zeroed last layers, a stack's output moves in proportion to its number "
    "of branches without Fixup's rescaling (more than 10× further at L = 64 than at L = 4) and by the same amount "
    "to within 1.5× at L = 4, 16 and 64 with it, in each of 5 seeds.",
    page=PAGE,
)
def test_fixup_keeps_one_sgd_step_the_same_size_at_any_depth(claim, runs):
    for r in runs:
        claim.check(flat, r.change["sgd fixup"])
        claim.rejects(flat, r.change["sgd unscaled"], because="the same stack without the L^(-1/2) rescaling")
        assert growth(r.change["sgd unscaled"]) > 10
    claim.record(
        bounds={"unscaled over": 10, "fixup within": 1.5},
        seeds=len(runs),
        lr=1e-3,
        L_small=min(snippet.DEPTHS),
        L_large=max(snippet.DEPTHS),
        unscaled_growth=statistics.median(growth(r.change["sgd unscaled"]) for r in runs),
        fixup_growth=statistics.median(growth(r.change["sgd fixup"]) for r in runs),
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
    for r in runs:
        claim.check(flat, r.change["adam α=1/L"])
        claim.rejects(flat, r.change["adam α=1"], because="the same stack with unscaled branches")
        assert growth(r.change["adam α=1"]) > 10
        assert 2 < growth(r.change["adam α=1/√L"]) < 8
        assert r.change["adam α=1 η=1e-4"][64] < r.change["adam α=1"][64] / 5
    names = ["adam α=1", "adam α=1/√L", "adam α=1/L"]
    claim.record(
        bounds={"unscaled over": 10, "1/√L between": [2, 8], "1/L within": 1.5},
        seeds=len(runs),
        lr=1e-3,
        L_small=min(snippet.DEPTHS),
        L_large=max(snippet.DEPTHS),
        growth={n: statistics.median(growth(r.change[n]) for r in runs) for n in names},
        change_64=statistics.median(r.change["adam α=1"][64] for r in runs),
        change_64_small_lr=statistics.median(r.change["adam α=1 η=1e-4"][64] for r in runs),
        small_lr=1e-4,
        table=table(runs, names),
    )
