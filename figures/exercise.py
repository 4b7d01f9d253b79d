"""Figure of the hands-on exercise, drawn from the loss curves the worked-solution notebook recorded."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure

RUN = "residual_final_loss_below_plain_on_every_seed"
PLAIN = "plain_stack_ends_at_target_variance"


@figure("exercise-loss-curves", claims=[RUN, PLAIN])
def exercise_loss_curves(values: Values) -> Any:
    import matplotlib.pyplot as plt

    curves = values[RUN]["curves"]
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    for kind, color in (("plain", "#c0392b"), ("residual", "#2c3e91")):
        for i, losses in enumerate(curves[kind]):
            ax.plot(range(1, len(losses) + 1), losses, color=color, alpha=0.75, lw=1.5, label=kind if i == 0 else None)
    ax.axhline(values[PLAIN]["variance_median"], color="grey", ls="--", lw=1, label="target variance (median seed)")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("training MSE")
    ax.set_title(f"{values[RUN]['depth']} blocks, {values[RUN]['seeds']} seeds")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig
