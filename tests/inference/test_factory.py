"""The one factory: a local GGUF always opens in a worker process, servers directly."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest

import gtreview.inference
from gtreview.inference import factory
from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, Sampling, ScoringBackend
from gtreview.inference.factory import open_backend, open_scoring_backend
from gtreview.inference.openai_client import OpenAICompatibleBackend
from gtreview.inference.specs import BackendOpenError, ModelSpecError
from gtreview.inference.worker import WorkerBackend


def refuse_in_process(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("a local model was loaded in the calling process")


def test_a_local_model_opens_in_a_worker_process(tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gtreview.inference.llama import engine as llama_engine

    # The child is a fresh interpreter: these patches only guard this (the calling) process.
    monkeypatch.setattr(llama_engine.BatchedLlamaEngine, "__init__", refuse_in_process)
    monkeypatch.setattr(llama_engine.LlamaBackend, "__init__", refuse_in_process)
    backend = open_backend(f"llama:{tiny_gguf}?ctx=1024&seq=2&threads=2")
    try:
        assert isinstance(backend, WorkerBackend) and isinstance(backend, CompletionBackend)
        assert backend.pid is not None and backend.pid != os.getpid()
        request = CompletionRequest(messages=[ChatMessage(role="user", content="hi")], sampling=Sampling(max_tokens=4))
        assert backend.complete_batch([request])[0].ok
        info = backend.describe()
        assert info["worker"] == "process" and info["pid"] == backend.pid and info["backend"] == "llama.cpp"
    finally:
        backend.close()


def test_the_scoring_opener_is_a_worker_too_and_refuses_servers(
    tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gtreview.inference.llama import engine as llama_engine

    monkeypatch.setattr(llama_engine.BatchedLlamaEngine, "__init__", refuse_in_process)
    scorer = open_scoring_backend(f"llama:{tiny_gguf}?ctx=1024&seq=2&threads=2")
    try:
        assert isinstance(scorer, WorkerBackend) and isinstance(scorer, ScoringBackend)
        assert scorer.pid != os.getpid() and len(scorer.score_texts(["the gold vein"])[0].logprobs) > 0
    finally:
        scorer.close()
    with pytest.raises(BackendOpenError, match="cannot score texts") as refused:
        open_scoring_backend("openai:http://127.0.0.1:9/v1#m")
    assert "\n" not in str(refused.value)


def test_servers_open_directly_with_their_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_worker(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("an HTTP client needs no worker process")

    monkeypatch.setattr(factory, "WorkerBackend", no_worker)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]})

    backend = open_backend("openai:http://127.0.0.1:8080/v1#tiny", transport=httpx.MockTransport(handler))
    try:
        assert isinstance(backend, OpenAICompatibleBackend)
        [result] = backend.complete_batch([CompletionRequest(messages=[ChatMessage(role="user", content="hi")])])
        assert result.text == "ok"
    finally:
        backend.close()


def test_open_errors_are_raised_in_the_caller_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ModelSpecError):
        open_backend("tiny.gguf")
    with pytest.raises(BackendOpenError, match="model file not found") as missing:
        open_backend(f"llama:{tmp_path / 'nowhere.gguf'}")
    assert "\n" not in str(missing.value)


def test_the_package_offers_the_factory() -> None:
    assert gtreview.inference.open_backend is open_backend
    assert gtreview.inference.open_scoring_backend is open_scoring_backend
    assert {"open_backend", "open_scoring_backend", "ScoringBackend", "WorkerDied"} <= set(gtreview.inference.__all__)
    for name in gtreview.inference.__all__:
        assert getattr(gtreview.inference, name) is not None
    with pytest.raises(AttributeError):
        _ = gtreview.inference.open_in_process  # the in-process opener is internal
