"""Figures of Part 7: activation memory of dense and residual stacks, and the highway gate closing."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

MEMORY = "dense_stack_memory_grows_quadratically_residual_linearly"
CLOSING = "highway_block_is_identity_only_in_the_limit"


@figure("dense-vs-residual-saved-activations", claims=[MEMORY])
def saved_activations_vs_depth(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[MEMORY]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for kind, color in (("dense", "#c0392b"), ("residual", "#2c3e91")):
        series = v["series"][kind]
        depths = [int(L) for L in series]
        ax.plot(depths, [b / 2**20 for b in series.values()], "o", color=color, label=f"{kind} stack (measured)")
    n, k0, k = v["n"], v["k0"], v["k"]
    grid = list(range(1, 65))
    ax.plot(grid, [4 * n * (L * k0 + k * L * (L - 1) / 2 + L * k) / 2**20 for L in grid], ":", color="#c0392b")
    ax.plot(grid, [4 * n * 2 * k0 * L / 2**20 for L in grid], ":", color="#2c3e91")
    ax.set_xlabel("depth L (layers or blocks)")
    ax.set_ylabel("activations saved for backward (MiB)")
    ax.set_title(f"N = {n}, k0 = d = {k0}, k = {k}; dotted: formulas", fontsize=10)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


@figure("highway-gate-closing", claims=[CLOSING])
def highway_gate_closing(values: Values) -> Any:
    import matplotlib.pyplot as plt

    rows = values[CLOSING]["table"]["rows"]  # b_T, max T, max T·|H − x|, computed, f64 ==, f32 ==
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.semilogy([r[0] for r in rows], [r[2] for r in rows], "o-", color="#2c3e91", label="max T·|H(x) − x|")
    ax.axhline(2**-24, color="#c0392b", ls=":", label="float32: half an ulp of 1")
    ax.axhline(2**-53, color="#7f8c8d", ls=":", label="float64: half an ulp of 1")
    ax.set_xlabel("gate bias b_T")
    ax.set_ylabel("largest deviation from identity")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
