# site: not-a-listing (notebook source: tests/exercise/test_solution.py executes it once per build)
# %% [markdown]
# # Worked solution: degradation, and the residual fix
#
# The exercise's reference solution. The site's tests execute this notebook once per build,
# and every number on the exercise page comes from that run. The configuration is in the
# next cell: a shallow and a deep plain MLP with BatchNorm and He initialisation, the deep
# one again with identity shortcuts, and that residual model once more with a learning-rate
# warm-up, all trained on the same data from each of several seeds.

# %%
import os
import time
from concurrent.futures import ThreadPoolExecutor

import matplotlib.pyplot as plt
import torch
from torch import nn

N, DIM, WIDTH, SHALLOW, DEEP, EPOCHS, LR, WARMUP = 1024, 4, 32, 2, 16, 100, 1e-2, 20
SEEDS = range(5)
DEVICE = os.environ.get("SITE_DEVICE", "cpu")  # the site's CUDA run sets "cuda"
print(f"torch {torch.__version__} on {DEVICE}, {torch.get_num_threads()} CPU threads")

# %% [markdown]
# ## Data and models
#
# Copied unchanged from the starter file (a test keeps the two identical). Every Linear
# layer but the head gets He initialisation, and every layer's input is normalised by
# BatchNorm: the plain model is the kind of network in which degradation was first seen.


# %%
# ---- given: data and models ----
def make_data(seed: int, n: int = N, dim: int = DIM) -> tuple[torch.Tensor, ...]:
    """n training and n held-out points x ~ N(0, I_d), with the noisy target sin(‖x‖)."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(2 * n, dim, generator=gen)  # (2N, d)
    noise = 0.05 * torch.randn(2 * n, 1, generator=gen)  # (2N, 1)
    y = torch.sin(x.norm(dim=1, keepdim=True)) + noise  # (2N, 1)
    return x[:n], y[:n], x[n:], y[n:]  # train, then held out


def branch(width: int) -> nn.Sequential:
    """BatchNorm -> ReLU -> Linear, twice: a plain block, or a residual block's branch."""
    return nn.Sequential(
        nn.BatchNorm1d(width),
        nn.ReLU(),
        nn.Linear(width, width),
        nn.BatchNorm1d(width),
        nn.ReLU(),
        nn.Linear(width, width),
    )


def he_init(model: nn.Module) -> None:
    """He initialisation for every Linear but the head: weights N(0, 2 / fan_in), biases 0."""
    for m in model.modules():
        if isinstance(m, nn.Linear) and m is not model.head:
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            nn.init.zeros_(m.bias)


class DeepMLP(nn.Module):
    """input_proj, then `depth` blocks (plain: F(x); residual: x + F(x)), then a linear head."""

    def __init__(self, depth: int, dim: int, width: int, use_residual: bool) -> None:
        super().__init__()
        self.input_proj = nn.Linear(dim, width)
        # The same layers in the same order either way: one seed, the same He-initialised weights.
        self.blocks = nn.ModuleList(
            ResidualBlock(width) if use_residual else branch(width)
            for _ in range(depth)
        )
        self.head = nn.Linear(width, 1)
        he_init(self)
        for block in self.blocks:
            if isinstance(block, ResidualBlock):
                block.zero_last_layer()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.input_proj(x)  # (N, width)
        for block in self.blocks:
            h = block(h)  # (N, width)
        return self.head(h)  # (N, 1)


# %% [markdown]
# ## The residual block
#
# The shortcut adds the block's input to its branch. Zeroing the branch's last Linear
# makes every block the identity at the start, so the deep residual model begins as the
# shallowest network there is: input layer, then head.


# %%
class ResidualBlock(nn.Module):
    """y = x + F(x), with F's last Linear zeroed so that the block starts as the identity."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.branch = branch(width)

    def zero_last_layer(self) -> None:
        """Called after he_init: make F(x) = 0 at the start."""
        nn.init.zeros_(self.branch[-1].weight)
        nn.init.zeros_(self.branch[-1].bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Not x += ...: BatchNorm keeps x for the backward pass.
        return x + self.branch(x)  # (N, width)


# %% [markdown]
# ## The training loop
#
# The warm-up sets the learning rate before each step: it rises linearly over the first
# `warmup` epochs, then stays at `lr`. The held-out error is measured after training, in
# evaluation mode (BatchNorm then uses the running statistics it gathered in training,
# not the statistics of the held-out batch) and without building a graph.
# `fused=True` makes Adam update every parameter tensor in one call; it changes the speed,
# not the result.


# %%
def train(
    model: nn.Module,
    data: tuple[torch.Tensor, ...],
    epochs: int = EPOCHS,
    lr: float = LR,
    warmup: int = 0,
) -> tuple[list[float], float]:
    """Full-batch Adam on the MSE; return each epoch's training loss and the held-out MSE."""
    x, y, x_held_out, y_held_out = data
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, fused=True)
    mse = nn.MSELoss()
    losses: list[float] = []
    model.train()
    for epoch in range(epochs):
        for group in optimizer.param_groups:
            group["lr"] = lr * min(1.0, (epoch + 1) / warmup) if warmup else lr
        optimizer.zero_grad()
        loss = mse(model(x), y)  # (N, 1) against (N, 1) -> scalar
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        held_out_mse = mse(model(x_held_out), y_held_out).item()
    return losses, held_out_mse


# %% [markdown]
# ## Every model on every seed
#
# Each seed fixes the data and the initial weights; every model is built from the seed, so
# the plain and the residual deep models start from the same weights except for the
# zeroed last layers. The models train two at a time, each on its own thread with its share
# of the CPU threads (the Measured costs page times this against the alternatives).

# %%
RUNS = {  # name -> (depth, residual?, warm-up epochs)
    "plain, shallow": (SHALLOW, False, 0),
    "plain, deep": (DEEP, False, 0),
    "residual, deep": (DEEP, True, 0),
    "residual, deep, warm-up": (DEEP, True, WARMUP),
}
PAIR = (
    "plain, deep",
    "residual, deep",
)  # the two models that differ only by the shortcut


def timed_train(model: nn.Module, data: tuple, warmup: int) -> dict:
    """train() plus its duration."""
    start = time.perf_counter()
    losses, held_out = train(model, data, warmup=warmup)
    return {
        "losses": losses,
        "held_out": held_out,
        "seconds": time.perf_counter() - start,
    }


def train_side_by_side(seed: int, names) -> dict[str, dict]:
    """Build the named models from one seed, then train them two at a time."""
    data = tuple(t.to(DEVICE) for t in make_data(seed))
    models = {}
    for name in names:
        depth, residual, _ = RUNS[name]
        torch.manual_seed(seed)  # same seed, same initial weights
        models[name] = DeepMLP(depth, DIM, WIDTH, use_residual=residual).to(DEVICE)
    threads = torch.get_num_threads()
    torch.set_num_threads(
        max(1, threads // 2)
    )  # each of the two threads gets its share
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            futures = {
                name: pool.submit(timed_train, model, data, RUNS[name][2])
                for name, model in models.items()
            }
        results = {name: future.result() for name, future in futures.items()}
    finally:
        torch.set_num_threads(threads)
    variance = data[3].var(unbiased=False).item()
    return {name: r | {"held_out_variance": variance} for name, r in results.items()}


# %%
runs = {}
for seed in SEEDS:
    for name, r in train_side_by_side(seed, RUNS).items():
        runs[seed, name] = r
        losses = r["losses"]
        print(
            f"seed {seed} {name:>24}: training loss {losses[0]:.4f} -> {losses[-1]:.4f} "
            f"(highest in the first {WARMUP} epochs {max(losses[1:WARMUP]):.4f}), "
            f"held-out MSE {r['held_out']:.4f}"
        )

# %% [markdown]
# ## Loss curves

# %%
# Vector output, with a description screen readers read out in place of the picture.
ALT = (
    "Training loss against epoch on a log scale, one line per seed and model: the deep plain "
    "runs end above the shallow ones; the deep residual runs without warm-up jump far above "
    "their starting loss in the first epochs, those with warm-up do not, and both end far "
    "below the deep plain runs."
)
SVG_OPTIONS = {"bbox_inches": "tight", "metadata": {"Date": None, "Description": ALT}}
# %config InlineBackend.figure_formats = ["svg"]
# %config InlineBackend.print_figure_kwargs = SVG_OPTIONS
LOOKS = {
    "plain, shallow": "shallow",
    "plain, deep": "plain",
    "residual, deep": "residual",
    "residual, deep, warm-up": "warm-up",
}
try:  # the site's colours and type (sitekit/style.py) when run inside its repository
    from sitekit.style import apply, look

    apply(agg=False)
    STYLE = {name: look(key).kw(marker=False) for name, key in LOOKS.items()}
except (ImportError, KeyError):  # a downloaded copy: matplotlib's defaults
    STYLE = {
        name: {"linestyle": ls}
        for name, ls in zip(RUNS, ("-", "--", ":", "-."), strict=True)
    }

# Drawn at the width of a phone's column, so its text stays legible there; the legend goes
# under the axes.
fig, ax = plt.subplots(figsize=(4.6, 4.4), layout="constrained")
for (seed, name), r in runs.items():
    label = name if seed == SEEDS[0] else "_nolegend_"
    ax.plot(r["losses"], alpha=0.8, lw=1.5, **{**STYLE[name], "label": label})
ax.set_yscale("log")
# Ticks as plain decimals: a power of ten would print its exponent in small type.
ax.yaxis.set_major_formatter(lambda v, _: f"{v:g}")
ax.set_xlabel("epoch")
ax.set_ylabel("training MSE")
ax.set_title(f"{SHALLOW} and {DEEP} blocks, {len(SEEDS)} seeds")
fig.legend(loc="outside lower center", ncols=2)
plt.show()

# %% [markdown]
# ## What the runs show
#
# - **Degradation.** The deep plain model ends with a higher training loss than the shallow
#   one, and a higher held-out error too: it is not overfitting, it fits its own training
#   data worse, although BatchNorm keeps every layer's input normalised and He
#   initialisation sets its scale.
# - **The shortcut removes most of it.** The deep residual model starts as the identity and
#   ends far below the deep plain model on both errors. Without warm-up its training loss
#   still ends above the shallow model's: compare their final losses above.
# - **The early spike.** Without warm-up the residual model's loss jumps far above its
#   starting value in the first epochs: Adam's first steps move every weight of every zeroed
#   last layer by about the learning rate, and all of those branches write into the one
#   stream, so their changes add up. The warm-up keeps the first steps small, and the jump
#   goes away.

# %%
summary = {
    "seeds": list(SEEDS),
    "n": N,
    "dim": DIM,
    "width": WIDTH,
    "shallow": SHALLOW,
    "deep": DEEP,
    "epochs": EPOCHS,
    "lr": LR,
    "warmup": WARMUP,
    "names": list(RUNS),
    "threads": torch.get_num_threads(),
    "runs": {f"{seed}/{name}": r for (seed, name), r in runs.items()},
}
for name in RUNS:
    finals = [runs[s, name]["losses"][-1] for s in SEEDS]
    held = [runs[s, name]["held_out"] for s in SEEDS]
    print(
        f"{name:>24}: final training losses {[round(v, 4) for v in finals]}, "
        f"held-out MSE {[round(v, 4) for v in held]}"
    )
