"""An answer's bytes are bounded: past the engine's bound it ends as an error result.

Tokens are bounded by ``max_tokens`` and the context, but a vocabulary's pieces may be of
any length, so what an answer holds is bounded in bytes too (4 MiB; lowered here so the
tiny model reaches it). The other requests of the batch are not touched.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.llama.bounds import MAX_OUTPUT_BYTES
from gtreview.inference.llama.engine import BatchedLlamaEngine

pytestmark = pytest.mark.native  # llama.cpp runs in this process: each test in a forked child


def ask(max_tokens: int) -> CompletionRequest:
    return CompletionRequest(
        messages=[ChatMessage(role="user", content="Why does gold grade fall below the water level?")],
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=max_tokens),
    )


def test_an_answer_past_its_byte_bound_is_stopped_with_an_error(tiny_gguf: Path) -> None:
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=2, n_ctx=1024, n_threads=2) as engine:
        assert engine.max_output_bytes == MAX_OUTPUT_BYTES == 4 * 2**20
        [free] = engine.generate([ask(48)])
        assert free.ok and len(free.text.encode()) > 40  # the tiny model writes more than the bound below
        engine.max_output_bytes = 40
        bounded, short = engine.generate([ask(48), ask(2)])
    assert bounded.finish_reason == "error" and bounded.error is not None
    assert bounded.error.startswith("the answer passed 40 bytes after ")
    assert bounded.error.endswith("tokens and was stopped (a model whose output grows without end)")
    assert short.ok and short.completion_tokens == 2
