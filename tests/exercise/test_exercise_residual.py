"""Claims of the exercise page about the downloadable starter file's models.

(What the starter does when run as downloaded is in test_learner.py, which runs it.)
"""

from __future__ import annotations

import inspect

import pytest
import torch

from sitekit import runs
from sitekit.margins import between
from snippets.exercise import check, learner
from snippets.exercise import exercise_residual as snippet

PAGE = "module/exercise.md"
LEARNER_CPU = "it runs the learner's own file, which trains on the CPU"
# The learner's file builds its models and data on the CPU, whatever device the suite runs on.
ON_THE_LEARNERS_CPU = "it runs the learner's own file, which builds and trains its models on the CPU, not on --device"
PUBLISHED_SEED = inspect.signature(snippet.main).parameters["seed"].default  # the seed the starter's main() uses


def he_layers(model: torch.nn.Module) -> list[torch.nn.Linear]:
    """Every Linear but the head: the layers the starter's he_init is meant to set."""
    return [m for m in model.modules() if isinstance(m, torch.nn.Linear) and m is not getattr(model, "head", None)]


@pytest.mark.claim(
    "The plain and the residual DeepMLP have the same layers and parameter count, and from one seed they start "
    "from bit-for-bit identical He-initialised weights, except the last Linear of each residual branch, which "
    "starts at zero: the shortcut and that zeroing are the only differences.",
    page=PAGE,
    cpu_only=LEARNER_CPU,
    device_independent=ON_THE_LEARNERS_CPU,
    exact="every parameter is torch.equal across the two models (bit for bit) except the zeroed ones, which are 0; "
    "every He layer's bias is 0",
)
def test_plain_and_residual_models_differ_only_by_the_shortcut(claim, seeds, tmp_path):
    # The models of the worked solution, built as the self-check builds a learner's: the starter with the
    # notebook's ResidualBlock (whose zero_last_layer is the starter's one TODO here), loaded by check.py.
    path = tmp_path / "worked_solution.py"
    path.write_text(learner.worked_solution_text(), encoding="utf-8")
    module, problem = check.load(path)
    assert module is not None, problem
    zeroed = {f"blocks.{i}.branch.5.{p}" for i in range(snippet.DEEP) for p in ("weight", "bias")}

    def same_start(plain: torch.nn.Module, residual: torch.nn.Module) -> None:
        pa, pb = list(plain.named_parameters()), list(residual.named_parameters())
        assert len(pa) == len(pb)
        for (_, a), (name, b) in zip(pa, pb, strict=True):
            assert not b.any() if name in zeroed else torch.equal(a, b), name

    def he_initialised(model: torch.nn.Module) -> None:
        # He (kaiming_normal_, fan_in, ReLU gain) draws N(0, 2 / fan_in): the second moment of the weights,
        # times fan_in / 2, pooled over every He layer (32,896 weights in the deep model) is 1 up to a
        # relative spread of about 0.8 %. The bounds are set by the inits it must not be taken for, not by
        # the value seen: LeCun's or Xavier's variance on these square layers gives 1/2, PyTorch's own
        # Linear init (uniform, a = sqrt 5) 1/6, and twice He's variance 2.
        layers = he_layers(model)
        scaled = sum(float((m.weight.detach().double() ** 2).sum()) * m.in_features / 2 for m in layers)
        pooled = scaled / sum(m.weight.numel() for m in layers)
        between("weights' second moment / (2 / fan_in), pooled over the He layers", pooled, 0.75, 1.3)
        assert all(not m.bias.any() for m in layers), "a He layer's bias is not zero"

    seed, other = seeds(2)
    # Built as the self-check builds a learner's models (torch.manual_seed(seed), then DeepMLP).
    plain, residual = (runs.run(check._make, module, snippet.DEEP, r, seed) for r in (False, True))
    claim.check(same_start, plain, residual)
    claim.check(he_initialised, plain)
    other_seed = runs.run(check._make, module, snippet.DEEP, True, other)
    claim.rejects(same_start, plain, other_seed, because="a residual model from another seed")
    default_init = runs.run(snippet.branch, snippet.WIDTH)  # the same Linear layers, before he_init
    claim.rejects(he_initialised, default_init, because="a branch as nn.Linear initialises it, without he_init")
    count = sum(p.numel() for p in residual.parameters())
    linears = sum(isinstance(m, torch.nn.Linear) for m in residual.modules())
    norms = sum(isinstance(m, torch.nn.BatchNorm1d) for m in residual.modules())
    x, y, _, _ = snippet.make_data(seed=PUBLISHED_SEED)  # the learner's data, as the starter makes it
    noise = y - torch.sin(x.norm(dim=1, keepdim=True))  # what make_data added to sin(‖x‖)
    claim.record(
        parameters=count,
        linear_layers=linears,
        batchnorm_layers=norms,
        he_layers=len(he_layers(plain)),
        deep=snippet.DEEP,
        shallow=snippet.SHALLOW,
        dim=snippet.DIM,
        width=snippet.WIDTH,
        n=snippet.N,
        noise_std=noise.std().item(),
    )


def test_self_check_uses_the_starters_data_and_configuration():
    """check.py carries its own copy (it must run without the repository): keep it the starter's."""
    assert inspect.getsource(check.make_data) == inspect.getsource(snippet.make_data)
    names = ("N", "DIM", "WIDTH", "SHALLOW", "DEEP", "EPOCHS", "LR", "WARMUP")
    assert [getattr(check, n) for n in names] == [getattr(snippet, n) for n in names]
