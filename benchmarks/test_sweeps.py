"""The sweeps behind the Measured costs and depth-versus-width pages; `nox -s bench` writes them to results/."""

from snippets.costs import add_share, denormals, depth_width, exercise_pair, resnet_latency, stacked_seeds


def test_add_share(bench):
    values = bench("add_share", add_share.sweep)
    assert values["table"]["rows"]


def test_depth_width(bench):
    values = bench("depth_width", depth_width.sweep)
    assert values["table"]["rows"]


def test_denormals(bench):
    values = bench("denormals", denormals.sweep)
    assert values["table"]["rows"]


def test_exercise_pair(bench):
    values = bench("exercise_pair", exercise_pair.sweep)
    assert values["table"]["rows"]


def test_resnet_latency(bench):
    values = bench("resnet_latency", resnet_latency.sweep)
    assert values["table"]["rows"]


def test_stacked_seeds(bench):
    values = bench("stacked_seeds", stacked_seeds.sweep_stack)
    assert values["table"]["rows"]
