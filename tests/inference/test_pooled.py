"""The HTTP backends' shared pool: results in order, streamed as they come, and a cancel
that stops sending instead of working through the whole queue."""

from __future__ import annotations

import threading
import time

import pytest

from gtreview.core.errors import Cancelled
from gtreview.inference.backend import ChatMessage, CompletionRequest, CompletionResult
from gtreview.inference.pooled import PooledBackend


class SlowBackend(PooledBackend):
    def __init__(self) -> None:
        super().__init__(concurrency=2, name="test")
        self.sent: list[str] = []
        self.lock = threading.Lock()

    def _complete_safely(self, request: CompletionRequest) -> CompletionResult:
        with self.lock:
            self.sent.append(request.messages[0].content)
        time.sleep(0.02)
        return CompletionResult(text=f"re: {request.messages[0].content}")

    def _close_client(self) -> None:
        pass


def requests(n: int) -> list[CompletionRequest]:
    return [CompletionRequest(messages=[ChatMessage(role="user", content=f"q{i}")]) for i in range(n)]


def test_results_come_in_order_and_each_is_streamed_once() -> None:
    with SlowBackend() as backend:
        seen: list[int] = []
        results = backend.complete_batch(requests(6), on_result=lambda i, r: seen.append(i))
    assert [r.text for r in results] == [f"re: q{i}" for i in range(6)]
    assert sorted(seen) == list(range(6))


def test_a_cancel_stops_sending_and_raises() -> None:
    cancel = threading.Event()
    with SlowBackend() as backend:
        with pytest.raises(Cancelled, match="unanswered"):
            backend.complete_batch(requests(200), on_result=lambda i, r: cancel.set(), cancel=cancel)
        sent = len(backend.sent)
    assert sent < 20  # not the whole queue of 200
