"""Figures of the encyclopedia entry "The Residual Stream", drawn from the recorded depth profile."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

NORMS = "prenorm_stream_norm_grows_with_depth"
GRADS = "postnorm_gradients_are_flat_and_larger_near_the_output"


@figure("prenorm-postnorm-depth-profile", claims=[NORMS, GRADS])
def depth_profile(values: Values) -> Any:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    norms, grads = values[NORMS], values[GRADS]
    for key, label, color in (("median_pre", "pre-norm", "#2c3e91"), ("median_post", "post-norm", "#c0392b")):
        left.plot(range(len(norms[key])), norms[key], "o-", ms=3, color=color, label=label)
        right.plot(range(1, len(grads[key]) + 1), grads[key], "o-", ms=3, color=color, label=label)
    left.set_xlabel("block l (0 = input)")
    left.set_ylabel("mean token norm ‖x_l‖")
    left.set_title("Stream norm at initialisation")
    right.set_xlabel("block l (input → output)")
    right.set_ylabel("‖∂loss/∂W‖, last MLP weight")
    right.set_title("Per-block gradient at initialisation")
    right.set_ylim(bottom=0)
    left.legend(loc="upper left")
    fig.tight_layout()
    return fig
