"""Claims of Lab 1 about the paths of the gradient-highway page's residual stacks (5 seeds)."""

import math
import statistics

import pytest

from sitekit.margins import above, below, between
from snippets.lab_paths import paths as snippet

PAGE = "module/lab-why-it-trains.md"
EXPERIMENT = "expands 20 residual stacks of up to 50 blocks by path length, float64 Jacobians (5 seeds)"
# At initialisation, in float64, no training: under ATEN_CPU_CAPABILITY=default the medians of the margins moved by
# at most 1.3e-6 (relative); 0.05 is the floor this site allows for any experiment.
TOLERANCE = 0.05
# The exact claim's margin is itself float64 rounding (about 1e-15), which another kernel path moved by 4.6% and another
# processor's summation order can change several-fold; the bound that matters, 1e-12, is asserted on every run.
ROUNDING = 10
DEEPEST = snippet.DEPTHS[-1]
EXACT = 1e-12  # float64 rounding over a few hundred products stays far below this
SHORT = 4  # "short": the energy-weighted mean length stays below L / SHORT
NEAR = 0.1  # the energy-weighted mean length is within 10% of L r²/(1 + r²)


@pytest.fixture(scope="module")
def runs(device, seeds):
    return [snippet.measure(device, seed=s) for s in seeds(5)]


def stacks(runs) -> list:
    return [r.default[L] for r in runs for L in snippet.DEPTHS] + [r.he for r in runs]


@pytest.mark.claim(
    "Split by length, the paths of the gradient-highway page's residual stacks add up to the input gradient autograd "
    "computes (relative difference below 1e-12 at every depth and both inits, 5 seeds); the same "
    "paths are nowhere near the gradient of the plain stack built from the same branches.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=ROUNDING,
    exact="the expansion of (I + J_L) ... (I + J_1) by path length is an identity: float64 rounding only",
)
def test_paths_sum_to_the_input_gradient(claim, runs):
    def adds_up(errors: list[float]) -> None:
        below("relative difference from autograd's gradient", errors, EXACT)

    exact = [s.max_relative_error for s in stacks(runs)]
    plain = [s.plain_relative_error for s in stacks(runs)]
    claim.check(adds_up, exact)
    assert min(plain) > 1, plain  # "nowhere near": off by more than the gradient itself
    claim.rejects(adds_up, plain, because="the plain stack of the same branches")
    claim.record(
        max_error=max(exact),
        bound=EXACT,
        plain_error_min=min(plain),
        depths=list(snippet.DEPTHS),
        width=snippet.WIDTH,
        inputs=snippet.INPUTS,
        seeds=len(runs),
    )


def share(values: list[float]) -> list[float]:
    total = sum(values)
    return [v / total for v in values]


def median_share(stacks_: list, what: str = "energy") -> list[float]:
    shares = [share(getattr(s, what)) for s in stacks_]
    return [statistics.median(col) for col in zip(*shares, strict=True)]


@pytest.mark.claim(
    "In the gradient-highway page's residual stacks at PyTorch's default init, the gradient's energy travels on "
    "paths through fewer than a quarter of the blocks: weighting each path length k by ‖terms_k‖², the mean "
    "length is below L/4 at every depth in every one of 5 seeds, against L/2 by count; at 50 blocks it is within "
    "10% of L r²/(1 + r²), under both PyTorch's default init and He init, where it is above L/2.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_short_paths_carry_the_gradient(claim, runs):
    def shallow(by_depth: dict[int, list]) -> None:
        for L, stacks_ in by_depth.items():
            below(f"L = {L}: energy-weighted mean path length / L", [s.energy_length / L for s in stacks_], 1 / SHORT)

    def predicted(lengths: list[float], predictions: list[float]) -> None:
        off = [abs(m / p - 1) for m, p in zip(lengths, predictions, strict=True)]
        below(f"L = {DEEPEST}: |mean path length / (L r²/(1 + r²)) − 1|", off, NEAR)

    def long_under_he(he: list) -> None:
        above(f"He init, L = {DEEPEST}: mean path length / L", [s.energy_length / s.depth for s in he], 1 / 2)

    default = {L: [r.default[L] for r in runs] for L in snippet.DEPTHS}
    he = [r.he for r in runs]
    deepest = default[DEEPEST] + he  # default init, then He init
    claim.check(shallow, default)
    claim.check(predicted, [s.energy_length for s in deepest], [s.energy_predicted for s in deepest])
    claim.check(long_under_he, he)
    claim.rejects(shallow, {DEEPEST: he}, because="He init, whose branches amplify")
    claim.rejects(long_under_he, default[DEEPEST], because="the default init at the same depth")
    claim.rejects(
        predicted,
        [s.effective_length for s in deepest],
        [s.energy_predicted for s in deepest],
        because="the count × size weighting of the same paths",
    )
    rows = []
    for L in snippet.DEPTHS:
        eff = [r.default[L].energy_length for r in runs]
        heur = [r.default[L].effective_length for r in runs]
        s0 = runs[0].default[L]
        rows.append(
            [L, L / 2, statistics.median(eff), min(eff), max(eff), s0.energy_predicted, statistics.median(heur)]
        )
    he_lengths = [s.energy_length for s in he]
    count = [math.comb(DEEPEST, k) / 2**DEEPEST for k in range(DEEPEST + 1)]
    per_path = [statistics.median(col) for col in zip(*(r.default[DEEPEST].per_path for r in runs), strict=True)]
    claim.record(
        table={
            "columns": [
                "depth L",
                "mean length by count",
                "energy-weighted median",
                "min",
                "max",
                "L r²/(1 + r²)",
                "count × size (median)",
            ],
            "rows": rows,
        },
        deepest=DEEPEST,
        effective_deepest=rows[-1][2],
        fraction_deepest=rows[-1][2] / DEEPEST,
        predicted_deepest=rows[-1][5],
        heuristic_deepest=rows[-1][6],
        heuristic_predicted=runs[0].default[DEEPEST].predicted_length,
        he_effective=statistics.median(he_lengths),
        he_predicted=runs[0].he.energy_predicted,
        he_heuristic=statistics.median(s.effective_length for s in he),
        count_share=count,
        default_share=median_share(default[DEEPEST]),
        he_share=median_share(he),
        heuristic_share=median_share(default[DEEPEST], "contribution"),
        per_path_ratio=per_path[1] / per_path[0],
        branch_gain=snippet.GAINS["default"],
        paths_total=2**DEEPEST,
        short=SHORT,
        near=NEAR,
        paths_per_length=snippet.INPUTS * snippet.PATHS,
        seeds=len(runs),
    )


ORTHOGONAL = 2  # "energies add": Σ_k ‖terms_k‖² within a factor of 2 of ‖g‖² (exactly 1 for orthogonal rows)
OVERSHOOT = 1000  # the count × size sum exceeds ‖g‖ more than this many times at 50 blocks


def parts_over_whole(pairs: list[float]) -> None:
    between("sum of the parts / the whole", pairs, 1 / ORTHOGONAL, ORTHOGONAL)


def overshoots(pairs: list[float]) -> None:
    above("sum of the parts / the whole", pairs, OVERSHOOT)


@pytest.mark.claim(
    "At PyTorch's default init, the rows of the exact expansion are nearly orthogonal: Σ_k ‖terms_k‖² is within "
    "a factor of 2 of ‖g‖² at every depth in every one of 5 seeds, so energies add; summing path sizes as if they "
    "added, Σ_k C(L, k) × (mean path size) exceeds ‖g‖ more than 1000 times at 50 blocks.",
    page=PAGE,
    experiment=EXPERIMENT,
    tolerance=TOLERANCE,
)
def test_path_energies_add_and_path_sizes_do_not(claim, runs):
    energies = [r.default[L].energy_sum_ratio for r in runs for L in snippet.DEPTHS]
    magnitudes = [r.default[DEEPEST].magnitude_sum_ratio for r in runs]
    claim.check(parts_over_whole, energies)
    claim.check(overshoots, magnitudes)
    claim.rejects(parts_over_whole, magnitudes, because="the count × size sum, the triangle inequality's bound")
    claim.rejects(overshoots, [r.default[DEEPEST].energy_sum_ratio for r in runs], because="the energy sum")
    by_depth = {L: [r.default[L] for r in runs] for L in snippet.DEPTHS}
    claim.record(
        table={
            "columns": ["depth L", "Σ‖terms_k‖² / ‖g‖²", "Σ C(L,k)·size / ‖g‖", "‖g‖² / ‖g_0‖²", "(1 + r²)^L"],
            "rows": [
                [
                    L,
                    statistics.median(s.energy_sum_ratio for s in st),
                    statistics.median(s.magnitude_sum_ratio for s in st),
                    statistics.median(s.growth for s in st),
                    st[0].growth_predicted,
                ]
                for L, st in by_depth.items()
            ],
        },
        energy_ratio_min=min(energies),
        energy_ratio_max=max(energies),
        magnitude_ratio_deepest=statistics.median(magnitudes),
        magnitude_ratio_min=min(magnitudes),
        orthogonal=ORTHOGONAL,
        overshoot=OVERSHOOT,
        deepest=DEEPEST,
        seeds=len(runs),
    )
