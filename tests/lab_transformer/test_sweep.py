"""Claim of Lab 2 about the stacked training code: it computes what each model's own TinyLM computes."""

import inspect

import pytest

from sitekit import runs
from sitekit.margins import below
from snippets.lab_transformer import sweep as snippet

PAGE = "module/lab-transformer-stream.md"


@pytest.mark.claim(
    "Stacked side by side, each model computes the same logits as its own TinyLM, pre-norm and post-norm "
    "alike: the largest difference is below 1e-6.",
    page=PAGE,
    exact="the stacked maps are the same float32 operations on each model's own weights, batched along a new axis",
    device_independent="a CPU comparison of two implementations of the same forward pass",
)
def test_stacked_models_compute_what_each_tinylm_computes(claim):
    def same(error: float) -> None:
        below("largest |stacked − TinyLM| logit", error, 1e-6)

    error = snippet.stack_error()
    claim.check(same, error)
    claim.rejects(same, runs.run(snippet.stack_error, swap=True), because="each model run with the other placement")
    claim.record(error=error)


# The corpus's fingerprint, asserted: another torch wheel ships other source text, and the sweep's numbers would
# drift with it; this claim fails first, with the hash, instead.
SHA256 = "6036fec7346af4c4f6c6c8d7ff3af7ca01644d1880572d4f90e20f4de83787ec"


@pytest.mark.claim(
    "The corpus is five modules of the pinned torch wheel's own source (torch/nn/modules), read from disk; "
    "its text's sha256 is the one this claim pins, so another wheel fails here first.",
    page=PAGE,
    exact="the bytes of five files that the pinned torch wheel installs; any other text has another sha256",
    device_independent="reads files; no tensor is computed on a device",
)
def test_corpus_is_the_pinned_torch_source(claim):
    def pinned(text_and_version: tuple[str, str]) -> None:
        text, version = text_and_version
        assert snippet.fingerprint(text) == SHA256, snippet.fingerprint(text)
        assert version.startswith("2.13.0"), version

    text, version = measured = snippet.corpus_and_torch()
    data = snippet.load()
    claim.check(pinned, measured)
    claim.rejects(pinned, runs.run(snippet.corpus_and_torch, reverse=True), because="the same files in another order")
    claim.record(
        sha256=SHA256,
        files=list(snippet.FILES),
        modules=len(snippet.FILES),
        chars=len(text),
        train_chars=len(data.train),
        valid_chars=len(data.valid),
        vocab=len(data.chars),
        unigram=snippet.unigram_loss(data),
        torch=version,
        rates=len(snippet.LRS),
        seeds=inspect.signature(snippet.measure).parameters["seeds"].default,
        steps=snippet.STEPS,
        variants=list(snippet.VARIANTS),
    )
