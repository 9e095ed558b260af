"""Drafting checks every prompt against the model's context before the first call:
a corpus too long for the model is refused in one line naming the card, the passages
and the token counts, and no request reaches the model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from gtreview.authoring.authority import default_contract
from gtreview.authoring.passages import select_passages
from gtreview.authoring.pipeline import draft_set
from gtreview.core.rubric import AccessMode
from gtreview.inference.backend import CompletionRequest, CompletionResult
from gtreview.inference.context_fit import PromptsDoNotFit
from gtreview.inference.worker import WorkerBackend
from tests.authoring.fakes import corpus
from tests.authoring.test_llama_drafting import TINY


class CountingWorker(WorkerBackend):
    """The real worker backend, counting the completion calls that reach it."""

    def __init__(self, spec: str) -> None:
        super().__init__(spec)
        self.calls = 0

    def complete_batch(
        self, requests: Sequence[CompletionRequest], *args: Any, **kwargs: Any
    ) -> list[CompletionResult]:
        self.calls += 1
        return super().complete_batch(requests, *args, **kwargs)


def draft(backend: WorkerBackend, max_chars: int) -> None:
    draft_set(
        backend,
        corpus(),
        select_passages(corpus(), max_chars=max_chars),
        n_questions=3,
        access_mode=AccessMode.OPEN_CORPUS,
        authority=default_contract(),
        settings=TINY,
    )


def test_a_corpus_too_long_for_the_model_is_refused_before_any_call(tiny_judge_gguf: Path) -> None:
    backend = CountingWorker(f"llama:{tiny_judge_gguf}?ctx=1024&seq=2&threads=1")
    try:
        with pytest.raises(PromptsDoNotFit) as caught:
            draft(backend, max_chars=10_000)
        assert backend.calls == 0
    finally:
        backend.close()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(
        "6 of 6 drafting prompts (each shows 4 passages of reports/1891_inspector.txt, tables/assays.csv) "
        "do not fit the 1,024-token context of llama:"
    )
    assert "evidence card K1 (focus P1) needs 2," in message
    assert "prompt + 400 reply" in message and "and 3 more" in message


def test_a_corpus_that_fits_is_drafted(tiny_judge_gguf: Path) -> None:
    backend = CountingWorker(f"llama:{tiny_judge_gguf}?ctx=8192&seq=2&threads=1")
    try:
        draft(backend, max_chars=300)
        assert backend.calls >= 1
    finally:
        backend.close()
