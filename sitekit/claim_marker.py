"""What a claim's marker says: its id, sentence and page, and the kinds it declares (exact, identity, experiment,
CPU-only, CUDA-only). The plugin, the run selection and the records all read a claim through these."""

from __future__ import annotations

import re

import pytest

from sitekit import claims as store


def _marker(item: pytest.Item) -> pytest.Mark | None:
    return item.get_closest_marker("claim")


def _describe(item: pytest.Item) -> tuple[str, str, str]:
    mark = _marker(item)
    assert mark is not None
    allowed = {"page", "cpu_only", "cuda_only", "device_independent", "exact", "identity", "experiment", "tolerance"}
    if len(mark.args) != 1 or not {"page"} <= set(mark.kwargs) <= allowed:
        raise store.ClaimError(
            f'{item.nodeid}: write @pytest.mark.claim("<the sentence it proves>", page="<docs path>")'
            ' (optionally cpu_only="<why it cannot run on a GPU>",'
            ' cuda_only="<what it asserts about CUDA>",'
            ' device_independent="<why its outcome cannot depend on the device>",'
            ' exact="<the measured equality it asserts exactly>",'
            ' identity="<why it holds by construction: the code does what the algebra says>",'
            ' experiment="<what it trains or sweeps, that takes minutes>", tolerance=<relative drift allowed'
            " between a fresh run and the committed record>)"
        )
    if bool(mark.kwargs.get("experiment")) != ("tolerance" in mark.kwargs):
        raise store.ClaimError(
            f"{item.nodeid}: an experiment states the tolerance a fresh run may differ by from its committed record "
            '(experiment="<what it runs>", tolerance=0.1 for 10 %); tolerance= goes only with experiment='
        )
    if mark.kwargs.get("exact") and mark.kwargs.get("identity"):
        raise store.ClaimError(
            f"{item.nodeid}: a claim is an identity (it holds by construction) or an exact finding (it could have "
            "come out otherwise), not both"
        )
    page = mark.kwargs["page"]
    if CUDA_WORDS.search(mark.args[0]) and not mark.kwargs.get("cuda_only"):
        raise store.ClaimError(
            f"{item.nodeid}: the sentence speaks of CUDA or a GPU, which a CPU run cannot verify. Say what the CPU "
            'run shows, and put the CUDA statement in its own claim marked cuda_only="<what it asserts about '
            'CUDA>" (a CPU run records it as not run yet; `nox -s tests_cuda` verifies it)'
        )
    if mark.kwargs.get("cuda_only") and mark.kwargs.get("cpu_only"):
        raise store.ClaimError(f"{item.nodeid}: a claim is cpu_only or cuda_only, not both")
    if not (store.ROOT / "docs" / page).is_file():
        raise store.ClaimError(f"{item.nodeid}: page docs/{page} does not exist; fix page=...")
    return item.name.removeprefix("test_"), mark.args[0], page


CUDA_WORDS = re.compile(r"\b(?:CUDA|GPUs?|cuDNN|cuBLAS)\b")
NOT_RUN_CUDA = "not run: CUDA only"  # the status a CPU run records for a CUDA-only claim


def _cuda_only(item: pytest.Item) -> str | None:
    mark = _marker(item)
    return None if mark is None else mark.kwargs.get("cuda_only")


def _cpu_only(item: pytest.Item) -> str | None:
    mark = _marker(item)
    return None if mark is None else mark.kwargs.get("cpu_only")


def _is_experiment(item: pytest.Item) -> bool:
    mark = _marker(item)
    return bool(mark is not None and mark.kwargs.get("experiment"))
