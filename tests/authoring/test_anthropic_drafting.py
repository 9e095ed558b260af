"""Drafting through the real Anthropic client, answered by an httpx2 MockTransport.

Replies are shaped like the Messages API's (forced tool use). Covers prompt caching
of the shared corpus context (the request body carries a ``cache_control`` block),
tool-use replies, a malformed one re-asked, a 429 retried by the SDK, and a server
error that stays an error (reported, never a crash).
"""

from __future__ import annotations

import json
import sys
import threading
import types
from collections import Counter
from typing import Any

import httpx2
import pytest

from gtreview.authoring.authority import default_contract
from gtreview.authoring.pipeline import DraftResult, draft_set
from gtreview.inference.anthropic_client import CACHE_MIN_CHARS, AnthropicBackend
from gtreview.inference.backend import ChatMessage, CompletionRequest
from tests.authoring.fakes import DraftScript, corpus, item_of, passages

SECRET = "sk-ant-api03-GTREVIEW-FAKE-KEY-authoring"
USAGE = {"input_tokens": 40, "output_tokens": 60, "cache_creation_input_tokens": 900, "cache_read_input_tokens": 0}


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """A keyring that holds nothing, so a developer's stored key never takes part."""
    module = types.ModuleType("keyring")
    module.get_password = lambda service, username: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", module)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def message(content: list[dict[str, Any]], stop_reason: str = "tool_use") -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": USAGE,
    }


def tool_reply(name: str, payload: dict[str, Any]) -> httpx2.Response:
    return httpx2.Response(200, json=message([{"type": "tool_use", "id": "toolu_01", "name": name, "input": payload}]))


def error(status: int, kind: str) -> httpx2.Response:
    body = {"type": "error", "error": {"type": kind, "message": kind.replace("_", " ")}}
    return httpx2.Response(status, json=body, headers={"retry-after-ms": "1"})


def as_request(body: dict[str, Any]) -> CompletionRequest:
    """The CompletionRequest a Messages API body was made from (for the scripted replies)."""
    messages = [ChatMessage(role="system", content=body.get("system", ""))]
    for m in body["messages"]:
        content = m["content"] if isinstance(m["content"], str) else "".join(b["text"] for b in m["content"])
        messages.append(ChatMessage(role=m["role"], content=content))
    tool = body["tools"][0]
    return CompletionRequest(messages=messages, json_schema=tool["input_schema"], schema_name=tool["name"])


class Api:
    """Recorded replies per stage: cards valid; a question malformed once; a 429 before the
    rubric; the critique always a 500."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.calls: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        scripted = as_request(body)
        key = (scripted.schema_name, item_of(scripted))
        with self.lock:
            self.bodies.append(body)
            self.calls[key] += 1
            call = self.calls[key]
        name = scripted.schema_name
        if name == "question" and call == 1:
            return tool_reply(name, {"title": "Only a title"})
        if name == "marking_block" and call == 1:
            return error(429, "rate_limit_error")
        if name == "critique":
            return error(500, "api_error")
        return tool_reply(name, DraftScript.valid(scripted))


def drafted(api: Api) -> DraftResult:
    client = httpx2.Client(transport=httpx2.MockTransport(api))
    documents = corpus()
    with AnthropicBackend(
        "claude-sonnet-4-6", api_key=SECRET, base_url="http://127.0.0.1:9", http_client=client, max_retries=1
    ) as backend:
        return draft_set(
            backend,
            documents,
            passages(documents),
            n_questions=1,
            access_mode="OPEN_CORPUS",
            authority=default_contract(),
        )


def test_drafting_through_the_anthropic_client() -> None:
    api = Api()
    result = drafted(api)
    [draft] = result.drafts
    assert draft.question.id == "D1" and draft.card.card_id == "K1"
    assert [(p.stage, p.attempts) for p in draft.provenance] == [
        ("cards", 1),
        ("questions", 2),  # the malformed tool input was re-asked with the reason
        ("rubric", 1),  # the 429 was retried inside the SDK
        ("verify", 4),  # a 500 on every try: reported, the draft kept
    ]
    assert api.calls[("marking_block", "D1")] == 2
    assert api.calls[("critique", "D1")] == 8  # 4 attempts, each with one SDK retry
    [failure] = result.failures
    assert failure.stage == "verify" and failure.reason.startswith("the backend failed: HTTP 500: api_error")
    assert [f.code for f in draft.findings] == ["critique-missing"]

    reask = [b for b in api.bodies if b["tools"][0]["name"] == "question"][1]
    assert "Field required" in reask["messages"][-1]["content"]
    assert json.loads(reask["messages"][-2]["content"]) == {"title": "Only a title"}

    for body in api.bodies:
        first = body["messages"][0]
        assert first["role"] == "user" and isinstance(first["content"], list)
        assert first["content"][0]["cache_control"] == {"type": "ephemeral"}
        assert first["content"][0]["text"].startswith("CANDIDATE ACCESS MODE: OPEN_CORPUS")
        assert [m["role"] for m in body["messages"][:3]] == ["user", "assistant", "user"]
        assert isinstance(body["messages"][2]["content"], str)  # only the shared prefix is marked
        assert body["tool_choice"] == {"type": "tool", "name": body["tools"][0]["name"]}
        assert body["system"].startswith("You are")

    # Prompt tokens include the cache write; the cost uses the Sonnet list price.
    cards = result.usage[0]
    assert (cards.requests, cards.prompt_tokens, cards.completion_tokens) == (1, 940, 60)
    assert cards.cost_usd == pytest.approx((940 * 3.0 + 60 * 15.0) / 1e6)
    verify = result.usage[3]
    assert verify.requests == 4 and verify.uncounted_requests == 4 and verify.cost_usd == 0.0


def requests_body(request: CompletionRequest) -> dict[str, Any]:
    api_bodies: list[dict[str, Any]] = []

    def handler(http_request: httpx2.Request) -> httpx2.Response:
        api_bodies.append(json.loads(http_request.content))
        return httpx2.Response(200, json=message([{"type": "text", "text": "ok"}], "end_turn"))

    client = httpx2.Client(transport=httpx2.MockTransport(handler))
    with AnthropicBackend("claude-sonnet-4-6", api_key=SECRET, base_url="http://127.0.0.1:9", http_client=client) as b:
        [result] = b.complete_batch([request])
    assert result.ok and result.prompt_tokens == 940
    return api_bodies[0]


def test_cache_control_marks_the_first_user_message_when_long_or_asked() -> None:
    long_context = "x" * (CACHE_MIN_CHARS + 1)
    conversation = [
        ChatMessage(role="system", content="Be brief."),
        ChatMessage(role="user", content=long_context),
        ChatMessage(role="assistant", content="Read."),
        ChatMessage(role="user", content="y" * (CACHE_MIN_CHARS + 1)),
    ]
    body = requests_body(CompletionRequest(messages=conversation))
    assert body["messages"][0] == {
        "role": "user",
        "content": [{"type": "text", "text": long_context, "cache_control": {"type": "ephemeral"}}],
    }
    assert body["messages"][2]["content"] == "y" * (CACHE_MIN_CHARS + 1)  # one breakpoint only
    assert body["system"] == "Be brief."

    short = [ChatMessage(role="user", content="Grade this.")]
    assert requests_body(CompletionRequest(messages=short))["messages"][0] == {
        "role": "user",
        "content": "Grade this.",
    }
    asked = requests_body(CompletionRequest(messages=short, cache_prefix=True))
    assert asked["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
