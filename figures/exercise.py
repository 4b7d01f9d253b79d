"""Figure of the hands-on exercise, drawn from the loss curves the worked-solution notebook recorded."""

from __future__ import annotations

from typing import Any

from sitekit.figures import Values, figure
from sitekit.style import look

RUN = "deep_plain_mlp_degrades_on_every_seed"
LOOKS = {
    "plain, shallow": "shallow",
    "plain, deep": "plain",
    "residual, deep": "residual",
    "residual, deep, warm-up": "warm-up",
}


@figure(
    "exercise-loss-curves",
    claims=[RUN],
    caption="Training loss of the exercise's four models, one line per seed. Left: the shallow and the deep "
    "plain MLP. Right: the deep residual MLP, without and with the learning-rate warm-up.",
)
def exercise_loss_curves(values: Values) -> Any:
    import matplotlib.pyplot as plt

    v = values[RUN]
    curves = v["curves"]
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4), sharey=True)
    panels = ((axes[0], ("plain, shallow", "plain, deep")), (axes[1], ("residual, deep", "residual, deep, warm-up")))
    for ax, names in panels:
        for name in names:
            depth = v["shallow"] if name == "plain, shallow" else v["deep"]
            label = f"{name.split(',')[0]}, {depth} blocks" + (", warm-up" if "warm-up" in name else "")
            for i, losses in enumerate(curves[name]):
                kw = look(LOOKS[name]).kw(label if i == 0 else "_nolegend_", marker=False)
                ax.plot(range(1, len(losses) + 1), losses, alpha=0.8, lw=1.3, **kw)
        ax.set_yscale("log")
        ax.set_xlabel("epoch")
        ax.legend(loc="upper right")
    axes[0].set_ylabel("training MSE")
    fig.tight_layout()
    return fig
