"""Does the suite kill the obvious bugs? Each mutant edits one snippet; count the claims that then fail.

    .nox/site/bin/python scripts/mutants.py                 # every mutant -> results/mutants-cpu.json
    .nox/site/bin/python scripts/mutants.py post-norm       # only the named ones (the record is not written)

A mutant is an exact edit of one snippet: the old text must occur there exactly once, else the script
stops (a snippet was edited: update the mutant). For each mutant, a scratch copy of the working tree
(tracked and untracked, not ignored, files; .nox linked to the shared environment) gets the current CPU
records (results/cpu.json) and the edit, and the claims run as `nox -s tests` runs them: with --reuse, so
only the claim files whose fingerprint the edit changed run again, on every core. A claim that then
fails or errors is a kill (a file that does not even collect fails all its claims). A first run without
any edit checks that nothing re-runs and nothing fails, so that every failure below is the mutant's.

Every listing a page includes has at least one mutant (tests/contract/test_mutants.py checks that each
edit applies inside its listing's section). Kills are counted apart by kind:

- `check`: a claim's own check failed on the mutant (what the mutant is there to show);
- `stale`: the pipeline's staleness guard refused a committed benchmark sweep that hashes the edited
  snippet (the mutant was caught, but not by a claim's check);
- `diagram`: a diagram's contract (tests/contract/test_figures.py) found the listing no longer matches
  the diagram drawn from it.

A mutant that no claim's own check kills is reported as a survivor: its listing's claims do not see
that bug. Not run by CI (minutes per mutant); run it after changing a core snippet or a claim's check.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "results" / "mutants-cpu.json"


@dataclass(frozen=True)
class Mutant:
    """One bug, as an exact edit of one file."""

    name: str
    description: str
    file: str
    old: str
    new: str
    listing: str = ""  # the section the edit is inside ("block" for `# --8<-- [start:block]`)


MUTANTS = (
    Mutant(
        "remove-shortcut",
        "the residual block returns F(x): its identity shortcut is gone",
        "snippets/residual_block/identity_shortcut.py",
        "return self.shortcut(x) + self.branch(x)  # (N, d)",
        "return self.branch(x)  # (N, d)",
        listing="block",
    ),
    Mutant(
        "remove-shortcut-transformer",
        "the transformer block's attention update replaces the stream instead of adding to it",
        "snippets/encyclopedia/transformer_block.py",
        "x = x + self.attn(self.norm1(x))  # (B, T, d)",
        "x = self.attn(self.norm1(x))  # (B, T, d)",
        listing="prenorm",
    ),
    Mutant(
        "post-norm",
        "the pre-norm block normalises after the addition (post-norm placement)",
        "snippets/residual_stream/prenorm.py",
        "return self.shortcut(x) + self.branch(self.norm(x))  # (N, d)",
        "return self.norm(self.shortcut(x) + self.branch(x))  # (N, d)",
        listing="blocks",
    ),
    Mutant(
        "post-norm-transformer",
        "the pre-norm transformer block normalises after each addition",
        "snippets/encyclopedia/transformer_block.py",
        "x = x + self.attn(self.norm1(x))  # (B, T, d)\n        x = x + self.mlp(self.norm2(x))  # (B, T, d)",
        "x = self.norm1(x + self.attn(x))  # (B, T, d)\n        x = self.norm2(x + self.mlp(x))  # (B, T, d)",
        listing="prenorm",
    ),
    Mutant(
        "skip-zero-init",
        "zero_branch leaves the branch's last layer (W2 and bias, or BN's γ and β) as initialised",
        "snippets/residual_block/pre_activation.py",
        "    for p in block.branch[-1].parameters():\n        nn.init.zeros_(p)\n    return block",
        "    return block",
        listing="zero",
    ),
    Mutant(
        "skip-zero-init-rezero",
        "ReZero's α starts at 1 instead of 0",
        "snippets/initialisation/rezero.py",
        "self.alpha = nn.Parameter(torch.zeros(()))",
        "self.alpha = nn.Parameter(torch.ones(()))",
        listing="block",
    ),
    Mutant(
        "skip-zero-init-transformer",
        "zero_output_projections leaves the transformer's output projections as initialised",
        "snippets/encyclopedia/transformer_block.py",
        "        nn.init.zeros_(layer.weight)\n        nn.init.zeros_(layer.bias)\n",
        "        pass\n",
    ),
    Mutant(
        "drop-projection",
        "the block that changes width gets an identity shortcut instead of its projection",
        "snippets/residual_block/projection_shortcut.py",
        "self.shortcut = nn.Linear(d_in, d_out, bias=False)  # (N, d_out)",
        "self.shortcut = nn.Identity()  # (N, d_out)",
        listing="block",
    ),
    Mutant(
        "drop-projection-resnet",
        "the ResNets' bottleneck keeps an identity shortcut where the shape changes (no 1×1 projection)",
        "snippets/depth_width/resnet.py",
        "self.shortcut = nn.Identity() if same else projection",
        "self.shortcut = nn.Identity()",
        listing="bottleneck",
    ),
    # skip patterns and common mistakes
    Mutant(
        "highway-gate-swapped",
        "the highway block gates the carry with T and the transform with 1 − T (the two swapped)",
        "snippets/skip_patterns/highway.py",
        "return t * self.branch(x) + (1 - t) * self.shortcut(x)",
        "return (1 - t) * self.branch(x) + t * self.shortcut(x)",
        listing="block",
    ),
    Mutant(
        "highway-deviation-drops-x",
        "the predicted deviation from the identity is T·H(x), leaving out the −x of y − x = T·(H(x) − x)",
        "snippets/skip_patterns/highway.py",
        "predicted = (t * (block.branch(x) - x)).abs().max().item()",
        "predicted = (t * block.branch(x)).abs().max().item()",
        listing="closing",
    ),
    Mutant(
        "highway-carry-keeps-gate-weight",
        "carry_only keeps the gate's weight W_T and zeroes its bias b_T (the wrong gate parameter kept)",
        "snippets/skip_patterns/highway_depth.py",
        'if not name.endswith("gate.bias"):',
        'if not name.endswith("gate.weight"):',
        listing="carry",
    ),
    Mutant(
        "highway-split-carry-t",
        "the hand-derived carry path is g·T instead of g·(1 − T)",
        "snippets/skip_patterns/highway_gradient.py",
        '"carry": g * (1 - t),',
        '"carry": g * t,',
        listing="split",
    ),
    Mutant(
        "dense-output-drops-input",
        "the dense stack returns only the features its layers added, without the input's k0",
        "snippets/skip_patterns/dense_concat.py",
        "return torch.cat(features, dim=-1)  # (N, k0 + L·k)",
        "return torch.cat(features[1:], dim=-1)  # (N, k0 + L·k)",
        listing="stack",
    ),
    Mutant(
        "dense-saved-counts-weights",
        "saved_bytes no longer leaves out the parameters: the weights autograd saves count as activations",
        "snippets/skip_patterns/dense_concat.py",
        "weights = {p.untyped_storage().data_ptr() for p in model.parameters()}",
        "weights: set[int] = set()",
        listing="saved",
    ),
    Mutant(
        "dense-predicted-off-by-one",
        "the dense formula counts layer i's input as k0 + i·k for i = 1 … L instead of 0 … L − 1",
        "snippets/skip_patterns/dense_concat.py",
        "widths = sum(k0 + i * k for i in range(depth)) + depth * k",
        "widths = sum(k0 + i * k for i in range(1, depth + 1)) + depth * k",
        listing="predicted",
    ),
    Mutant(
        "inplace-fix-adds-in-place",
        "the out-of-place reference block adds in place after all (x.add_)",
        "snippets/mistakes/inplace_add.py",
        "return x + self.branch(x)  # (N, d)",
        "return x.add_(self.branch(x))  # (N, d)",
        listing="blocks",
    ),
    Mutant(
        "inplace-run-frozen-params",
        "run asks autograd for the gradients of frozen parameters too (no requires_grad filter)",
        "snippets/mistakes/inplace_add.py",
        "params = [p for p in [*stem.parameters(), *block.parameters()] if p.requires_grad]",
        "params = [*stem.parameters(), *block.parameters()]",
        listing="run",
    ),
    Mutant(
        "he-init-linear-gain",
        "He init with the linear gain (variance 1/fan_in) instead of ReLU's 2/fan_in",
        "snippets/mistakes/large_init.py",
        'nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")',
        'nn.init.kaiming_normal_(layer.weight, nonlinearity="linear")',
        listing="growth",
    ),
    Mutant(
        "growth-energy-not-norm",
        "the predicted growth is the energy's (1 + ρ²)^L, not the norm's (1 + ρ²)^(L/2)",
        "snippets/mistakes/large_init.py",
        "return (1 + rho2) ** (depth / 2)",
        "return (1 + rho2) ** depth",
        listing="predict",
    ),
    Mutant(
        "first-step-weight-not-grad",
        "first_step_gradients reports the weights' norms instead of their gradients'",
        "snippets/mistakes/large_init.py",
        "m.weight.grad.norm().item() for m in block.branch",
        "m.weight.norm().item() for m in block.branch",
        listing="learns",
    ),
    Mutant(
        "norm-on-shortcut-is-prenorm",
        "the mistaken block puts its LayerNorm in front of the branch (the pre-norm fix, not the mistake)",
        "snippets/mistakes/norm_on_shortcut.py",
        "return self.shortcut(x) + self.branch(x)  # (N, d)",
        "return x + self.branch(self.shortcut(x))  # (N, d)",
        listing="block",
    ),
    Mutant(
        "jacobian-symmetrised-unhalved",
        "the Jacobian is symmetrised as J + Jᵀ without halving: every eigenvalue doubles",
        "snippets/mistakes/norm_on_shortcut.py",
        "torch.linalg.eigvalsh((J + J.T) / 2)",
        "torch.linalg.eigvalsh(J + J.T)",
        listing="jacobian",
    ),
    Mutant(
        "stack-loss-sum",
        "the stack's loss is Σ h_L (r = 1) instead of a random direction: LayerNorm's output sums to 0",
        "snippets/mistakes/norm_on_shortcut.py",
        "r = torch.randn_like(h)  # (N, d)",
        "r = torch.ones_like(h)  # (N, d)",
        listing="stack",
    ),
    # encyclopedia: norms, scaled branches, ensembles
    Mutant(
        "rezero-starts-at-one",
        "the ReZero/SkipInit factor starts at 1 instead of 0: the zero-started stack no longer returns its input",
        "snippets/encyclopedia/branch_scaling.py",
        "self.s = nn.Parameter(torch.zeros(()))",
        "self.s = nn.Parameter(torch.ones(()))",
        listing="scaled",
    ),
    Mutant(
        "hc-mix-starts-at-ones",
        "the mixing matrix starts as all ones instead of the identity: every copy becomes the sum of the copies",
        "snippets/encyclopedia/hyper_connections.py",
        "self.mix = nn.Parameter(torch.eye(n))",
        "self.mix = nn.Parameter(torch.ones(n, n))",
        listing="block",
    ),
    Mutant(
        "sinkhorn-never-normalises-columns",
        "the second division uses the row sums again: the columns no longer sum to 1 and the product can grow",
        "snippets/encyclopedia/hyper_connections.py",
        "P = P / P.sum(-2, keepdim=True)",
        "P = P / P.sum(-1, keepdim=True)",
        listing="sinkhorn",
    ),
    Mutant(
        "hc-reads-every-copy",
        "each block starts reading the sum of all n copies instead of one: its input is n times the stream",
        "snippets/encyclopedia/hyper_connections.py",
        "read[index % n] = 1.0  # block l starts reading copy l mod n",
        "read[:] = 1.0  # block l starts reading copy l mod n",
        listing="block",
    ),
    Mutant(
        "mhc-mixing-not-projected",
        "the constrained connection mixes with exp(logits) and skips Sinkhorn: rows and columns no longer sum to 1",
        "snippets/encyclopedia/hyper_connections.py",
        "return sinkhorn(self.logits)  # (n, n), rows and columns summing to 1",
        "return self.logits.exp()  # (n, n), rows and columns summing to 1",
        listing="sinkhorn",
    ),
    Mutant(
        "depth-multiplier-dropped",
        "every block adds its whole write, not s times it: the stacks step with s = 1 whatever the depth",
        "snippets/encyclopedia/depth_limits.py",
        "h = h + s * h @ W.T",
        "h = h + h @ W.T",
        listing="stacks",
    ),
    Mutant(
        "depth-mup-rate-ignored",
        "the blocks' weights train at the shared rate whatever the rule asks: depth-μP's arm is 1/√L at one rate",
        "snippets/encyclopedia/depth_transfer.py",
        '{"params": [p["w1"], p["w2"]], "lr": lr * block},',
        '{"params": [p["w1"], p["w2"]], "lr": lr},',
        listing="stack",
    ),
    Mutant(
        "best-rate-is-the-worst",
        "max for min: the best rate is read where the loss is highest",
        "snippets/encyclopedia/depth_transfer.py",
        "i = min(range(len(lrs)), key=lambda j: losses[j])",
        "i = max(range(len(lrs)), key=lambda j: losses[j])",
        listing="best",
    ),
    Mutant(
        "nf-branch-reads-unscaled-stream",
        "the NF branch reads h itself instead of h / beta, so each write is as large as the stream",
        "snippets/encyclopedia/norm_free.py",
        "x = h / self.beta if self.scale_input else h",
        "x = h",
        listing="nf",
    ),
    Mutant(
        "lora-b-starts-random",
        "LoRA's B starts as a random matrix instead of zeros: the layer no longer starts as its base layer",
        "snippets/encyclopedia/norm_free.py",
        "torch.zeros(base.out_features, rank, dtype=base.weight.dtype)",
        "torch.randn(base.out_features, rank, dtype=base.weight.dtype)",
        listing="zero",
    ),
    Mutant(
        "rotation-not-put-into-the-writes",
        "the writes keep their old weights: the rotated stream no longer holds what the blocks wrote",
        "snippets/encyclopedia/trained_stream.py",
        "write.weight.copy_(q.T @ write.weight)",
        "write.weight.copy_(write.weight)",
        listing="rotate",
    ),
    Mutant(
        "steering-direction-never-added",
        "the steered run forgets to add the direction: steering changes nothing",
        "snippets/encyclopedia/trained_stream.py",
        "h = h + add",
        "h = h + 0 * add",
        listing="steer",
    ),
    Mutant(
        "tuned-lens-never-fitted",
        "the translators are fitted with a zero learning rate: the tuned lens stays the logit lens",
        "snippets/encyclopedia/trained_stream.py",
        "opt = torch.optim.Adam(lens.parameters(), lr=lr)",
        "opt = torch.optim.Adam(lens.parameters(), lr=0.0)",
        listing="tuned",
    ),
    Mutant(
        "denseformer-starts-uniform",
        "every depth-weighted average starts uniform: DenseFormer no longer starts as the plain stack",
        "snippets/encyclopedia/variants.py",
        "eye = [F.one_hot(torch.tensor(k), k + 1) for k in range(1, depth + 1)]",
        "eye = [torch.full((k + 1,), 1 / (k + 1)) for k in range(1, depth + 1)]",
        listing="model",
    ),
    Mutant(
        "value-residual-forgets-block-one",
        "each block keeps its own values as `first`: the value residual mixes v_k with itself and changes nothing",
        "snippets/encyclopedia/variants.py",
        "first = v if first is None else first",
        "first = v",
        listing="value",
    ),
    Mutant(
        "unet-skips-never-removed",
        "skip=False still concatenates the encoder's features: the two nets are the same net",
        "snippets/encyclopedia/unet_skips.py",
        "s1, s2 = torch.zeros_like(s1), torch.zeros_like(s2)",
        "s1, s2 = s1, s2",
        listing="unet",
    ),
    Mutant(
        "unet-skip-reads-the-level-below",
        "each level's skip term reads what comes up from below instead of the level's own features",
        "snippets/encyclopedia/unet_skips.py",
        "inner = u * inner.subs(x, a * x) + v * a * x",
        "inner = u * inner.subs(x, a * x) + v * inner.subs(x, a * x)",
        listing="paths",
    ),
    Mutant(
        "unet-trained-to-return-its-input",
        "the denoiser's target is its noisy input, not the clean image",
        "snippets/encyclopedia/unet_denoising.py",
        "loss = F.mse_loss(net(y.to(device)), x.to(device))",
        "loss = F.mse_loss(net(y.to(device)), y.to(device))",
        listing="train",
    ),
    Mutant(
        "effective-depth-prediction-unnormalised",
        "Task 2's worked answer predicts L r² instead of L r² / (1 + r²)",
        "snippets/lab_paths/tasks_solution.py",
        "return depth * r2 / (1 + r2)",
        "return depth * r2",
        listing="answers",
    ),
    Mutant(
        "stream-growth-second-moment",
        "Lab 2's worked answer returns the second moment's growth instead of the RMS's",
        "snippets/lab_transformer/tasks_solution.py",
        "return (1 + alpha**2 * r2) ** (depth / 2)",
        "return (1 + alpha**2 * r2) ** depth",
        listing="answers",
    ),
    Mutant(
        "direct-share-own-sigma",
        "Lab 3's worked answer divides each part by its own size instead of the whole stream's",
        "snippets/lab_transformer/reading_tasks_solution.py",
        "var = stream.var(-1, unbiased=False, keepdim=True)",
        "var = part.var(-1, unbiased=False, keepdim=True)",
        listing="answers",
    ),
    Mutant(
        "drop-path-keep-as-flag",
        "keep[l] is read as a yes/no flag, so a kept write is added unscaled instead of times keep[l] = 1/(1 − p_l)",
        "snippets/encyclopedia/ensembles.py",
        "x = x + k * f(x)  # (N, d)",
        "x = x + f(x) if k else x  # (N, d)",
        listing="stack",
    ),
    Mutant(
        "prenorm-normalises-after-add",
        "the pre- and peri-norm sublayers also normalise the stream after the addition (post-norm's placement)",
        "snippets/encyclopedia/norm_placement.py",
        "return x + self.write(x)  # the stream itself is never rescaled",
        "return self.norm(x + self.write(x))  # the stream itself is never rescaled",
        listing="sublayer",
    ),
    Mutant(
        "deepnorm-alpha-on-branch",
        "DeepNorm's α multiplies the branch's write instead of the shortcut: x + α·F(x), then LayerNorm",
        "snippets/encyclopedia/norm_placement.py",
        "return self.norm(self.alpha * x + self.write(x))  # alpha = 1: post-norm",
        "return self.norm(x + self.alpha * self.write(x))  # alpha = 1: post-norm",
        listing="sublayer",
    ),
    Mutant(
        "profile-final-norm-on-post",
        "the final LayerNorm is applied to the post-norm stack instead of the pre-norm one (pre-norm read out raw)",
        "snippets/encyclopedia/depth_profile.py",
        'if kind == "pre":  # pre-norm ends with one more LayerNorm; post-norm already did',
        'if kind == "post":  # pre-norm ends with one more LayerNorm; post-norm already did',
        listing="profile",
    ),
    Mutant(
        "prenorm-gradient-double-shortcut",
        "the loop adds the stream again around blocks that already add their own shortcut: x = x + b(x)",
        "snippets/encyclopedia/prenorm_gradient.py",
        "x = b(x)  # (B, T, d)",
        "x = x + b(x)  # (B, T, d)",
        listing="stream_gradient",
    ),
    # gradient highway
    Mutant(
        "add-splits-gradient",
        "the hand-written Add halves g between its operands, as if the gradient were shared out",
        "snippets/gradient_highway/add_node.py",
        "return g, g  # the same upstream gradient",
        "return g / 2, g / 2  # the same upstream gradient",
        listing="add",
    ),
    Mutant(
        "negating-branch-sign",
        "the negating block's branch weight is +I instead of −I (the sign dropped)",
        "snippets/gradient_highway/cancelling_branch.py",
        "self.branch.weight.copy_(-torch.eye(d))",
        "self.branch.weight.copy_(torch.eye(d))",
        listing="cancel",
    ),
    Mutant(
        "default-init-he-linear-gain",
        "the He-initialised layers use the linear gain (variance 1/fan_in) instead of ReLU's",
        "snippets/gradient_highway/default_init.py",
        'layer.weight, nonlinearity="relu"',
        'layer.weight, nonlinearity="linear"',
        listing="variances",
    ),
    Mutant(
        "he-init-children",
        "make_stack looks for nn.Linear among the stack's direct children, so He init never applies",
        "snippets/gradient_highway/depth_sweep.py",
        "for layer in stack.modules():",
        "for layer in stack.children():",
        listing="stacks",
    ),
    Mutant(
        "jacobian-transposed",
        "block_jacobians returns the block's Jacobian transposed (the other convention)",
        "snippets/gradient_highway/jacobian.py",
        "return jacobian(block, x), jacobian(block.branch, x)",
        "return jacobian(block, x).T, jacobian(block.branch, x)",
        listing="check",
    ),
    # residual block
    Mutant(
        "count-second-bias-hidden",
        "branch_parameters counts the second Linear's bias at the hidden width e·d, not d",
        "snippets/residual_block/identity_shortcut.py",
        "return d * hidden + hidden + hidden * d + d",
        "return d * hidden + hidden + hidden * d + hidden",
        listing="count",
    ),
    Mutant(
        "clip-after-relu",
        "clipped_sum measures the block's output (after its final ReLU) instead of the sum before it",
        "snippets/residual_block/post_activation_stream.py",
        "s = block.shortcut(x) + block.branch(x)  # (N, d)",
        "s = block(x)  # (N, d)",
        listing="clip",
    ),
    Mutant(
        "pre-activation-relu-on-stream",
        "the pre-activation block keeps the original's ReLU after the addition",
        "snippets/residual_block/pre_activation.py",
        "return self.shortcut(x) + self.branch(x)  # (N, d)",
        "return torch.relu(self.shortcut(x) + self.branch(x))  # (N, d)",
        listing="blocks",
    ),
    Mutant(
        "mistake-no-shortcut",
        "the width-changing example drops the shortcut, so no size clash is ever raised",
        "snippets/residual_block/projection_shortcut.py",
        "return x + branch(x)  # (N, d_in)",
        "return branch(x)  # (N, d_in)",
        listing="mistake",
    ),
    # residual stream
    Mutant(
        "growth-reads-input",
        "stream_rms_by_depth feeds every block the input x instead of the running stream h",
        "snippets/residual_stream/norm_growth.py",
        "h = block(h)  # (N, d)",
        "h = block(x)  # (N, d)",
        listing="growth",
    ),
    Mutant(
        "patch-enumerate-from-zero",
        "run_with_patch counts blocks from 0, so the edit lands one block late",
        "snippets/residual_stream/patching.py",
        "enumerate(blocks, start=1)",
        "enumerate(blocks)",
        listing="patch",
    ),
    Mutant(
        "jacobian-not-zeroed",
        "stack_jacobian builds the stack without zeroing the branches",
        "snippets/residual_stream/prenorm.py",
        "nn.Sequential(*(zero_branch(b) if zeroed else b for b in blocks))",
        "nn.Sequential(*blocks)",
        listing="jacobian",
    ),
    Mutant(
        "stream-overwritten",
        "run_stream replaces the stream by each write instead of adding it",
        "snippets/residual_stream/running_sum.py",
        "h = h + write  # (N, d)",
        "h = write  # (N, d)",
        listing="stream",
    ),
    Mutant(
        "walk-second-block-reads-x",
        "the second block of the walk reads the input x instead of h1",
        "snippets/residual_stream/running_sum.py",
        "h2 = h1 + f2(h1)  # (N, 64)",
        "h2 = h1 + f2(x)  # (N, 64)",
        listing="walk",
    ),
    # encyclopedia: citation, arithmetic, derivation, FLOPs, transformer block
    Mutant(
        "person-fields-swapped",
        'Person declares family before given, so "Given Family" is stored back to front',
        "snippets/encyclopedia/citation.py",
        "    given: str\n    family: str\n",
        "    family: str\n    given: str\n",
        listing="record",
    ),
    Mutant(
        "entry-url-no-trailing-slash",
        "the entry's URL drops the trailing slash of mkdocs's directory URL",
        "snippets/encyclopedia/citation.py",
        '/encyclopedia/{slug}/"',
        '/encyclopedia/{slug}"',
        listing="works",
    ),
    Mutant(
        "bibtex-authors-comma",
        "BibTeX authors joined by commas instead of `and`",
        "snippets/encyclopedia/citation.py",
        '" and ".join(f"{p.family}, {p.given}"',
        '", ".join(f"{p.family}, {p.given}"',
        listing="bibtex",
    ),
    Mutant(
        "csl-family-given-swapped",
        "CSL-JSON puts each person's given name in `family` and the family name in `given`",
        "snippets/encyclopedia/citation.py",
        '{"family": p.family, "given": p.given}',
        '{"family": p.given, "given": p.family}',
        listing="csl",
    ),
    Mutant(
        "ris-given-first",
        "RIS writes each author as `Given Family` instead of `Family, Given`",
        "snippets/encyclopedia/citation.py",
        '("AU", f"{p.family}, {p.given}")',
        '("AU", f"{p.given} {p.family}")',
        listing="ris",
    ),
    Mutant(
        "fp32-bytes",
        "weight_bytes counts 4 bytes per parameter (fp32) where the sentence is about fp16",
        "snippets/encyclopedia/scale_arithmetic.py",
        "bytes_per_parameter: int = 2",
        "bytes_per_parameter: int = 4",
        listing="arithmetic",
    ),
    Mutant(
        "product-order-reversed",
        "jacobian_as_product multiplies each new block's factor on the right",
        "snippets/encyclopedia/derivation.py",
        "total = (eye + jacobian(f, x)) @ total",
        "total = total @ (eye + jacobian(f, x))",
        listing="stack",
    ),
    Mutant(
        "attention-flops-halved",
        "matmul_formula counts QKᵀ and AV as 2·B·T²·d together (one product's FLOPs)",
        "snippets/encyclopedia/residual_flops.py",
        "+ 4 * B * T * T * d",
        "+ 2 * B * T * T * d",
        listing="count",
    ),
    Mutant(
        "attention-scale-sqrt-d",
        "attention scores are scaled by 1/√d instead of 1/√(d/h)",
        "snippets/encyclopedia/transformer_block.py",
        "/ math.sqrt(d // self.heads)",
        "/ math.sqrt(d)",
        listing="sublayers",
    ),
    Mutant(
        "postnorm-drops-second-norm",
        "the post-norm block forgets its second LayerNorm: the MLP's update is not normalised",
        "snippets/encyclopedia/transformer_block.py",
        "x = self.norm2(x + self.mlp(x))  # (B, T, d)",
        "x = x + self.mlp(x)  # (B, T, d)",
        listing="postnorm",
    ),
    # measured costs
    Mutant(
        "add-counted-as-multiply-add",
        "add_flops counts the shortcut's add as a multiply-add: 2 FLOPs per element instead of 1",
        "snippets/costs/add_share.py",
        "return x.numel()",
        "return 2 * x.numel()",
        listing="flops",
    ),
    Mutant(
        "branch-flops-halved",
        "branch_flops halves torch's count, taking its FLOPs for the multiply-adds the docstring names",
        "snippets/costs/add_share.py",
        "return counter.get_total_flops()",
        "return counter.get_total_flops() // 2",
        listing="flops",
    ),
    Mutant(
        "timer-returns-f-twice",
        "paired_times returns f's median twice (copy-paste): the add is reported as slow as the branch",
        "snippets/costs/add_share.py",
        "return statistics.median(tf), statistics.median(tg)",
        "return statistics.median(tf), statistics.median(tf)",
        listing="timing",
    ),
    Mutant(
        "timer-per-sample-not-per-call",
        "once() returns a sample's seconds, not divided by its calls: each time is that of a ~2 ms batch of calls",
        "snippets/costs/add_share.py",
        "return (clock() - start) / calls",
        "return clock() - start",
        listing="timing",
    ),
    Mutant(
        "exponent-from-shallowest-pair",
        "growth_exponent fits the two shallowest stacks (depths 4 and 8), not the two deepest",
        "snippets/costs/concat_memory.py",
        "list(zip(depths, sizes, strict=True))[-2:]",
        "list(zip(depths, sizes, strict=True))[:2]",
        listing="exponent",
    ),
    Mutant(
        "subnormal-scale-at-threshold",
        "subnormal_like scales by 2⁻¹²⁶, the smallest normal, so inputs at or above 1 stay normal",
        "snippets/costs/denormals.py",
        "return x * 2.0**-130",
        "return x * 2.0**-126",
        listing="flush",
    ),
    Mutant(
        "depth-scaled-by-width-not-its-square",
        "the narrow stack gets 16 blocks (4× the wide one's, as its width ratio) instead of 64 (the ratio squared)",
        "snippets/costs/depth_width.py",
        'SHAPES = {"narrow-deep": (256, 64)',
        'SHAPES = {"narrow-deep": (256, 16)',
        listing="stacks",
    ),
    Mutant(
        "latency-times-last-model",
        "the timed loop calls `model`, left over from the warm-up loop (the last model), for every name",
        "snippets/costs/resnet_latency.py",
        "models[name](x)",
        "model(x)",
        listing="latency",
    ),
    # degradation and depth versus width
    Mutant(
        "embed-forgets-stem",
        "embed copies only the first SHALLOW modules (the stem's three forgotten): the blocks stay as initialised",
        "snippets/degradation/constructed_solution.py",
        "kept = STEM + SHALLOW",
        "kept = SHALLOW",
        listing="embed",
    ),
    Mutant(
        "records-single-model-error",
        "the ILSVRC 2015 winner's top-5 error is read from ResNet-152's single-model fact, not the ensemble's",
        "snippets/degradation/depth_records.py",
        '"ResNet (ILSVRC 2015 winner)": "ilsvrc2015_top5_err"',
        '"ResNet (ILSVRC 2015 winner)": "resnet152_single_top5_err"',
        listing="records",
    ),
    Mutant(
        "bn-stack-keeps-shortcut",
        "the plain BN stack is built of whole residual blocks, not their branches: its shortcuts stay in",
        "snippets/degradation/init_gradients.py",
        "blocks = [nn.Sequential(ResidualBlock(d).branch, nn.ReLU()) for _ in range(depth)]",
        "blocks = [nn.Sequential(ResidualBlock(d), nn.ReLU()) for _ in range(depth)]",
        listing="bn_stack",
    ),
    Mutant(
        "data-labels-other-inputs",
        "the teacher labels a second draw of inputs, not x: the labels have nothing to do with the points",
        "snippets/degradation/training_curves.py",
        "logits = torch.tanh(torch.tanh(x @ w1) @ w2) @ w3  # (N, K)",
        "logits = torch.tanh(torch.tanh(torch.randn(N, D_IN, generator=g) @ w1) @ w2) @ w3  # (N, K)",
        listing="data",
    ),
    Mutant(
        "remove-shortcut-degradation",
        "the miniature's residual block returns ReLU(F(x)): its identity shortcut is gone",
        "snippets/degradation/training_curves.py",
        "return torch.relu(self.shortcut(x) + self.branch(x))  # (N, d)",
        "return torch.relu(self.branch(x))  # (N, d)",
        listing="nets",
    ),
    Mutant(
        "train-no-zero-grad",
        "train() never calls opt.zero_grad(): every step adds its gradient to all the earlier ones",
        "snippets/degradation/training_curves.py",
        "            opt.zero_grad()\n",
        "",
        listing="train",
    ),
    Mutant(
        "sweep-final-is-first-epoch",
        "the final loss is read from each curve's first epoch (c[0]) instead of its last",
        "snippets/degradation/training_curves.py",
        "final = {k: c[-1] for k, c in curves.items()}",
        "final = {k: c[0] for k, c in curves.items()}",
        listing="sweep",
    ),
    Mutant(
        "dense-block-returns-last-layer",
        "the dense block hands on only its last layer's k channels, like a plain stack, not the concatenation",
        "snippets/depth_width/densenet.py",
        "return torch.cat(features, dim=1)  # (N, k0 + layers·k, H, W)",
        "return features[-1]  # (N, k0 + layers·k, H, W)",
        listing="dense",
    ),
    Mutant(
        "transition-halving-not-tracked",
        "the transition convolves to c/2 channels but c is not halved: the next dense block is built for c",
        "snippets/depth_width/densenet.py",
        "            c //= 2\n",
        "",
        listing="model",
    ),
    Mutant(
        "both-doubled-doubles-e-too",
        "'stream and hidden doubled' doubles the expansion e along with d, so h quadruples",
        "snippets/depth_width/mlp_width.py",
        '"stream and hidden doubled": (512, 4)',
        '"stream and hidden doubled": (512, 8)',
        listing="count",
    ),
    Mutant(
        "kernel-count-forgets-input-channels",
        "by_kernel counts a convolution as out_channels·k² weights, forgetting that each filter spans c_in channels",
        "snippets/depth_width/model_zoo.py",
        "+= m.weight.numel()",
        "+= m.out_channels * m.kernel_size[0] * m.kernel_size[1]",
        listing="kernels",
    ),
    Mutant(
        "ops-side-is-resize-256",
        "CROP is torchvision's resize side 256, not the 224 centre crop the _ops are counted at",
        "snippets/depth_width/model_zoo.py",
        "CROP = 224",
        "CROP = 256",
        listing="published",
    ),
    Mutant(
        "macs-are-flops",
        "multiply_adds returns torch's FLOP count undivided: each multiply-add counted twice",
        "snippets/depth_width/resnet.py",
        "return counter.get_total_flops() // 2  # torch counts a multiply-add as 2 FLOPs",
        "return counter.get_total_flops()  # torch counts a multiply-add as 2 FLOPs",
        listing="macs",
    ),
    Mutant(
        "stride-in-first-stage",
        "the first stage's first bottleneck strides too (stride 2 for i == 0 in every stage): H and W halve once more",
        "snippets/depth_width/resnet.py",
        "stride = 2 if stage > 0 and i == 0 else 1",
        "stride = 2 if i == 0 else 1",
        listing="resnet",
    ),
    # initialisation and the two labs
    Mutant(
        "branch-ratio-stream-not-advanced",
        "ratios_along_stack feeds every block the input x, not the stream so far: the stream never grows",
        "snippets/initialisation/branch_scale.py",
        "            h = block(h)  # (N, d)",
        "            h = block(x)  # (N, d)",
        listing="ratio",
    ),
    Mutant(
        "fixup-wrong-exponent",
        "Fixup scales each branch layer by L^(-1/(2m)) instead of L^(-1/(2m-2))",
        "snippets/initialisation/fixup.py",
        "return L ** (-1 / (2 * m - 2))",
        "return L ** (-1 / (2 * m))",
        listing="fixup",
    ),
    Mutant(
        "one-step-alpha-unused",
        "ScaledBlock stores its multiplier α but its forward adds the unscaled branch",
        "snippets/initialisation/one_step.py",
        "return self.shortcut(x) + self.alpha * self.branch(x)  # (N, d)",
        "return self.shortcut(x) + self.branch(x)  # (N, d)",
        listing="one_step",
    ),
    Mutant(
        "rezero-grad-by-hand-uses-block-output",
        "the by-hand ∂L/∂α weights g by the block's output y instead of the branch's F(x)",
        "snippets/initialisation/rezero.py",
        "            g * block.branch(x)\n",
        "            g * block(x)\n",
        listing="gradient",
    ),
    Mutant(
        "rezero-step-before-backward",
        "train() calls opt.step() before loss.backward(): every step sees cleared gradients",
        "snippets/initialisation/rezero.py",
        "        opt.zero_grad()\n        loss.backward()\n        opt.step()\n",
        "        opt.zero_grad()\n        opt.step()\n        loss.backward()\n",
        listing="train",
    ),
    Mutant(
        "deviation-stream-not-advanced",
        "relative_deviation runs every block on x instead of on the stream so far",
        "snippets/initialisation/zero_last.py",
        "            h = block(h)  # (N, d)",
        "            h = block(x)  # (N, d)",
        listing="deviation",
    ),
    Mutant(
        "skipinit-alpha-one",
        "SkipInit's α starts at 1 instead of 0",
        "snippets/lab_paths/bn_depth.py",
        "self.alpha = nn.Parameter(torch.zeros(()))",
        "self.alpha = nn.Parameter(torch.ones(()))",
        listing="writes",
    ),
    Mutant(
        "lesion-deletes-next-block",
        "delete_blocks is off by one: it deletes block i + 1 (and the head for the last block)",
        "snippets/lab_paths/lesions.py",
        "if j - STEM not in blocks)",
        "if j - STEM - 1 not in blocks)",
        listing="lesion",
    ),
    Mutant(
        "drop-path-rule-off-by-one",
        "the linear drop rule counts blocks from 0: block 1 is never dropped, every other one less often",
        "snippets/lab_paths/lesions.py",
        "TOP_DROP * (i + 1) / blocks",
        "TOP_DROP * i / blocks",
        listing="drop_path",
    ),
    Mutant(
        "drop-path-unscaled",
        "a kept write is added as it is instead of scaled by 1/(1 - p), so the mean write shrinks",
        "snippets/lab_paths/lesions.py",
        "write = write * keep / (1 - self.p)",
        "write = write * keep",
        listing="drop_path",
    ),
    Mutant(
        "drop-path-one-draw",
        "one draw for the whole minibatch instead of one per point",
        "snippets/lab_paths/lesions.py",
        "keep = torch.rand(len(x), 1, device=x.device) >= self.p  # (N, 1)",
        "keep = torch.rand((), device=x.device) >= self.p",
        listing="drop_path",
    ),
    Mutant(
        "drop-path-in-evaluation",
        "the block drops writes in evaluation too",
        "snippets/lab_paths/lesions.py",
        "if self.training:  # keep each point's write with probability 1 - p, scaled up",
        "if True:  # keep each point's write with probability 1 - p, scaled up",
        listing="drop_path",
    ),
    Mutant(
        "paths-wrong-order",
        "gradient_by_path_length multiplies the Jacobians from the input up instead of from the output down",
        "snippets/lab_paths/paths.py",
        "for J in jacobians.flip(0):",
        "for J in jacobians:",
        listing="lengths",
    ),
    Mutant(
        "shatter-momentum-zero",
        "BatchNorm's momentum set to 0 (not None): the running statistics never take the grid's",
        "snippets/lab_paths/shattered.py",
        "bn.momentum = None  # keep",
        "bn.momentum = 0.0  # keep",
        listing="shatter",
    ),
    Mutant(
        "lens-skips-final-norm",
        "the logit lens unembeds each stream without the final LayerNorm",
        "snippets/lab_transformer/reading.py",
        "return [model.unembed(model.norm(h)) for h in streams(model, tokens)]",
        "return [model.unembed(h) for h in streams(model, tokens)]",
        listing="lens",
    ),
    Mutant(
        "attribution-unbiased-variance",
        "the attribution's LayerNorm divisor uses torch's default unbiased variance, not LayerNorm's biased one",
        "snippets/lab_transformer/reading.py",
        "var = hs[-1].var(-1, unbiased=False, keepdim=True)",
        "var = hs[-1].var(-1, keepdim=True)",
        listing="attribution",
    ),
    Mutant(
        "patch-denoises-with-the-corrupt-write",
        "the denoising patch puts the corrupted run's own write back into it, not the clean run's",
        "snippets/lab_transformer/reading.py",
        "denoise.append(((logp(corrupt, k, clean_write) - bad).mean() / gap).item())",
        "denoise.append(((logp(corrupt, k, bad_write) - bad).mean() / gap).item())",
        listing="patch",
    ),
    Mutant(
        "lab-rezero-gate-one",
        "the lab's ReZero gate starts at 1 instead of 0",
        "snippets/lab_transformer/stream.py",
        "self.gate = nn.Parameter(torch.zeros(()))",
        "self.gate = nn.Parameter(torch.ones(()))",
        listing="residual",
    ),
    Mutant(
        "lab-blocks-shared",
        "TinyLM repeats one Block object ([Block(...)] * depth): every block shares its weights",
        "snippets/lab_transformer/stream.py",
        "blocks = [Block(d, HEADS, placement, depth) for _ in range(depth)]",
        "blocks = [Block(d, HEADS, placement, depth)] * depth",
        listing="model",
    ),
    Mutant(
        "deepnorm-beta-sign",
        "DeepNorm's β = (8L)^(+1/4): the value and output maps are scaled up, not down",
        "snippets/lab_transformer/stream.py",
        "beta = (8 * depth) ** -0.25",
        "beta = (8 * depth) ** 0.25",
        listing="deepnorm",
    ),
    Mutant(
        "ratios-without-alpha",
        "write_ratios divides each write by the stream, not by α times the stream it is added to",
        "snippets/lab_transformer/stream.py",
        "(update.alpha * h).norm(dim=-1)",
        "h.norm(dim=-1)",
        listing="ratios",
    ),
    Mutant(
        "lab-train-no-zero-grad",
        "the lab's train() never calls opt.zero_grad(): gradients accumulate over the steps",
        "snippets/lab_transformer/stream.py",
        "        opt.zero_grad()\n        loss.backward()\n",
        "        loss.backward()\n",
        listing="train",
    ),
    Mutant(
        "converged-rate-never-decays",
        "the cosine schedule is dropped: every run ends at its peak rate, not at rest",
        "snippets/degradation/converged.py",
        "    return lr * 0.5 * (1 + math.cos(math.pi * (t - warmup) / (steps - warmup)))",
        "    return lr",
        listing="train",
    ),
    Mutant(
        "converged-writes-read-the-sum",
        "writes() measures the block's output (stream plus write) instead of its branch",
        "snippets/degradation/converged.py",
        "            f = block.branch(h)  # (N, d)",
        "            f = block(h)  # (N, d)",
        listing="writes",
    ),
    Mutant(
        "sweep-plain-trains-residual",
        "the plain nets' sweep trains the residual nets instead",
        "snippets/degradation/converged_plain.py",
        "residual=False, steps=steps)",
        "residual=True, steps=steps)",
        listing="measure",
    ),
    Mutant(
        "sweep-residual-trains-plain",
        "the residual nets' sweep trains the plain nets instead",
        "snippets/degradation/converged_residual.py",
        "residual=True, steps=steps)",
        "residual=False, steps=steps)",
        listing="measure",
    ),
    Mutant(
        "digits-labels-shuffled",
        "the digits' labels are taken from the wrong images (shifted by one): nothing can be learned",
        "snippets/degradation/digits.py",
        "    y = torch.tensor(digits.target[:N])  # (N,)",
        "    y = torch.tensor(digits.target[1 : N + 1])  # (N,)",
        listing="data",
    ),
    Mutant(
        "digits-resnet-without-shortcut",
        "the conv block forgets its shortcut: the ResNet is the plain net",
        "snippets/degradation/digits.py",
        "x + self.branch(x) if self.residual else self.branch(x)",
        "self.branch(x)",
        listing="nets",
    ),
    Mutant(
        "digits-train-no-zero-grad",
        "the digits' train() never zeroes the gradients: they accumulate over the steps",
        "snippets/degradation/digits.py",
        "            opt.zero_grad()\n            loss.backward()\n",
        "            loss.backward()\n",
        listing="train",
    ),
    Mutant(
        "frontier-linear-in-params",
        "the ResNet line is read as linear in parameters instead of in log(parameters)",
        "snippets/depth_width/frontier.py",
        "            return math.exp(math.log(p0) + t * (math.log(p1) - math.log(p0)))",
        "            return p0 + t * (p1 - p0)",
        listing="line",
    ),
    Mutant(
        "profile-reads-the-first-layer",
        "the gradient profile reads each MLP's first weight instead of its last",
        "snippets/lab_transformer/gradient_profile.py",
        "    weights = [block[1].branch[2].weight for block in model.blocks]",
        "    weights = [block[1].branch[0].weight for block in model.blocks]",
        listing="profile",
    ),
    Mutant(
        "corpus-one-module",
        "the corpus reads only the first module of the list",
        "snippets/lab_transformer/sweep.py",
        '    return "".join((MODULES / name).read_text() for name in FILES)',
        '    return "".join((MODULES / name).read_text() for name in FILES[:1])',
        listing="corpus",
    ),
    Mutant(
        "stacked-postnorm-unnormed",
        "the stacked forward pass forgets post-norm's norm of the sum",
        "snippets/lab_transformer/sweep.py",
        "            h = placed(pre, h + w, ln, before=False)  # post-norm norms the sum",
        "            h = h + w  # post-norm norms the sum",
        listing="stacked",
    ),
    Mutant(
        "sweep-adam-no-bias-correction",
        "the stacked Adam forgets the first moment's bias correction",
        "snippets/lab_transformer/sweep.py",
        "            torch.div(m1, 1 - b1**t, out=step).div_(denom)",
        "            step.copy_(m1).div_(denom)",
        listing="train",
    ),
)


def claim_dirs(tree: Path) -> list[str]:
    """tests/<topic> beside snippets/<topic>: the claims (as the noxfile's claim_dirs)."""
    tests = tree / "tests"
    return sorted(f"tests/{d.name}" for d in tests.iterdir() if d.is_dir() and (tree / "snippets" / d.name).is_dir())


def scratch_tree(dest: Path) -> Path:
    """The working tree's files that git tracks or would track, the CPU records, and .nox linked."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    shutil.copy2(ROOT / "results" / "cpu.json", dest / "results" / "cpu.json")
    if (ROOT / "results" / "build").is_dir():  # published outputs some claims need to be reused
        shutil.copytree(ROOT / "results" / "build", dest / "results" / "build")
    (dest / ".nox").symlink_to((ROOT / ".nox").resolve())
    return dest


def apply(tree: Path, mutant: Mutant) -> None:
    """Make the edit, or stop when the old text is not in the file exactly once."""
    target = tree / mutant.file
    text = target.read_text(encoding="utf-8")
    found = text.count(mutant.old)
    if found != 1:
        raise SystemExit(
            f"mutants: {mutant.name}: the old text occurs {found} times in {mutant.file} (expected once); "
            "the snippet changed: update the mutant in scripts/mutants.py"
        )
    mutated = text.replace(mutant.old, mutant.new)
    try:
        compile(mutated, str(target), "exec")
    except SyntaxError as e:
        raise SystemExit(f"mutants: {mutant.name} makes {mutant.file} invalid Python ({e}): fix the edit") from e
    target.write_text(mutated, encoding="utf-8")


def outcomes(junit: Path) -> tuple[list[str], dict[str, str]]:
    """Test ids that ran, and those that failed or errored with the first line of why, from JUnit XML."""
    ran, failed = set(), {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module, name = case.get("classname", ""), case.get("name", "")
        # a collection error names the file or folder that failed to collect, not a test
        test_id = module.replace(".", "/") + f".py::{name}" if module else name.replace(".", "/")
        if case.find("skipped") is not None:
            continue
        ran.add(test_id)
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        if problem is not None:
            failed[test_id] = (
                (problem.get("message") or "").strip().splitlines()[0][:200] if problem.get("message") else ""
            )
    return sorted(ran), dict(sorted(failed.items()))


DIAGRAMS = "tests/contract/test_figures.py::test_every_diagram_matches_the_module_it_depicts"


def affected(mutant: Mutant) -> list[str]:
    """The claim files whose code includes the mutated snippet (as the fingerprint follows imports): only
    they can re-run, so only they are collected (collecting every topic for each mutant costs minutes)."""
    sys.path.insert(0, str(ROOT))
    from sitekit.claims import code_files

    target = (ROOT / mutant.file).resolve()
    topics = {d.split("/")[1] for d in claim_dirs(ROOT)}
    tests = sorted((ROOT / "tests").glob("*/test_*.py"))
    return [t.relative_to(ROOT).as_posix() for t in tests if t.parent.name in topics and target in code_files(t)]


def run_claims(tree: Path, log: Path, only: list[str] | None = None) -> dict[str, Any]:
    """The claims with reuse, on every core, as `nox -s tests` runs them; what ran and what failed.

    `only`: the claim files to collect (the files a mutant can affect); default every topic."""
    junit = tree / "junit.xml"
    workers = os.environ.get("SITE_WORKERS", "auto")
    parallel = [] if workers == "0" else ["-n", workers, "--dist", "loadfile"]
    cmd = [
        sys.executable,
        *("-m", "pytest", "--device", "cpu", "--reuse", *parallel, "-q", "-p", "no:cacheprovider"),
        *("--continue-on-collection-errors", f"--junitxml={junit}", *(only or claim_dirs(tree)), DIAGRAMS),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "SITE_FRESH", "SITE_PUBLISH")}
    before = os.times()
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
    after = os.times()
    log.write_text(out.stdout + out.stderr, encoding="utf-8")
    if not junit.is_file():
        raise SystemExit(f"mutants: pytest wrote no report ({out.returncode}); see {log}")
    ran, failed = outcomes(junit)
    claims = {
        c["test"] for c in json.loads((ROOT / "results" / "cpu.json").read_text(encoding="utf-8"))["claims"].values()
    }
    for where, why in list(failed.items()):  # a file or folder that did not collect: each of its claims failed
        for test_id in claims:
            if "::" not in where and (test_id.startswith(where + "/") or test_id.startswith(where + ".py::")):
                failed.setdefault(test_id, why)
                ran.append(test_id)
    ran = sorted(set(ran))
    return {
        "returncode": out.returncode,
        "ran": [t for t in ran if t in claims],
        "failed": {t: why for t, why in failed.items() if t in claims},
        "other_failed": {t: why for t, why in failed.items() if t not in claims},  # helpers' own tests
        "cpu_seconds": round(
            after.children_user + after.children_system - before.children_user - before.children_system
        ),
        "wall_seconds": round(time.perf_counter() - start),
    }


def try_mutant(mutant: Mutant | None, logs: Path) -> dict[str, Any]:
    """One scratch tree, one edit (None: no edit), one run of the claims."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        tree = scratch_tree(Path(tmp))
        if mutant is not None:
            apply(tree, mutant)
        name = mutant.name if mutant else "none"
        only = affected(mutant) if mutant is not None else None
        if mutant is not None and not only:
            raise SystemExit(f"mutants: {mutant.name}: no claim file imports {mutant.file}; no claim can see it")
        return {"name": name, **run_claims(tree, logs / f"{name}.log", only)}


def kills(run: dict[str, Any]) -> dict[str, int]:
    """A run's kills by kind: a claim's own check, the staleness guard, a diagram's contract."""
    stale = sum("(stale)" in why for why in run["failed"].values())
    diagram = sum(t.startswith(DIAGRAMS.split("::")[0]) for t in run["other_failed"])
    return {"check": len(run["failed"]) - stale, "stale": stale, "diagram": diagram}


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'mutant':<34} {'re-run':>6} {'check':>5} {'stale':>5} {'diag':>4}  listing", "-" * 100]
    for r in rows:
        k = r["kills"]
        counts = f"{len(r['claims_rerun']):>6} {k['check']:>5} {k['stale']:>5} {k['diagram']:>4}"
        lines.append(f"{r['name']:<34} {counts}  {r['file']}:{r['listing']}")
    unseen = [r["name"] for r in rows if not r["kills"]["check"]]
    lines.append(f"{len(rows) - len(unseen)} of {len(rows)} mutants killed by a claim's own check")
    if unseen:
        lines.append(
            f"no claim's check sees (caught, if at all, by the staleness guard or a diagram): {', '.join(unseen)}"
        )
    return "\n".join(lines)


def main(names: list[str]) -> None:
    if not (ROOT / "results" / "cpu.json").is_file():
        raise SystemExit("mutants: results/cpu.json is missing: run `nox -s tests` first (the baseline)")
    unknown = set(names) - {m.name for m in MUTANTS}
    if unknown:
        raise SystemExit(f"mutants: no mutant named {sorted(unknown)}; known: {[m.name for m in MUTANTS]}")
    chosen = [m for m in MUTANTS if not names or m.name in names]
    logs = Path(tempfile.mkdtemp(prefix="mutant-logs-"))
    print(f"logs in {logs}", flush=True)
    baseline = try_mutant(None, logs)
    if baseline["ran"] or baseline["failed"] or baseline["other_failed"]:
        raise SystemExit(
            f"mutants: without any edit {len(baseline['ran'])} claims re-ran and {len(baseline['failed'])} failed "
            f"({list(baseline['failed'])[:5]}): bring results/cpu.json up to date (`nox -s tests`) first"
        )
    rows = []
    for mutant in chosen:
        run = try_mutant(mutant, logs)
        rows.append(
            {
                "name": mutant.name,
                "description": mutant.description,
                "file": mutant.file,
                "listing": mutant.listing,
                "old": mutant.old,
                "new": mutant.new,
                "claims_rerun": run["ran"],
                "failing": run["failed"],
                "kills": kills(run),
                "other_tests_failing": run["other_failed"],
                "cpu_seconds": run["cpu_seconds"],
                "wall_seconds": run["wall_seconds"],
            }
        )
        print(f"{mutant.name}: {len(run['ran'])} re-run, kills {kills(run)}", flush=True)
    print(table(rows))
    if names:
        return  # a partial run does not replace the record
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    import torch

    record = {
        "schema": 1,
        "provenance": {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": commit.stdout.strip(),
            "torch": torch.__version__,
            "python": platform.python_version(),
            "load_average": round(os.getloadavg()[0], 1),
        },
        "summary": {
            "mutants": len(rows),
            "killed_by_a_check": sum(1 for r in rows if r["kills"]["check"]),
            "only_stale_or_diagram": [r["name"] for r in rows if not r["kills"]["check"] and any(r["kills"].values())],
            "survivors": [r["name"] for r in rows if not any(r["kills"].values())],
        },
        "mutants": rows,
    }
    RECORD.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RECORD.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
