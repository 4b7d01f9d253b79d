# site: not-a-listing (notebook source: tests/exercise/test_solution.py executes it once per build)
# %% [markdown]
# # Worked solution: plain against residual, 50 blocks deep
#
# The exercise's reference solution. The site's tests execute this notebook once per build,
# and every number below comes from that run. Letters: N samples, d input and
# stream width, L depth in blocks. Both models, a 50-block plain MLP and the same MLP
# with identity shortcuts, train on five seeds; each run reports its final loss and its
# first-layer gradient norm.

# %%
import os
import time
from concurrent.futures import ThreadPoolExecutor

import matplotlib.pyplot as plt
import torch
from torch import nn

N, DIM, DEPTH, EPOCHS, LR = 1000, 64, 50, 200, 1e-3
SEEDS = range(5)
DEVICE = os.environ.get("SITE_DEVICE", "cpu")  # the site's CUDA run sets "cuda"
print(f"torch {torch.__version__} on {DEVICE}, {torch.get_num_threads()} CPU threads")

# %% [markdown]
# ## Data and models
#
# Copied unchanged from the starter file (a test keeps the two identical).


# %%
# ---- given: data and models ----
def make_data(
    seed: int, n: int = N, dim: int = DIM
) -> tuple[torch.Tensor, torch.Tensor]:
    """n points x ~ N(0, I_d) and the noisy target sin(‖x‖)."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, dim, generator=gen)  # (N, d)
    noise = 0.05 * torch.randn(n, 1, generator=gen)  # (N, 1)
    return x, torch.sin(x.norm(dim=1, keepdim=True)) + noise  # (N, 1)


def mlp_branch(width: int) -> nn.Sequential:
    """F = Linear -> ReLU -> Linear: a plain block on its own, a residual block's branch."""
    return nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))


class ResidualBlock(nn.Module):
    """y = x + F(x)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.branch = mlp_branch(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.branch(x)  # (N, d)


class DeepMLP(nn.Module):
    """input_proj, then L blocks (plain: F(x); residual: x + F(x)), then a linear head."""

    def __init__(self, depth: int, dim: int, use_residual: bool) -> None:
        super().__init__()
        self.input_proj = nn.Linear(dim, dim)
        # Same layers in the same order either way, so one seed gives both models identical weights.
        self.blocks = nn.ModuleList(
            ResidualBlock(dim) if use_residual else mlp_branch(dim)
            for _ in range(depth)
        )
        self.head = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.input_proj(x)  # (N, d)
        for block in self.blocks:
            h = block(h)  # (N, d)
        return self.head(h)  # (N, 1)


# %% [markdown]
# ## The training loop
#
# The part the exercise leaves to you. Three details matter: the gradients are cleared
# *before* each backward pass (PyTorch adds new gradients to the old ones), the gradient
# norm is read *after* `backward` and before anything clears it, and the norm is taken in
# float64, because the plain stack's first-layer gradient entries are so small that their
# squares underflow to zero in float32.
#
# One choice here is about speed, not correctness: `fused=True` makes Adam update all of the
# model's parameter tensors (a weight and a bias for each linear layer) in one call, where the
# default makes many small calls per tensor, each with Python overhead that would hold
# up the other model's thread below.


# %%
def train(
    model: nn.Module,
    x: torch.Tensor,
    target: torch.Tensor,
    epochs: int = EPOCHS,
    lr: float = LR,
) -> tuple[list[float], float]:
    """Full-batch Adam on the MSE; return each epoch's loss and the first layer's gradient norm."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, fused=True)
    mse = nn.MSELoss()
    losses: list[float] = []
    first_layer_grad_norm = float("nan")
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = mse(model(x), target)  # (N, 1) against (N, 1) -> scalar
        loss.backward()
        first_layer_grad_norm = model.input_proj.weight.grad.double().norm().item()
        optimizer.step()
        losses.append(loss.item())
    return losses, first_layer_grad_norm


# %% [markdown]
# ## Five seeds, both models side by side
#
# Each seed fixes the data and the initial weights. Both models are built from the seed
# here, one after the other, so they start from identical weights; then they train at
# the same time, each on its own thread with half of the CPU threads for its arithmetic.
# The two runs share nothing. At this size one model does not keep two cores busy (a
# 1000 × 64 by 64 × 64 product gains little from a second core), but two models do (the
# exercise page's timing table measures by how much). Besides what the exercise asks
# for, each run also records what share of its gradient entries are float32 *subnormals*
# (non-zero but below `TINY`, the smallest normal float32), which some CPUs process far
# more slowly.

# %%
TINY = torch.finfo(torch.float32).tiny  # smallest normal float32, about 1.2e-38
KINDS = ("plain", "residual")


def timed_train(model: nn.Module, x: torch.Tensor, target: torch.Tensor) -> dict:
    """train() plus its duration and what the final gradients look like."""
    start = time.perf_counter()
    losses, grad_norm = train(model, x, target)
    seconds = time.perf_counter() - start
    first = model.input_proj.weight.grad
    every = torch.cat([p.grad.flatten() for p in model.parameters()])
    return {
        "losses": losses,
        "grad_norm": grad_norm,
        "seconds": seconds,
        "threads": torch.get_num_threads(),  # as seen by this thread
        "smallest_grad": first[first != 0].abs().min().item() if first.any() else 0.0,
        "subnormal_fraction": ((every != 0) & (every.abs() < TINY))
        .float()
        .mean()
        .item(),
    }


def run_pair(seed: int) -> dict[str, dict]:
    """Build both models from one seed, then train them side by side."""
    x, target = (t.to(DEVICE) for t in make_data(seed))
    models = {}
    for kind in KINDS:
        torch.manual_seed(seed)  # same seed, same initial weights
        models[kind] = DeepMLP(DEPTH, DIM, use_residual=kind == "residual").to(DEVICE)
    threads = torch.get_num_threads()
    torch.set_num_threads(max(1, threads // len(models)))  # each model gets its share
    start = time.perf_counter()
    try:
        with ThreadPoolExecutor(max_workers=len(models)) as pool:
            futures = {
                kind: pool.submit(timed_train, model, x, target)
                for kind, model in models.items()
            }
        results = {kind: future.result() for kind, future in futures.items()}
    finally:
        torch.set_num_threads(threads)
    pair_seconds = time.perf_counter() - start
    variance = target.var(unbiased=False).item()
    return {
        kind: r | {"target_variance": variance, "pair_seconds": pair_seconds}
        for kind, r in results.items()
    }


# %%
runs = {}
for seed in SEEDS:
    pair = run_pair(seed)
    for kind, r in pair.items():
        runs[seed, kind] = r
        print(
            f"seed {seed} {kind:>8}: final loss {r['losses'][-1]:.4f} "
            f"(target variance {r['target_variance']:.4f}), "
            f"first-layer gradient norm {r['grad_norm']:.3g}, "
            f"subnormal share {r['subnormal_fraction']:.1e}, {r['seconds']:.1f} s"
        )
    print(f"seed {seed}: both models trained in {pair['plain']['pair_seconds']:.1f} s")

# %% [markdown]
# ## Loss curves

# %%
# Vector output, with a description screen readers read out in place of the picture.
ALT = (
    "Training loss against epoch on a log scale, one line per seed and model: the plain "
    "runs settle at the dashed line of the target's variance; the residual runs fall well "
    "below it."
)
SVG_OPTIONS = {"bbox_inches": "tight", "metadata": {"Date": None, "Description": ALT}}
# %config InlineBackend.figure_formats = ["svg"]
# %config InlineBackend.print_figure_kwargs = SVG_OPTIONS
try:  # the site's colours and type (sitekit/style.py) when run inside its repository
    from sitekit.style import apply, look

    apply(agg=False)
    STYLE = {kind: look(kind).kw(marker=False) for kind in ("plain", "residual")}
except ImportError:  # a downloaded copy: matplotlib's defaults
    STYLE = {"plain": {"linestyle": "--"}, "residual": {"linestyle": "-"}}

fig, ax = plt.subplots(figsize=(6.8, 3.8))
for (seed, kind), r in runs.items():
    label = kind if seed == 0 else "_nolegend_"
    ax.plot(r["losses"], alpha=0.8, lw=1.5, **{**STYLE[kind], "label": label})
ax.axhline(
    runs[0, "plain"]["target_variance"],
    color=ax.xaxis.label.get_color(),
    ls="--",
    lw=1,
    label="target variance (seed 0)",
)
ax.set_yscale("log")
ax.set_xlabel("epoch")
ax.set_ylabel("training MSE")
ax.set_title(f"{DEPTH} blocks, {len(SEEDS)} seeds")
ax.legend()
plt.show()

# %% [markdown]
# ## What the runs show
#
# - **The plain stack predicts the mean.** Within a few epochs its loss falls to the
#   variance of the target and stays there: that is the MSE of a constant prediction
#   equal to the mean of y. With PyTorch's default initialisation each plain block
#   shrinks the second moment of the signal by a constant factor, so after 50 blocks the
#   activations reaching the head are set by the biases and no longer depend on x.
#   The best a linear head can do with an input that does not vary is output the mean.
# - **The plain stack's first layer receives almost no gradient.** Its norm is many
#   orders of magnitude below the residual stack's (the next cell prints the ratio), and
#   Adam's ε in the denominator swamps gradients that small, so the
#   early layers never move.
# - **Some of the plain stack's gradients are subnormal.** The share printed for each run
#   counts gradient entries below `TINY`. Where a CPU handles those slowly, the plain run
#   takes longer than the residual one; the last cell measures whether yours does.
# - **The residual stack learns.** From the same initial weights, the shortcuts carry the
#   input forward and the gradient back, and its loss falls well below the target's
#   variance.

# %%
summary = {
    "seeds": list(SEEDS),
    "n": N,
    "dim": DIM,
    "depth": DEPTH,
    "epochs": EPOCHS,
    "threads": torch.get_num_threads(),
    "threads_per_model": runs[SEEDS[0], "plain"]["threads"],
    "pair_seconds": [runs[s, "plain"]["pair_seconds"] for s in SEEDS],
    "runs": {f"{seed}/{kind}": r for (seed, kind), r in runs.items()},
}
for kind in ("plain", "residual"):
    finals = [runs[s, kind]["losses"][-1] for s in SEEDS]
    norms = [runs[s, kind]["grad_norm"] for s in SEEDS]
    print(
        f"{kind:>8}: final losses {[round(v, 4) for v in finals]}, gradient norms "
        f"{[f'{v:.2g}' for v in norms]}"
    )
ratios = [
    runs[s, "residual"]["grad_norm"] / runs[s, "plain"]["grad_norm"] for s in SEEDS
]
print(
    f"residual / plain first-layer gradient norm: {min(ratios):.2g} to {max(ratios):.2g}"
)

# %% [markdown]
# ## Is your CPU slow on subnormal numbers?
#
# How much a subnormal costs depends on the processor, not on PyTorch. This cell times one
# multiplication on normal numbers and on the same numbers scaled below `TINY`, in
# alternation, on one CPU thread, and prints the median ratio of the two times. Near 1,
# your CPU takes subnormals at full speed. Far above 1, the plain model pays that price on
# each subnormal entry of its backward pass; `torch.set_flush_denormal(True)` at the top of
# `train()` treats them as zero instead (it acts only on the thread that calls it, and
# `train()` runs on each model's own thread).


# %%
def subnormal_slowdown(rounds: int = 31) -> float:
    """Median of (time on subnormal inputs) / (time on the same numbers at normal scale)."""
    normal = torch.rand(1000, 4096) + 0.5  # (1000, 4096), all in [0.5, 1.5)
    tiny = normal * 2.0**-130  # the same numbers, each below 1.2e-38
    assert bool(((tiny != 0) & (tiny < TINY)).all()), (
        "the scaled inputs are not subnormal"
    )
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    ratios = []
    try:
        for _ in range(rounds):
            seconds = []
            for a in (tiny, normal):
                start = time.perf_counter()
                a * 0.75  # the products are subnormal too
                seconds.append(time.perf_counter() - start)
            ratios.append(seconds[0] / seconds[1])
    finally:
        torch.set_num_threads(threads)
    return torch.tensor(ratios).median().item()  # rounds is odd: the middle one


slowdown = subnormal_slowdown()
plain_over_residual = (
    torch.tensor(
        [runs[s, "plain"]["seconds"] / runs[s, "residual"]["seconds"] for s in SEEDS]
    )
    .median()
    .item()
)
summary |= {"subnormal_slowdown": slowdown, "plain_over_residual": plain_over_residual}
print(
    f"multiplying subnormal numbers takes {slowdown:.2f}x as long as normal ones here"
)
print(
    f"the plain model trained in {plain_over_residual:.2f}x the residual model's time"
)
