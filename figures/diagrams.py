"""Block diagrams of the listings, each checked against the module it depicts (sitekit/diagram.py).

Node names are the ones `torch.fx` gives the listing's operations when it traces the module; the
build traces every module again and refuses a diagram whose nodes or arrows differ from it.
"""

from __future__ import annotations

from typing import Any

from sitekit.diagram import Diagram, Node, Panel, svg
from sitekit.figures import Values, figure, stacked


def _residual_block() -> Any:
    from snippets.residual_block.identity_shortcut import ResidualBlock

    return ResidualBlock(8)


def _projection_block() -> Any:
    from snippets.residual_block.projection_shortcut import ProjectionBlock

    return ProjectionBlock(8, 16)


def _post_act() -> Any:
    from snippets.residual_block.pre_activation import PostActBlock

    return PostActBlock(8)


def _pre_act() -> Any:
    from snippets.residual_block.pre_activation import PreActBlock

    return PreActBlock(8)


def _stream() -> Any:
    from torch import nn

    from snippets.residual_block.identity_shortcut import ResidualBlock
    from snippets.residual_stream.running_sum import run_stream

    class Stream(nn.Module):
        """Three blocks run by the listing's run_stream: the stream they read from and add to."""

        def __init__(self) -> None:
            super().__init__()
            self.blocks = nn.ModuleList(ResidualBlock(8) for _ in range(3))

        def forward(self, x: Any) -> Any:
            return run_stream(list(self.blocks), x)[0]

    return Stream()


def _highway() -> Any:
    from snippets.skip_patterns.highway import HighwayBlock

    return HighwayBlock(8)


def _dense() -> Any:
    from snippets.skip_patterns.dense_concat import DenseStack

    return DenseStack(8, 4, depth=2)


def _pre_norm() -> Any:
    from snippets.encyclopedia.transformer_block import PreNormBlock

    return PreNormBlock(8, 2)


def _post_norm() -> Any:
    from snippets.encyclopedia.transformer_block import PostNormBlock

    return PostNormBlock(8, 2)


def _block_panel(title: str, source: str, build: Any, shortcut: Node) -> Panel:
    return Panel(
        title,
        source,
        build,
        nodes=(
            Node("x", "input", "x", 0, 0),
            shortcut,
            Node("branch_0", "Linear", "Linear", 1, 1),
            Node("branch_1", "ReLU", "ReLU", 1, 2),
            Node("branch_2", "Linear", "Linear", 1, 3),
            Node("add", "add", "+", 0, 4),
            Node("output", "output", "y", 0, 5),
        ),
        edges=(
            ("x", "shortcut"),
            ("x", "branch_0"),
            ("branch_0", "branch_1"),
            ("branch_1", "branch_2"),
            ("shortcut", "add"),
            ("branch_2", "add"),
            ("add", "output"),
        ),
        stream=("x", "shortcut", "add", "output"),
    )


RESIDUAL_BLOCK = Diagram(
    "residual-block-diagram",
    "A residual block, with an identity and with a projection shortcut",
    "Two block diagrams. Left: the input x goes down the shortcut unchanged and, in parallel, through "
    "the branch Linear, ReLU, Linear; the two meet at an addition that gives y. Right: the same, except "
    "that the shortcut is a Linear layer (the projection W_s) so that y can have a different width.",
    (
        _block_panel(
            "identity shortcut",
            "snippets/residual_block/identity_shortcut.py",
            _residual_block,
            Node("shortcut", "Identity", "identity", 0, 2, "residual"),
        ),
        _block_panel(
            "projection shortcut",
            "snippets/residual_block/projection_shortcut.py",
            _projection_block,
            Node("shortcut", "Linear", "Linear (Wₛ)", 0, 2, "residual"),
        ),
    ),
)

PRE_POST_ACTIVATION = Diagram(
    "pre-post-activation-diagram",
    "Post-activation against pre-activation order",
    "Two block diagrams. Left, post-activation: the branch is Linear, BatchNorm, ReLU, Linear, "
    "BatchNorm; after the addition a ReLU sits on the stream itself. Right, pre-activation: the branch "
    "is BatchNorm, ReLU, Linear, BatchNorm, ReLU, Linear, and nothing follows the addition, so the "
    "stream passes from x to y untouched.",
    (
        Panel(
            "post-activation (2015)",
            "snippets/residual_block/pre_activation.py",
            _post_act,
            nodes=(
                Node("x", "input", "x", 0, 0),
                Node("shortcut", "Identity", "identity", 0, 3, "residual"),
                Node("branch_0", "Linear", "Linear", 1, 1),
                Node("branch_1", "BatchNorm1d", "BatchNorm", 1, 2),
                Node("branch_2", "ReLU", "ReLU", 1, 3),
                Node("branch_3", "Linear", "Linear", 1, 4),
                Node("branch_4", "BatchNorm1d", "BatchNorm", 1, 5),
                Node("add", "add", "+", 0, 6),
                Node("relu", "relu", "ReLU", 0, 7, "plain"),
                Node("output", "output", "y", 0, 8),
            ),
            edges=(
                ("x", "shortcut"),
                ("x", "branch_0"),
                ("branch_0", "branch_1"),
                ("branch_1", "branch_2"),
                ("branch_2", "branch_3"),
                ("branch_3", "branch_4"),
                ("shortcut", "add"),
                ("branch_4", "add"),
                ("add", "relu"),
                ("relu", "output"),
            ),
            stream=("x", "shortcut", "add", "relu", "output"),
        ),
        Panel(
            "pre-activation (2016)",
            "snippets/residual_block/pre_activation.py",
            _pre_act,
            nodes=(
                Node("x", "input", "x", 0, 0),
                Node("shortcut", "Identity", "identity", 0, 3, "residual"),
                Node("branch_0", "BatchNorm1d", "BatchNorm", 1, 1),
                Node("branch_1", "ReLU", "ReLU", 1, 2),
                Node("branch_2", "Linear", "Linear", 1, 3),
                Node("branch_3", "BatchNorm1d", "BatchNorm", 1, 4),
                Node("branch_4", "ReLU", "ReLU", 1, 5),
                Node("branch_5", "Linear", "Linear", 1, 6),
                Node("add", "add", "+", 0, 7),
                Node("output", "output", "y", 0, 8),
            ),
            edges=(
                ("x", "shortcut"),
                ("x", "branch_0"),
                ("branch_0", "branch_1"),
                ("branch_1", "branch_2"),
                ("branch_2", "branch_3"),
                ("branch_3", "branch_4"),
                ("branch_4", "branch_5"),
                ("shortcut", "add"),
                ("branch_5", "add"),
                ("add", "output"),
            ),
            stream=("x", "shortcut", "add", "output"),
        ),
    ),
)

STREAM = Diagram(
    "residual-stream-bus-diagram",
    "The residual stream as a bus",
    "The stream runs left to right from x to h_3 through three additions. Above it sit the branches "
    "F_1, F_2 and F_3; each reads the stream just before its addition and writes its output into that "
    "addition, so every write stays in the stream and is summed with all the others.",
    (
        Panel(
            "three blocks run by run_stream()",
            "snippets/residual_stream/running_sum.py",
            _stream,
            nodes=(
                Node("x", "input", "x", 0, 1),
                Node("blocks_0_branch", "Sequential", "F₁", 1, 0),
                Node("add", "add", "+", 2, 1),
                Node("blocks_1_branch", "Sequential", "F₂", 3, 0),
                Node("add_1", "add", "+", 4, 1),
                Node("blocks_2_branch", "Sequential", "F₃", 5, 0),
                Node("add_2", "add", "+", 6, 1),
                Node("output", "output", "h₃", 7, 1),
            ),
            edges=(
                ("x", "blocks_0_branch"),
                ("x", "add"),
                ("blocks_0_branch", "add", "hv"),
                ("add", "blocks_1_branch"),
                ("add", "add_1"),
                ("blocks_1_branch", "add_1", "hv"),
                ("add_1", "blocks_2_branch"),
                ("add_1", "add_2"),
                ("blocks_2_branch", "add_2", "hv"),
                ("add_2", "output"),
            ),
            leaves=("Sequential",),
            stream=("x", "add", "add_1", "add_2", "output"),
            col=76.0,
        ),
    ),
    narrow=(  # the bus turned upright: a phone's column is too narrow for eight steps side by side
        Panel(
            "three blocks run by run_stream()",
            "snippets/residual_stream/running_sum.py",
            _stream,
            nodes=(
                Node("x", "input", "x", 0, 0),
                Node("blocks_0_branch", "Sequential", "F₁", 1, 1),
                Node("add", "add", "+", 0, 2),
                Node("blocks_1_branch", "Sequential", "F₂", 1, 3),
                Node("add_1", "add", "+", 0, 4),
                Node("blocks_2_branch", "Sequential", "F₃", 1, 5),
                Node("add_2", "add", "+", 0, 6),
                Node("output", "output", "h₃", 0, 7),
            ),
            edges=(
                ("x", "blocks_0_branch", "vh"),  # each branch reads the stream below the last addition
                ("x", "add"),
                ("blocks_0_branch", "add"),
                ("add", "blocks_1_branch", "vh"),
                ("add", "add_1"),
                ("blocks_1_branch", "add_1"),
                ("add_1", "blocks_2_branch", "vh"),
                ("add_1", "add_2"),
                ("blocks_2_branch", "add_2"),
                ("add_2", "output"),
            ),
            leaves=("Sequential",),
            stream=("x", "add", "add_1", "add_2", "output"),
            col=112.0,
        ),
    ),
    narrow_desc="The stream runs down from x to h_3 through three additions. Beside it sit the branches "
    "F_1, F_2 and F_3; each reads the stream just before its addition and writes its output into that "
    "addition, so every write stays in the stream and is summed with all the others.",
)

HIGHWAY_DENSE = Diagram(
    "highway-dense-diagram",
    "A highway gate against DenseNet's concatenation",
    "Top: a highway block. From x, a branch H (Linear, ReLU) and a gate (Linear, then a sigmoid giving "
    "T) run in parallel; H is multiplied by T, the shortcut x by 1 − T, and the two products are "
    "added to give y. Bottom: a two-layer dense stack. x is concatenated, passed through a layer, and "
    "every later concatenation takes x and every earlier layer's output, so the output is the "
    "concatenation of all of them.",
    (
        Panel(
            "highway block",
            "snippets/skip_patterns/highway.py",
            _highway,
            nodes=(
                Node("x", "input", "x", 0, 0),
                Node("shortcut", "Identity", "identity", 0, 2, "residual"),
                Node("branch_0", "Linear", "Linear (H)", 1, 1),
                Node("branch_1", "ReLU", "ReLU", 1, 2),
                Node("gate", "Linear", "Linear (gate)", 2, 1, "highway"),
                Node("sigmoid", "sigmoid", "σ → T", 2, 2, "highway"),
                Node("mul", "mul", "×", 1, 3),
                Node("sub", "sub", "1 − T", 3, 3, "highway"),
                Node("mul_1", "mul", "×", 0, 4),
                Node("add", "add", "+", 0, 5),
                Node("output", "output", "y", 0, 6),
            ),
            edges=(
                ("x", "shortcut"),
                ("x", "branch_0"),
                ("x", "gate"),
                ("branch_0", "branch_1"),
                ("gate", "sigmoid"),
                ("sigmoid", "mul"),
                ("branch_1", "mul"),
                ("sigmoid", "sub", "hv"),
                ("shortcut", "mul_1"),
                ("sub", "mul_1"),
                ("mul", "add"),
                ("mul_1", "add"),
                ("add", "output"),
            ),
            stream=("x", "shortcut", "mul_1", "add", "output"),
        ),
        Panel(
            "dense stack, two layers",
            "snippets/skip_patterns/dense_concat.py",
            _dense,
            nodes=(
                Node("x", "input", "x", 0, 0),
                Node("cat", "cat", "concat", 1, 0, "dense"),
                Node("layers_0", "Sequential", "Linear, ReLU", 2, 0),
                Node("cat_1", "cat", "concat", 3, 0, "dense"),
                Node("layers_1", "Sequential", "Linear, ReLU", 4, 0),
                Node("cat_2", "cat", "concat", 5, 0, "dense"),
                Node("output", "output", "y", 6, 0),
            ),
            edges=(
                ("x", "cat"),
                ("cat", "layers_0"),
                ("layers_0", "cat_1"),
                ("x", "cat_1", "arc"),
                ("cat_1", "layers_1"),
                ("layers_1", "cat_2"),
                ("x", "cat_2", "arc"),
                ("layers_0", "cat_2", "arc"),
                ("cat_2", "output"),
            ),
            leaves=("layers.0", "layers.1"),
            col=96.0,
        ),
    ),
    narrow=(  # the dense row turned into a column, its skips round its left side
        Panel(
            "highway block",
            "snippets/skip_patterns/highway.py",
            _highway,
            nodes=(
                Node("x", "input", "x", 0, 0),
                Node("shortcut", "Identity", "identity", 0, 2, "residual"),
                Node("branch_0", "Linear", "Linear (H)", 1, 1),
                Node("branch_1", "ReLU", "ReLU", 1, 2),
                Node("gate", "Linear", "Linear (gate)", 2, 1, "highway"),
                Node("sigmoid", "sigmoid", "σ → T", 2, 2, "highway"),
                Node("mul", "mul", "×", 1, 3),
                Node("sub", "sub", "1 − T", 3, 3, "highway"),
                Node("mul_1", "mul", "×", 0, 4),
                Node("add", "add", "+", 0, 5),
                Node("output", "output", "y", 0, 6),
            ),
            edges=(
                ("x", "shortcut"),
                ("x", "branch_0"),
                ("x", "gate"),
                ("branch_0", "branch_1"),
                ("gate", "sigmoid"),
                ("sigmoid", "mul"),
                ("branch_1", "mul"),
                ("sigmoid", "sub", "hv"),
                ("shortcut", "mul_1"),
                ("sub", "mul_1"),
                ("mul", "add"),
                ("mul_1", "add"),
                ("add", "output"),
            ),
            stream=("x", "shortcut", "mul_1", "add", "output"),
            col=92.0,  # the widest label pair side by side still clears by a pixel
        ),
        Panel(
            "dense stack, two layers",
            "snippets/skip_patterns/dense_concat.py",
            _dense,
            nodes=(
                Node("x", "input", "x", 0, 0),
                Node("cat", "cat", "concat", 0, 1, "dense"),
                Node("layers_0", "Sequential", "Linear, ReLU", 0, 2),
                Node("cat_1", "cat", "concat", 0, 3, "dense"),
                Node("layers_1", "Sequential", "Linear, ReLU", 0, 4),
                Node("cat_2", "cat", "concat", 0, 5, "dense"),
                Node("output", "output", "y", 0, 6),
            ),
            edges=(
                ("x", "cat"),
                ("cat", "layers_0"),
                ("layers_0", "cat_1"),
                ("x", "cat_1", "side"),
                ("cat_1", "layers_1"),
                ("layers_1", "cat_2"),
                ("x", "cat_2", "side"),
                ("layers_0", "cat_2", "side"),
                ("cat_2", "output"),
            ),
            leaves=("layers.0", "layers.1"),
            col=96.0,
        ),
    ),
    direction="column",
)

TRANSFORMER = Diagram(
    "prenorm-postnorm-diagram",
    "The pre-norm against the post-norm transformer block",
    "Two block diagrams. Left, pre-norm: x passes down the stream through two additions untouched; "
    "each sublayer (attention, then the MLP) reads a LayerNorm of the stream and adds its output back. "
    "Right, post-norm: attention reads the stream itself, and a LayerNorm follows each addition on the "
    "stream, so the stream is rescaled twice per block.",
    (
        Panel(
            "pre-norm",
            "snippets/encyclopedia/transformer_block.py",
            _pre_norm,
            nodes=(
                Node("x", "input", "x", 0, 0),
                Node("norm1", "LayerNorm", "LayerNorm", 1, 1, "pre-norm"),
                Node("attn", "CausalSelfAttention", "attention", 1, 2),
                Node("add", "add", "+", 0, 3),
                Node("norm2", "LayerNorm", "LayerNorm", 1, 4, "pre-norm"),
                Node("mlp", "MLP", "MLP", 1, 5),
                Node("add_1", "add", "+", 0, 6),
                Node("output", "output", "y", 0, 7),
            ),
            edges=(
                ("x", "norm1"),
                ("x", "add"),
                ("norm1", "attn"),
                ("attn", "add"),
                ("add", "norm2", "vh"),
                ("add", "add_1"),
                ("norm2", "mlp"),
                ("mlp", "add_1"),
                ("add_1", "output"),
            ),
            leaves=("CausalSelfAttention", "MLP"),
            stream=("x", "add", "add_1", "output"),
        ),
        Panel(
            "post-norm",
            "snippets/encyclopedia/transformer_block.py",
            _post_norm,
            nodes=(
                Node("x", "input", "x", 0, 0),
                Node("attn", "CausalSelfAttention", "attention", 1, 1),
                Node("add", "add", "+", 0, 2),
                Node("norm1", "LayerNorm", "LayerNorm", 0, 3, "post-norm"),
                Node("mlp", "MLP", "MLP", 1, 4),
                Node("add_1", "add", "+", 0, 5),
                Node("norm2", "LayerNorm", "LayerNorm", 0, 6, "post-norm"),
                Node("output", "output", "y", 0, 7),
            ),
            edges=(
                ("x", "attn"),
                ("x", "add"),
                ("attn", "add"),
                ("add", "norm1"),
                ("norm1", "mlp", "vh"),
                ("norm1", "add_1"),
                ("mlp", "add_1"),
                ("add_1", "norm2"),
                ("norm2", "output"),
            ),
            leaves=("CausalSelfAttention", "MLP"),
            stream=("x", "add", "norm1", "add_1", "norm2", "output"),
        ),
    ),
)

DIAGRAMS = (RESIDUAL_BLOCK, PRE_POST_ACTIVATION, STREAM, HIGHWAY_DENSE, TRANSFORMER)


def _register(d: Diagram) -> None:
    phone = d.for_phone()
    side_by_side = d.direction == "row" and len(d.panels) > 1  # the phone stacks them: "left" reads "top"

    def narrow(values: Values) -> str:  # for a phone's column (Diagram.for_phone)
        assert phone is not None
        drawn = svg(phone)
        return stacked(drawn.encode()).decode() if side_by_side else drawn

    @figure(d.name, claims=[], caption=d.title + ".", narrow=narrow if phone is not None else None)
    def draw(values: Values) -> str:
        return svg(d)


for _d in DIAGRAMS:
    _register(_d)
