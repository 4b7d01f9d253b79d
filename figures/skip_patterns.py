"""Figures of "Other skip patterns": activation memory of dense and residual stacks, and the highway gate closing."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

MEMORY = "dense_stack_memory_grows_quadratically_residual_linearly"
CLOSING = "highway_block_is_identity_only_in_the_limit"


@figure(
    "dense-vs-residual-saved-activations",
    claims=[MEMORY],
    caption="Activation memory autograd keeps for backward, against depth: measured points, and the "
    "formulas dotted. Concatenation grows quadratically, addition linearly.",
)
def saved_activations_vs_depth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[MEMORY]
    n, k0, k = v["n"], v["k0"], v["k"]
    grid = list(range(1, 65))
    formula = {
        "dense": [4 * n * (L * k0 + k * L * (L - 1) / 2 + L * k) / 2**20 for L in grid],
        "residual": [4 * n * 2 * k0 * L / 2**20 for L in grid],
    }
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for kind in ("dense", "residual"):
        st = look(kind)
        series = v["series"][kind]
        depths = [int(L) for L in series]
        ax.plot(grid, formula[kind], ":", color=st.color, linewidth=1.5)
        ax.plot(
            depths,
            [b / 2**20 for b in series.values()],
            linestyle="none",
            marker=st.marker,
            color=st.color,
            label=f"{kind} stack (measured)",
        )
    ax.set_xlabel("depth $L$ (layers or blocks)")
    ax.set_ylabel("saved activations (MiB)")
    ax.legend()
    fig.tight_layout()
    return fig


@figure(
    "highway-gate-closing",
    claims=[CLOSING],
    caption="How far a highway block is from the identity as its gate bias goes down: the deviation "
    "falls exponentially but reaches zero only once it drops below the rounding of 1 in each float "
    "format (dashed and dotted lines).",
)
def highway_gate_closing(values: Values) -> Any:
    import matplotlib.pyplot as plt

    rows = values[CLOSING]["table"]["rows"]  # b_T, max T, max T·|H − x|, computed, f64 ==, f32 ==
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.semilogy([r[0] for r in rows], [r[2] for r in rows], **look("highway").kw(r"max $T \cdot |H(x) - x|$"))
    neutral = look("neutral").color
    ax.axhline(2**-24, color=neutral, ls="--", lw=1.2, label="float32: half an ulp of 1")
    ax.axhline(2**-53, color=neutral, ls=":", lw=1.5, label="float64: half an ulp of 1")
    ax.set_xlabel("gate bias $b_T$")
    ax.set_ylabel("largest deviation from identity")
    ax.legend(loc="lower right")  # below the rounding lines, where the curve has already risen past them
    fig.tight_layout()
    return fig
