"""Figures of the encyclopedia entry "The Residual Stream", drawn from the recorded depth profile."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

NORMS = "prenorm_stream_norm_grows_with_depth"
GRADS = "postnorm_gradients_are_flat_and_larger_near_the_output"


@figure(
    "prenorm-postnorm-depth-profile",
    claims=[NORMS, GRADS],
    caption="At initialisation, block by block: the pre-norm stream grows while the post-norm stream "
    "stays at the norm LayerNorm sets (left); pre-norm gradients fall from input to output while "
    "post-norm ones stay level (right).",
)
def depth_profile(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.4))
    norms, grads = values[NORMS], values[GRADS]
    for key, kind in (("median_pre", "pre-norm"), ("median_post", "post-norm")):
        kw = look(kind).kw()
        left.plot(range(len(norms[key])), norms[key], markersize=4, markevery=3, **kw)
        right.plot(range(1, len(grads[key]) + 1), grads[key], markersize=4, markevery=3, **kw)
    left.set_xlabel("block $l$ (0 = input)")
    left.set_ylabel(r"mean token norm $\|x_l\|$")
    left.set_title("Stream norm")
    right.set_xlabel("block $l$")
    right.set_ylabel(r"$\|\partial \ell / \partial W\|$, last MLP weight")
    right.set_title("Per-block gradient")
    right.set_ylim(bottom=0)
    left.legend(loc="upper left")
    fig.tight_layout()
    return fig
