"""The OpenAI-compatible backend against a mock transport and a real loopback server.

The mock transport replays replies shaped like vLLM's; the loopback server speaks
like llama-server over real sockets, so connection pooling, concurrency bounds and
retries are exercised for real. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, Sampling
from gtreview.inference.openai_client import OpenAICompatibleBackend, api_root

SCHEMA = {
    "type": "object",
    "properties": {"awarded": {"enum": [0, 1, 2]}, "reason": {"type": "string"}},
    "required": ["awarded", "reason"],
}


def no_wait(attempt: int) -> float:
    return 0.0


def ask(text: str = "Is basalt extrusive?", **kwargs: Any) -> CompletionRequest:
    return CompletionRequest(
        messages=[ChatMessage(role="system", content="You judge answers."), ChatMessage(role="user", content=text)],
        **kwargs,
    )


def vllm_reply(content: str, finish: str = "stop", **message: Any) -> dict[str, Any]:
    """A chat completion as vLLM 0.6 returns it."""
    return {
        "id": "chatcmpl-9f1c2d3e4b5a",
        "object": "chat.completion",
        "created": 1730000000,
        "model": "Qwen/Qwen2.5-7B-Instruct",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "tool_calls": [], **message},
                "logprobs": None,
                "finish_reason": finish,
                "stop_reason": None,
            }
        ],
        "usage": {"prompt_tokens": 41, "total_tokens": 53, "completion_tokens": 12},
        "prompt_logprobs": None,
    }


class Recorder:
    """A MockTransport handler that replays scripted replies and keeps the requests."""

    def __init__(self, *replies: httpx.Response | Exception) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        return reply

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


def mock_backend(
    recorder: Recorder, base_url: str = "http://127.0.0.1:8000/v1", **kwargs: Any
) -> OpenAICompatibleBackend:
    kwargs.setdefault("backoff", no_wait)
    return OpenAICompatibleBackend(
        base_url, "Qwen/Qwen2.5-7B-Instruct", transport=httpx.MockTransport(recorder), **kwargs
    )


# -- mock transport ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "base_url",
    ["http://127.0.0.1:8000", "http://127.0.0.1:8000/", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/"],
)
def test_base_url_with_or_without_v1_reaches_the_same_endpoint(base_url: str) -> None:
    recorder = Recorder(httpx.Response(200, json=vllm_reply("yes")))
    with mock_backend(recorder, base_url) as backend:
        [result] = backend.complete_batch([ask()])
    assert str(recorder.requests[0].url) == "http://127.0.0.1:8000/v1/chat/completions"
    assert result.ok and result.text == "yes"
    assert (result.prompt_tokens, result.completion_tokens) == (41, 12)


def test_a_gateway_prefix_and_query_string_are_kept() -> None:
    root = api_root("https://gw.example.test/team/v1?api-version=2")
    assert str(root) == "https://gw.example.test/team?api-version=2"


def test_request_body_carries_sampling_and_schema() -> None:
    recorder = Recorder(httpx.Response(200, json=vllm_reply('{"awarded": 2, "reason": "ok"}')))
    sampling = Sampling(temperature=0.7, top_p=0.9, top_k=40, seed=7, max_tokens=64)
    with mock_backend(recorder) as backend:
        assert isinstance(backend, CompletionBackend)
        backend.complete_batch([ask(sampling=sampling, json_schema=SCHEMA, schema_name="verdict")])
    body = recorder.bodies()[0]
    assert body["model"] == "Qwen/Qwen2.5-7B-Instruct"
    assert body["messages"][0] == {"role": "system", "content": "You judge answers."}
    assert (body["temperature"], body["top_p"], body["top_k"], body["seed"], body["max_tokens"]) == (
        0.7,
        0.9,
        40,
        7,
        64,
    )
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": SCHEMA, "strict": True},
    }


def test_plain_request_sends_no_top_k_and_no_response_format() -> None:
    recorder = Recorder(httpx.Response(200, json=vllm_reply("fine")))
    with mock_backend(recorder) as backend:
        backend.complete_batch([ask()])
    body = recorder.bodies()[0]
    assert "top_k" not in body and "response_format" not in body
    assert body["temperature"] == 0.0 and body["seed"] == 0


# How llama-cpp-python 0.3.36's server (python -m llama_cpp.server) refuses a json_schema
# response_format: its pydantic check, wrapped in an HTTP 500 (tests/inference/test_real_server.py
# meets the real one).
LLAMA_CPP_PYTHON_REFUSAL = {
    "error": {
        "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
        "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
        "'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File \"llama_cpp/server/app.py\", line 376",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}


def test_a_server_that_takes_only_json_object_is_asked_in_its_dialect() -> None:
    waits: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json={"object": "list", "data": [{"id": "m", "owned_by": "me"}]})
        if json.loads(request.content).get("response_format", {}).get("type") == "json_schema":
            return httpx.Response(500, json=LLAMA_CPP_PYTHON_REFUSAL)
        return httpx.Response(200, json=vllm_reply('{"awarded": 2, "reason": "ok"}'))

    seen: list[dict[str, Any]] = []

    def recording(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            seen.append(json.loads(request.content))
        return handler(request)

    def backoff(attempt: int) -> float:
        waits.append(attempt)
        return 0.0

    backend = OpenAICompatibleBackend(
        "http://127.0.0.1:8000", "m", transport=httpx.MockTransport(recording), backoff=backoff
    )
    with backend:
        assert backend.describe()["structured_output"] == "response_format json_schema (strict)"
        [first] = backend.complete_batch([ask(json_schema=SCHEMA, schema_name="verdict")])
        [second] = backend.complete_batch([ask(json_schema=SCHEMA, schema_name="verdict")])
        plain = backend.complete_batch([ask()])
        described = backend.describe()
    assert first.ok and second.ok and json.loads(first.text) == {"awarded": 2, "reason": "ok"}
    assert not first.unreachable and waits == []  # a refusal of the dialect is no outage: no retry, no wait
    formats = [body.get("response_format") for body in seen if "response_format" in body]
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_object"]  # asked once, remembered
    assert formats[1] == {"type": "json_object", "schema": SCHEMA}
    assert plain[0].ok and "response_format" not in seen[-1]
    assert "json_object" in described["structured_output"]


def test_a_json_object_refusal_or_another_500_is_not_taken_for_the_dialect() -> None:
    # the refusal text again for the json_object request: retried as any 500 is, then given up, never a loop
    recorder = Recorder(httpx.Response(500, json=LLAMA_CPP_PYTHON_REFUSAL))
    with mock_backend(recorder, max_retries=1) as backend:
        [result] = backend.complete_batch([ask(json_schema=SCHEMA)])
    assert [b["response_format"]["type"] for b in recorder.bodies()] == ["json_schema", "json_object", "json_object"]
    assert result.unreachable and result.error is not None and result.error.startswith("HTTP 500: 1 validation error")
    # an ordinary 500 on a json_schema request keeps the dialect
    recorder = Recorder(httpx.Response(500, json={"error": {"message": "CUDA out of memory"}}))
    with mock_backend(recorder, max_retries=1) as backend:
        [result] = backend.complete_batch([ask(json_schema=SCHEMA)])
    assert [b["response_format"]["type"] for b in recorder.bodies()] == ["json_schema", "json_schema"]
    assert result.error == "HTTP 500: CUDA out of memory (after 2 attempts)"


def test_length_finish_is_reported() -> None:
    recorder = Recorder(httpx.Response(200, json=vllm_reply('{"awarded": 2, "rea', finish="length")))
    with mock_backend(recorder) as backend:
        [result] = backend.complete_batch([ask()])
    assert result.finish_reason == "length" and result.ok


def test_split_off_reasoning_is_kept_in_think_tags() -> None:
    recorder = Recorder(httpx.Response(200, json=vllm_reply("", reasoning_content="Let me think.")))
    with mock_backend(recorder) as backend:
        [result] = backend.complete_batch([ask()])
    assert result.text == "<think>\nLet me think.\n</think>\n"


def test_transient_failures_are_retried_then_succeed() -> None:
    waits: list[int] = []

    def backoff(attempt: int) -> float:
        waits.append(attempt)
        return 0.0

    recorder = Recorder(
        httpx.ConnectError("connection refused"),
        httpx.Response(503, json={"error": {"message": "loading model"}}),
        httpx.Response(429, text="slow down"),
        httpx.Response(200, json=vllm_reply("done")),
    )
    with mock_backend(recorder, backoff=backoff) as backend:
        [result] = backend.complete_batch([ask()])
    assert result.ok and result.text == "done"
    assert len(recorder.requests) == 4 and waits == [0, 1, 2]


def test_retries_give_up_after_three_with_an_error_result() -> None:
    recorder = Recorder(httpx.Response(503, json={"error": {"message": "server overloaded"}}))
    with mock_backend(recorder) as backend:
        [result] = backend.complete_batch([ask()])
    assert len(recorder.requests) == 4
    assert result.finish_reason == "error"
    assert result.error == "HTTP 503: server overloaded (after 4 attempts)"


def test_a_client_error_is_not_retried() -> None:
    detail = {"object": "error", "message": "This model's maximum context length is 4096 tokens.\nYou asked for 9000."}
    recorder = Recorder(httpx.Response(400, json=detail))
    with mock_backend(recorder) as backend:
        [result] = backend.complete_batch([ask()])
    assert len(recorder.requests) == 1
    assert result.error == "HTTP 400: This model's maximum context length is 4096 tokens. You asked for 9000."


def test_a_malformed_reply_is_an_error_result() -> None:
    recorder = Recorder(httpx.Response(200, text="<html>proxy login</html>"))
    with mock_backend(recorder) as backend:
        [result] = backend.complete_batch([ask()])
    assert result.finish_reason == "error" and result.error is not None
    assert "malformed chat completion" in result.error and "\n" not in result.error


def test_one_bad_request_does_not_sink_the_batch() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        text = json.loads(request.content)["messages"][-1]["content"]
        if text == "bad":
            return httpx.Response(422, json={"detail": "invalid"})
        return httpx.Response(200, json=vllm_reply(text.upper()))

    backend = OpenAICompatibleBackend("http://127.0.0.1:8000", "m", transport=httpx.MockTransport(handler))
    with backend:
        results = backend.complete_batch([ask(t) for t in ("a", "bad", "c", "d", "e")])
    assert [r.text for r in results] == ["A", "", "C", "D", "E"]
    assert results[1].error == "HTTP 422: invalid"


def test_describe_caches_models_and_never_shows_the_key() -> None:
    secret = "sk-local-SECRET-4242"
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(f"{request.method} {request.url.path} {request.headers.get('authorization')}")
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"object": "list", "data": [{"id": "m", "max_model_len": 32768}]})
        return httpx.Response(200, json=vllm_reply("ok"))

    backend = OpenAICompatibleBackend(
        "http://127.0.0.1:8000/v1", "m", api_key=secret, transport=httpx.MockTransport(handler)
    )
    with backend:
        first, second = backend.describe(), backend.describe()
        backend.complete_batch([ask()])
    assert first == second
    assert first["server"] == {"models": ["m"], "model": {"id": "m", "max_model_len": 32768}}
    assert first["base_url"] == "http://127.0.0.1:8000"
    assert calls == ["GET /v1/models Bearer " + secret, "POST /v1/chat/completions Bearer " + secret]
    assert secret not in json.dumps(first) and secret not in repr(backend)


def test_a_password_in_the_url_is_not_shown() -> None:
    with mock_backend(Recorder(httpx.Response(404)), "http://user:hunter2@127.0.0.1:8000/v1") as backend:
        shown = json.dumps(backend.describe()) + repr(backend)
    assert "hunter2" not in shown
    assert backend.base_url == "http://127.0.0.1:8000"


def test_describe_reports_an_unreachable_server_without_raising() -> None:
    recorder = Recorder(httpx.ConnectError("connection refused"))
    with mock_backend(recorder) as backend:
        info = backend.describe()
    assert info["server"] == {"error": "ConnectError: connection refused"}
    assert info["spec"] == "openai:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B-Instruct"


def test_closed_backend_refuses_work() -> None:
    backend = mock_backend(Recorder(httpx.Response(200, json=vllm_reply("x"))))
    backend.close()
    backend.close()
    with pytest.raises(RuntimeError, match="closed"):
        backend.complete_batch([ask()])


# -- a real loopback server that answers like llama-server --------------------------------


@dataclass
class LlamaServerState:
    """What the fake server saw, and what it should answer next."""

    delay: float = 0.0
    statuses: list[int] = field(default_factory=list)  # consumed one per chat request; then 200
    finish: str = "stop"
    bodies: list[dict[str, Any]] = field(default_factory=list)
    active: int = 0
    max_active: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def llama_server_reply(body: dict[str, Any], finish: str) -> dict[str, Any]:
    """A /v1/chat/completions reply as llama-server (b4000-era) writes it."""
    content = json.dumps({"awarded": 1, "reason": "partly"}) if "response_format" in body else "Basalt is extrusive."
    return {
        "choices": [{"finish_reason": finish, "index": 0, "message": {"role": "assistant", "content": content}}],
        "created": 1730000000,
        "model": "gpt-3.5-turbo",
        "system_fingerprint": "b4000-abc1234",
        "object": "chat.completion",
        "usage": {"completion_tokens": 9, "prompt_tokens": 57, "total_tokens": 66},
        "id": "chatcmpl-Xq3V7f0bUe1Yk2",
        "timings": {"prompt_n": 57, "prompt_ms": 12.5, "predicted_n": 9, "predicted_ms": 80.1},
    }


def make_handler(state: LlamaServerState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            meta = {"vocab_type": 1, "n_vocab": 32000, "n_ctx_train": 4096, "n_params": 1_100_000, "size": 2_200_000}
            models = [
                {"id": "tiny.gguf", "object": "model", "created": 1730000000, "owned_by": "llamacpp", "meta": meta}
            ]
            self.send_json(200, {"object": "list", "data": models})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.bodies.append(body)
                state.active += 1
                state.max_active = max(state.max_active, state.active)
                status = state.statuses.pop(0) if state.statuses else 200
            try:
                time.sleep(state.delay)
                if status == 200:
                    self.send_json(200, llama_server_reply(body, state.finish))
                else:
                    error = {"code": status, "message": f"failure {status}", "type": "server_error"}
                    self.send_json(status, {"error": error})
            finally:
                with state.lock:
                    state.active -= 1

    return Handler


@pytest.fixture
def llama_server() -> Iterator[tuple[str, LlamaServerState]]:
    state = LlamaServerState()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def loopback_backend(url: str, **kwargs: Any) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(url, "tiny.gguf", backoff=no_wait, timeout=10, **kwargs)


def test_loopback_request_body_and_structured_reply(llama_server: tuple[str, LlamaServerState]) -> None:
    url, state = llama_server
    with loopback_backend(url + "/v1") as backend:
        [result] = backend.complete_batch([ask(json_schema=SCHEMA, schema_name="verdict", sampling=Sampling(seed=11))])
        info = backend.describe()
    assert result.ok and json.loads(result.text) == {"awarded": 1, "reason": "partly"}
    assert (result.prompt_tokens, result.completion_tokens) == (57, 9)
    [body] = state.bodies
    assert body["temperature"] == 0.0 and body["seed"] == 11 and body["top_p"] == 1.0
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert body["response_format"]["json_schema"]["strict"] is True
    assert info["server"]["models"] == ["tiny.gguf"]
    assert info["server"]["model"]["meta"]["n_ctx_train"] == 4096


def test_loopback_concurrency_is_bounded(llama_server: tuple[str, LlamaServerState]) -> None:
    url, state = llama_server
    state.delay = 0.15
    with loopback_backend(url, concurrency=3) as backend:
        results = backend.complete_batch([ask(f"q{i}") for i in range(10)])
    assert all(r.ok for r in results)
    assert sorted(b["messages"][-1]["content"] for b in state.bodies) == sorted(f"q{i}" for i in range(10))
    assert state.max_active == 3


def test_loopback_retry_on_503_then_success(llama_server: tuple[str, LlamaServerState]) -> None:
    url, state = llama_server
    state.statuses = [503, 503]
    with loopback_backend(url) as backend:
        [result] = backend.complete_batch([ask()])
    assert result.ok and result.text == "Basalt is extrusive."
    assert len(state.bodies) == 3


def test_loopback_400_is_an_error_result(llama_server: tuple[str, LlamaServerState]) -> None:
    url, state = llama_server
    state.statuses = [400]
    with loopback_backend(url) as backend:
        [result] = backend.complete_batch([ask()])
    assert result.finish_reason == "error" and result.error == "HTTP 400: failure 400"
    assert len(state.bodies) == 1


def test_loopback_length_finish(llama_server: tuple[str, LlamaServerState]) -> None:
    url, state = llama_server
    state.finish = "length"
    with loopback_backend(url) as backend:
        [result] = backend.complete_batch([ask(sampling=Sampling(max_tokens=4))])
    assert result.finish_reason == "length"
    assert state.bodies[0]["max_tokens"] == 4


def test_a_dead_server_gives_error_results_not_exceptions() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    attempts: list[int] = []

    def backoff(attempt: int) -> float:
        attempts.append(attempt)
        return 0.0

    with OpenAICompatibleBackend(f"http://127.0.0.1:{port}", "m", backoff=backoff, timeout=5) as backend:
        results = backend.complete_batch([ask(), ask()])
    assert all(r.finish_reason == "error" and "ConnectError" in (r.error or "") for r in results)
    assert sorted(attempts) == [0, 0, 1, 1, 2, 2]


def _silent_chat(models_answer: bool) -> tuple[list[str], httpx.MockTransport]:
    """Chat requests time out; the model list answers or times out too."""
    seen: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path.endswith("/models") and models_answer:
            return httpx.Response(200, json={"object": "list", "data": [{"id": "m", "object": "model"}]})
        raise httpx.ReadTimeout("timed out", request=request)

    return seen, httpx.MockTransport(handle)


def test_a_hung_server_is_an_outage_at_the_first_read_timeout() -> None:
    """A server that accepts and never answers: one read timeout, then a short question it
    cannot answer either, and the request is an outage (not four timeouts of silence)."""
    seen, transport = _silent_chat(models_answer=False)
    with OpenAICompatibleBackend("http://gpu-box:8000", "m", transport=transport, backoff=no_wait) as backend:
        [result] = backend.complete_batch([ask()])
    assert result.finish_reason == "error" and result.unreachable
    assert "does not answer" in (result.error or "")
    assert seen == ["/v1/chat/completions", "/v1/models"]


def test_a_busy_server_that_still_answers_is_asked_again() -> None:
    seen, transport = _silent_chat(models_answer=True)
    with OpenAICompatibleBackend(
        "http://gpu-box:8000", "m", transport=transport, backoff=no_wait, max_retries=2
    ) as backend:
        [result] = backend.complete_batch([ask()])
    assert result.finish_reason == "error" and result.unreachable and "after 3 attempts" in (result.error or "")
    assert seen.count("/v1/chat/completions") == 3
