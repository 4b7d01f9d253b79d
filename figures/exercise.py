"""Figure of the hands-on exercise, drawn from the loss curves the worked-solution notebook recorded."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

RUN = "residual_final_loss_below_plain_on_every_seed"
PLAIN = "plain_stack_ends_at_target_variance"


@figure(
    "exercise-loss-curves",
    claims=[RUN, PLAIN],
    caption="Training loss of the exercise's plain and residual stacks, one line per seed; the dashed "
    "line is the target's variance, the loss of always predicting the mean.",
)
def exercise_loss_curves(values: Values) -> Any:
    import matplotlib.pyplot as plt

    curves = values[RUN]["curves"]
    fig, ax = plt.subplots(figsize=(6.8, 3.6))
    for kind in ("plain", "residual"):
        for i, losses in enumerate(curves[kind]):
            kw = look(kind).kw(kind if i == 0 else "_nolegend_", marker=False)
            ax.plot(range(1, len(losses) + 1), losses, alpha=0.8, lw=1.5, **kw)
    neutral = look("neutral").color
    ax.axhline(values[PLAIN]["variance_median"], color=neutral, ls="--", lw=1, label="target variance (median seed)")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("training MSE")
    ax.set_title(f"{values[RUN]['depth']} blocks, {values[RUN]['seeds']} seeds")
    ax.legend(loc="upper right")  # the curves fall away from it; lower left would cover the residual runs
    fig.tight_layout()
    return fig
