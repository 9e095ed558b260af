"""What a runaway generation may hold is bounded, and it ends as a one-line error result.

A chat template that loops while it writes had grown a worker to 2.3 GB in 30 s (only
the 900 s time bound held). Two tiny models in real worker processes: one whose Jinja
template writes without end (the engine stops rendering past what a sequence could hold)
and one whose template grows a string it never writes (nothing to see in the output: the
parent's memory bound on the worker stops it). ``benchmarks/bench_runaway_memory.py``
measures the peaks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.tiny_model import write_tiny_llama_gguf
from gtreview.inference.worker import WorkerBackend

MESSAGES = "{% for message in messages %}{{ message['role'] + ': ' + message['content'] + '\\n' }}{% endfor %}"
LOOPING = (
    "{% for a in range(100000) %}{% for b in range(100000) %}{{ 'the template loops while it writes ' * 40 }}"
    "{% endfor %}{% endfor %}" + MESSAGES
)
HOARDING = (
    "{% set ns = namespace(s='') %}{% for a in range(100000) %}{% for b in range(64) %}"
    "{% set ns.s = ns.s ~ 'x' * 1048576 %}{% endfor %}{% endfor %}" + MESSAGES
)


def ask() -> CompletionRequest:
    return CompletionRequest(
        messages=[ChatMessage(role="user", content="Why does gold grade fall below the water level?")],
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=16),
    )


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("runaway")
    return {
        name: write_tiny_llama_gguf(folder / f"{name}.gguf", chat_template=template)
        for name, template in (("looping", LOOPING), ("hoarding", HOARDING))
    }


def test_a_template_that_writes_without_end_is_an_error_result_and_the_worker_carries_on(
    models: dict[str, Path],
) -> None:
    with WorkerBackend(f"llama:{models['looping']}", answer_timeout_s=300.0) as backend:
        pid = backend.pid
        [result] = backend.complete_batch([ask()])
        assert result.finish_reason == "error" and result.error is not None
        assert result.error.startswith("the chat template wrote more than 1,048,576 characters for one prompt")
        assert "\n" not in result.error
        assert backend.pid == pid  # stopped by the engine, not by killing the worker


def test_a_worker_that_grows_past_its_memory_bound_is_stopped_with_an_error_result(models: dict[str, Path]) -> None:
    with WorkerBackend(
        f"llama:{models['hoarding']}", answer_timeout_s=300.0, memory_headroom_bytes=64 * 2**20
    ) as backend:
        [result] = backend.complete_batch([ask()])
        assert result.finish_reason == "error" and result.error is not None
        assert result.error.startswith("the model worker held ")
        assert "over its bound of" in result.error and "64 MiB above the loaded model" in result.error
        assert result.error.endswith("the model worker was stopped")
        assert backend.pid is None  # the next call starts a fresh worker
