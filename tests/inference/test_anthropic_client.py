"""The Anthropic backend through the real SDK, answered by an httpx2 MockTransport.

The SDK (1.0 and later) is built on httpx2, so the mock is an ``httpx2.MockTransport``.
Replies are shaped like the Messages API's. The keyring is always replaced by a fake
module, so a developer's real stored key can never leak into (or satisfy) a test.
"""

from __future__ import annotations

import json
import logging
import sys
import types
from collections.abc import Callable
from typing import Any

import anthropic._data
import httpx2
import pytest

from gtreview.inference.anthropic_client import AnthropicBackend, MissingApiKeyError, resolve_api_key
from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, Sampling

SECRET = "sk-ant-api03-GTREVIEW-FAKE-KEY-0123456789abcdef"
SCHEMA = {
    "type": "object",
    "properties": {"awarded": {"enum": [0, 1, 2]}, "reason": {"type": "string"}},
    "required": ["awarded", "reason"],
}


@pytest.fixture(autouse=True)
def fake_keyring(monkeypatch: pytest.MonkeyPatch) -> dict[str, str | None]:
    """A stand-in keyring module; tests put a key in ``store["anthropic"]``."""
    store: dict[str, str | None] = {"anthropic": None}
    module = types.ModuleType("keyring")

    def get_password(service: str, username: str) -> str | None:
        return store.get(username) if service == "gtreview" else None

    module.get_password = get_password  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", module)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return store


def message(content: list[dict[str, Any]], stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 812, "output_tokens": 57, "cache_read_input_tokens": 0},
    }


class Api:
    """A MockTransport handler: scripted replies, recorded requests."""

    def __init__(self, *replies: httpx2.Response | Callable[[httpx2.Request], httpx2.Response]) -> None:
        self.replies = list(replies)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return reply(request) if callable(reply) else reply

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


def backend_for(api: Api, **kwargs: Any) -> AnthropicBackend:
    kwargs.setdefault("api_key", SECRET)
    client = httpx2.Client(transport=httpx2.MockTransport(api))
    return AnthropicBackend("claude-sonnet-4-6", base_url="http://127.0.0.1:9", http_client=client, **kwargs)


def judge_request(**kwargs: Any) -> CompletionRequest:
    return CompletionRequest(
        messages=[
            ChatMessage(role="system", content="You are a strict grader."),
            ChatMessage(role="system", content="Rubric: two points."),
            ChatMessage(role="user", content="Grade this answer."),
        ],
        **kwargs,
    )


def test_tool_use_reply_becomes_the_json_text() -> None:
    tool_use = {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "verdict"}
    api = Api(
        httpx2.Response(200, json=message([{**tool_use, "input": {"awarded": 2, "reason": "cites p. 4"}}], "tool_use"))
    )
    with backend_for(api) as backend:
        assert isinstance(backend, CompletionBackend)
        [result] = backend.complete_batch(
            [judge_request(json_schema=SCHEMA, schema_name="verdict", sampling=Sampling(max_tokens=300, seed=5))]
        )
    assert result.ok and result.finish_reason == "stop"
    assert json.loads(result.text) == {"awarded": 2, "reason": "cites p. 4"}
    assert (result.prompt_tokens, result.completion_tokens) == (812, 57)
    [body] = api.bodies()
    assert body["tools"] == [
        {"name": "verdict", "description": body["tools"][0]["description"], "input_schema": SCHEMA}
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "verdict"}
    assert body["max_tokens"] == 300 and body["model"] == "claude-sonnet-4-6"
    # The Claude API version the SDK sends rejects these, so they are never sent.
    assert not {"temperature", "top_p", "top_k", "seed"} & body.keys()
    assert str(api.requests[0].url) == "http://127.0.0.1:9/v1/messages"


def test_system_messages_go_to_the_system_parameter() -> None:
    conversation = [
        ChatMessage(role="system", content="Be terse."),
        ChatMessage(role="user", content="Q1"),
        ChatMessage(role="assistant", content="A1"),
        ChatMessage(role="user", content="Q2"),
    ]
    api = Api(httpx2.Response(200, json=message([{"type": "text", "text": "A2"}])))
    with backend_for(api) as backend:
        [result] = backend.complete_batch([CompletionRequest(messages=conversation)])
    assert result.text == "A2"
    [body] = api.bodies()
    assert body["system"] == "Be terse."
    assert body["messages"] == [
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "Q2"},
    ]
    assert "tools" not in body and "tool_choice" not in body


def test_several_system_messages_are_joined() -> None:
    api = Api(httpx2.Response(200, json=message([{"type": "text", "text": "ok"}])))
    with backend_for(api) as backend:
        backend.complete_batch([judge_request()])
    assert api.bodies()[0]["system"] == "You are a strict grader.\n\nRubric: two points."


def test_max_tokens_stop_is_a_length_finish() -> None:
    api = Api(httpx2.Response(200, json=message([{"type": "text", "text": "The answer is"}], "max_tokens")))
    with backend_for(api) as backend:
        [result] = backend.complete_batch([judge_request()])
    assert result.finish_reason == "length" and result.text == "The answer is"


def test_a_refusal_is_an_error_result() -> None:
    api = Api(httpx2.Response(200, json=message([], "refusal")))
    with backend_for(api) as backend:
        [result] = backend.complete_batch([judge_request()])
    assert result.finish_reason == "error" and "refused" in (result.error or "")


def test_api_errors_are_one_line_results() -> None:
    error = {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-nope"}}
    api = Api(httpx2.Response(404, json=error))
    with backend_for(api) as backend:
        results = backend.complete_batch([judge_request(), judge_request()])
    assert [r.error for r in results] == ["HTTP 404: not_found_error: model: claude-nope"] * 2
    assert len(api.requests) == 2


def test_overload_is_retried_by_the_sdk() -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    api = Api(
        httpx2.Response(529, json=overloaded, headers={"retry-after-ms": "1"}),
        httpx2.Response(200, json=message([{"type": "text", "text": "fine"}])),
    )
    with backend_for(api) as backend:
        [result] = backend.complete_batch([judge_request()])
    assert result.ok and result.text == "fine" and len(api.requests) == 2


def test_missing_key_is_a_clear_error() -> None:
    with pytest.raises(MissingApiKeyError) as caught:
        AnthropicBackend("claude-sonnet-4-6")
    text = str(caught.value)
    assert "\n" not in text and "ANTHROPIC_API_KEY" in text and "keyring" in text


def test_keyring_is_preferred_over_the_environment(
    fake_keyring: dict[str, str | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_keyring["anthropic"] = "sk-ant-from-keyring"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    api = Api(httpx2.Response(200, json=message([{"type": "text", "text": "hi"}])))
    with backend_for(api, api_key=None) as backend:
        backend.complete_batch([judge_request()])
        assert backend.describe()["api_key_source"] == "keyring"
    assert api.requests[0].headers["authorization"] == "Bearer sk-ant-from-keyring"


def test_environment_is_used_when_the_keyring_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = types.ModuleType("keyring")

    def get_password(service: str, username: str) -> str | None:
        raise RuntimeError("No recommended backend was available")

    broken.get_password = get_password  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", broken)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env\n")
    assert resolve_api_key() == ("sk-ant-from-env", "environment")
    monkeypatch.setitem(sys.modules, "keyring", None)  # not installed at all
    assert resolve_api_key() == ("sk-ant-from-env", "environment")
    assert resolve_api_key("sk-ant-explicit") == ("sk-ant-explicit", "argument")


def test_the_key_never_appears(caplog: pytest.LogCaptureFixture) -> None:
    def echo_the_key(request: httpx2.Request) -> httpx2.Response:
        assert request.headers["authorization"] == f"Bearer {SECRET}"
        error = {"type": "error", "error": {"type": "authentication_error", "message": f"invalid x-api-key {SECRET}"}}
        return httpx2.Response(401, json=error)

    caplog.set_level(logging.DEBUG)
    api = Api(echo_the_key)
    with backend_for(api) as backend:
        [result] = backend.complete_batch([judge_request()])
        shown = [repr(backend), json.dumps(backend.describe()), result.error or "", caplog.text]
    assert result.finish_reason == "error" and (result.error or "").startswith("HTTP 401: authentication_error")
    for text in shown:
        assert SECRET not in text
        assert "0123456789abcdef" not in text


def test_describe_records_model_and_sampling_limits() -> None:
    with backend_for(Api(httpx2.Response(500))) as backend:
        info = backend.describe()
    assert info["backend"] == "anthropic" and info["model"] == "claude-sonnet-4-6"
    assert info["spec"] == "anthropic:claude-sonnet-4-6"
    assert info["seed"] is None and "no seed" in info["sampling"]
    assert info["api_key_source"] == "argument" and info["base_url"].startswith("http://127.0.0.1:9")


def test_a_retiring_model_is_recorded_and_still_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    # The SDK warns on every request for a model on its list; where warnings are errors
    # (as in this suite) that must not turn each request into an error result.
    monkeypatch.setitem(anthropic._data.DEPRECATED_MODELS, "claude-test-retiring", "June 1st, 2030")
    api = Api(httpx2.Response(200, json=message([{"type": "text", "text": "still here"}])))
    client = httpx2.Client(transport=httpx2.MockTransport(api))
    with AnthropicBackend(
        "claude-test-retiring", api_key=SECRET, base_url="http://127.0.0.1:9", http_client=client
    ) as backend:
        [result] = backend.complete_batch([judge_request()])
        assert backend.describe()["model_end_of_life"] == "June 1st, 2030"
    assert result.ok and result.text == "still here"
