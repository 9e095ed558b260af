"""Whichever backend made a result, what ``complete`` hands on is redacted."""

from __future__ import annotations

from gtreview.core.errors import one_line
from gtreview.inference.backend import ChatMessage, CompletionRequest, CompletionResult, complete
from tests.judging.scripted import ScriptedBackend

LEAK = "failed: GET https://bob:s3cret-pw@hub.example/x with Bearer tok3n-abcdef"


def test_results_and_streamed_results_are_redacted() -> None:
    backend = ScriptedBackend(lambda request: CompletionResult(text=LEAK, finish_reason="error", error=LEAK))
    streamed: list[CompletionResult] = []
    request = CompletionRequest(messages=[ChatMessage(role="user", content="q")])
    (result,) = complete(backend, [request], on_result=lambda index, r: streamed.append(r))
    for shown in (result, *streamed):
        assert shown.error == shown.text == "failed: GET https://bob:***@hub.example/x with Bearer ***"


def test_the_one_line_of_an_error_is_redacted() -> None:
    assert one_line(RuntimeError(LEAK + "\nsecond line")) == "failed: GET https://bob:***@hub.example/x with Bearer ***"
