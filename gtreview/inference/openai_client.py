"""A backend for OpenAI-compatible chat servers: vLLM, llama-server, LM Studio.

These servers are how an analyst scales a judge or a benchmark pass beyond one local
GPU. They batch concurrent requests themselves, so this client only has to keep a
bounded number in flight (a thread pool over one connection pool): enough to fill the
server's batch, never so many that a small llama-server queues them into timeouts.

Transient failures (connection errors, timeouts, 429, 5xx) are retried with a short
backoff because a busy or restarting server is normal during a long pass; a read timeout
only while the server still answers a short request (a hung one would otherwise cost a
full timeout of silence per attempt, minutes per answer). Every other
failure becomes an error result with one line of explanation: one bad request must not
sink the batch, and the caller records it as a generation failure.

A structured reply is asked for with OpenAI's ``response_format`` ``json_schema``.
llama-cpp-python's own server (``python -m llama_cpp.server``, 0.3.x) takes only
``json_object`` with the schema beside it, and refuses ``json_schema`` with an HTTP 500
that would read as an outage; such a refusal switches the backend to that dialect at
once (not counted as a retry) for the request and every later one.

The key and any password in the URL are registered with ``gtreview.core.redaction`` when
the backend opens, so every text that comes back (errors, replies, what the server says
in describe(), log lines) has them removed, however the server quoted them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from gtreview.core.errors import UserError
from gtreview.core.redaction import redact, redact_json, register_secret, register_url_credentials
from gtreview.inference.backend import CompletionRequest, CompletionResult, FinishReason
from gtreview.inference.pooled import PooledBackend, one_line
from gtreview.inference.reply_limits import ReplyTooLarge, post_bounded

log = logging.getLogger(__name__)

API_KEY_ENV = "GTREVIEW_OPENAI_API_KEY"
"""Where a key for a protected server comes from when none is passed. Deliberately not
OPENAI_API_KEY: that one belongs to api.openai.com and must not leak to a lab server."""

JSON_SCHEMA = "json_schema"
JSON_OBJECT = "json_object"
"""The two ways of asking for a reply that follows a JSON schema: OpenAI's (vLLM,
llama-server, LM Studio) and llama-cpp-python's server's (``schema`` beside the type)."""

MAX_RETRY_AFTER_S = 30.0
"""Cap on a server's Retry-After, so a confused server cannot stall a pass for hours."""


def default_backoff(attempt: int) -> float:
    """Seconds to wait before retry ``attempt + 1``: 0.5, 1, 2 (capped at 4)."""
    return float(min(0.5 * 2**attempt, 4.0))


def api_root(base_url: str) -> httpx.URL:
    """The server's root URL, whether the user gave it with or without ``/v1``.

    Users copy either form from server banners (``http://host:8080`` from llama-server,
    ``http://host:8000/v1`` from vLLM docs); both must reach the same endpoints. A query
    string (some gateways want ``?api-version=...``) is kept.
    """
    url = httpx.URL(base_url.strip())
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"not an http(s) server URL: {base_url!r}")
    path = url.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return url.copy_with(path=path or "/")


def _endpoint(root: httpx.URL, suffix: str) -> httpx.URL:
    return root.copy_with(path=root.path.rstrip("/") + suffix)


def _display_url(url: httpx.URL) -> str:
    """The URL without any user:password part, fit for describe() and logs."""
    shown = str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)
    return shown if url.query else shown.rstrip("/")


class OpenAICompatibleBackend(PooledBackend):
    """Chat completions against ``{base_url}/v1/chat/completions`` with bounded concurrency."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        concurrency: int = 4,
        timeout: float = 120.0,
        transport: httpx.BaseTransport | None = None,
        max_retries: int = 3,
        backoff: Callable[[int], float] = default_backoff,
        spec: str | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if not model:
            raise ValueError("an OpenAI-compatible backend needs a model name")
        # A password in the URL (basic auth behind a proxy) is a secret too.
        register_url_credentials(base_url)
        self._root = api_root(base_url)
        self.model = model
        self.base_url = _display_url(self._root)
        self._url_password = self._root.password or None
        self.spec = redact(spec or f"openai:{base_url}#{model}")
        self.concurrency = concurrency
        self.timeout = timeout
        self._max_retries = max(0, max_retries)
        self._backoff = backoff
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        self._secret = key.strip() if key and key.strip() else None
        register_secret(self._secret)
        headers = {"Authorization": f"Bearer {self._secret}"} if self._secret else {}
        self._client = httpx.Client(
            transport=transport,
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )
        self._chat_url = _endpoint(self._root, "/v1/chat/completions")
        self._models_url = _endpoint(self._root, "/v1/models")
        super().__init__(concurrency, "openai")
        self._server_lock = threading.Lock()
        self._server_info: dict[str, Any] | None = None
        self._schema_dialect = JSON_SCHEMA  # JSON_OBJECT once the server refused json_schema

    def __repr__(self) -> str:
        return f"OpenAICompatibleBackend(base_url={self.base_url!r}, model={self.model!r})"

    def describe(self) -> dict[str, Any]:
        """Settings plus what the server says about itself (fetched once, best effort);
        redacted, because it is stored with the run and printed in its report."""
        return redact_json(
            {
                "backend": "openai",
                "spec": self.spec,
                "base_url": self.base_url,
                "model": self.model,
                "authenticated": self._secret is not None or self._url_password is not None,
                "concurrency": self.concurrency,
                "structured_output": (
                    "response_format json_schema (strict)"
                    if self._schema_dialect == JSON_SCHEMA
                    else "response_format json_object with its schema (the server refused json_schema)"
                ),
                "server": self._fetch_server_info(),
            }
        )

    def _close_client(self) -> None:
        self._client.close()

    # -- one request --------------------------------------------------------------

    def _complete_safely(self, request: CompletionRequest) -> CompletionResult:
        try:
            return self._complete(request)
        except Exception as exc:  # a bug here must cost one result, not the whole batch
            log.exception("unexpected failure in an OpenAI-compatible request")
            return self._error(f"internal error: {type(exc).__name__}: {exc}")

    def _complete(self, request: CompletionRequest) -> CompletionResult:
        attempt = 0
        while True:
            body = request_body(self.model, request, schema_dialect=self._schema_dialect)
            retry_after: float | None = None
            try:
                response = post_bounded(self._client, self._chat_url, json=body)
            except ReplyTooLarge as exc:  # the server answered, without end: a result, not an outage
                return self._error(str(exc))
            except httpx.TransportError as exc:
                failure, transient = f"{type(exc).__name__}: {exc or 'no detail'}", True
                if isinstance(exc, httpx.ReadTimeout) and not self._answers_at_all():
                    # A server that took the request and is silent even to a short question
                    # is hung: each retry would be another full read timeout of silence.
                    failure = f"{failure}; the server took the request but does not answer {self.base_url} at all"
                    return self._error(failure).model_copy(update={"unreachable": True})
                log.warning(
                    "no reply from %s within %g s; it answers, so asking again (openai:URL#MODEL?timeout=SECONDS "
                    "waits longer for a slow server's long replies)",
                    self.base_url,
                    self.timeout,
                )
            else:
                if response.status_code == 200:
                    return parse_completion(response)
                if _refuses_json_schema(body, response):
                    log.info("%s takes no json_schema response_format: asking with json_object", self.base_url)
                    self._schema_dialect = JSON_OBJECT
                    continue  # the same request in the server's dialect: no retry spent, no wait
                failure = f"HTTP {response.status_code}: {error_detail(response)}"
                transient = response.status_code in (408, 429) or response.status_code >= 500
                retry_after = _retry_after(response)
            if not transient or attempt >= self._max_retries:
                suffix = f" (after {attempt + 1} attempts)" if attempt else ""
                return self._error(failure + suffix).model_copy(update={"unreachable": transient})
            delay = self._backoff(attempt)
            if retry_after is not None:
                delay = max(delay, min(retry_after, MAX_RETRY_AFTER_S))
            log.info("retrying %s in %.1fs: %s", self.base_url, delay, redact(failure))
            if delay > 0:
                time.sleep(delay)
            attempt += 1

    def _answers_at_all(self) -> bool:
        """Whether the server answers a short request (its model list) within 10 s: a busy
        server does, a hung one does not."""
        try:
            self._client.get(self._models_url, timeout=10.0)
        except httpx.HTTPError:
            return False
        return True

    def _error(self, message: str) -> CompletionResult:
        return CompletionResult(finish_reason="error", error=one_line(message))

    def _fetch_server_info(self) -> dict[str, Any]:
        """GET /v1/models once. A server that answered (even with an error) is cached; a
        connection failure is not, so describe() after the server comes up still works."""
        with self._server_lock:
            if self._server_info is not None:
                return self._server_info
            try:
                response = self._client.get(self._models_url, timeout=10.0)
            except httpx.HTTPError as exc:
                return {"error": one_line(f"{type(exc).__name__}: {exc}")}
            self._server_info = redact_json(_models_summary(response, self.model))
            return self._server_info


class ServerQueryError(UserError, ValueError):
    """A server that cannot say which models it serves (one line naming it)."""


def served_models(
    base_url: str,
    *,
    api_key: str | None = None,
    timeout: float = 10.0,
    transport: httpx.BaseTransport | None = None,
) -> list[str]:
    """The model names an OpenAI-compatible server serves (``GET /v1/models``), in its order."""
    try:
        root = api_root(base_url)
    except ValueError as exc:
        raise ServerQueryError(str(exc)) from None
    key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
    register_secret(key)
    register_url_credentials(base_url)
    headers = {"Authorization": f"Bearer {key.strip()}"} if key and key.strip() else {}
    shown = _display_url(root)
    try:
        with httpx.Client(transport=transport, headers=headers, timeout=timeout) as client:
            response = client.get(_endpoint(root, "/v1/models"))
    except httpx.HTTPError as exc:
        detail = one_line(f"{type(exc).__name__}: {exc}")
        raise ServerQueryError(f"{shown}: cannot ask which models it serves ({detail})") from None
    summary = _models_summary(response, "")
    if "error" in summary:
        raise ServerQueryError(f"{shown}: {redact(summary['error'])}")
    models: list[str] = summary["models"]
    return models


def request_body(model: str, request: CompletionRequest, *, schema_dialect: str = JSON_SCHEMA) -> dict[str, Any]:
    """The JSON body for one chat request.

    ``top_k`` is only sent when set: llama-server and vLLM take it, strict OpenAI
    implementations reject unknown fields. A schema goes in ``response_format`` in
    ``schema_dialect`` (:data:`JSON_SCHEMA` or :data:`JSON_OBJECT`).
    """
    sampling = request.sampling
    body: dict[str, Any] = {
        "model": model,
        "messages": [message.model_dump() for message in request.messages],
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "seed": sampling.seed,
        "max_tokens": sampling.max_tokens,
        "stream": False,
    }
    if sampling.top_k > 0:
        body["top_k"] = sampling.top_k
    if request.json_schema is not None and schema_dialect == JSON_OBJECT:
        body["response_format"] = {"type": JSON_OBJECT, "schema": request.json_schema}
    elif request.json_schema is not None:
        body["response_format"] = {
            "type": JSON_SCHEMA,
            "json_schema": {"name": request.schema_name, "schema": request.json_schema, "strict": True},
        }
    return body


def _refuses_json_schema(body: dict[str, Any], response: httpx.Response) -> bool:
    """Whether a failed reply to a ``json_schema`` request is llama-cpp-python's server
    refusing the type (its pydantic check: "Input should be 'text' or 'json_object'",
    at ``response_format``), whatever status its version wraps that in."""
    if body.get("response_format", {}).get("type") != JSON_SCHEMA or response.status_code < 400:
        return False
    text = response.text
    return "response_format" in text and "'json_object'" in text


def parse_completion(response: httpx.Response) -> CompletionResult:
    """The result of a 200 reply; a reply that is not a chat completion is an error result.

    Reasoning that the server split off (``reasoning_content`` from llama-server and
    older vLLM, ``reasoning`` from newer vLLM) is put back in front of the answer inside
    ``<think>`` tags, so that the stored raw text matches what a local model writes and
    the output cleaner can tell a reasoning-only reply from an empty one.
    """
    try:
        data = response.json()
        choice = data["choices"][0]
        message = choice.get("message") or {}
        content = message.get("content") or ""
        reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
        if not isinstance(content, str) or not isinstance(reasoning, str):
            raise TypeError("message content is not text")
        usage = data.get("usage") or {}
        finish: FinishReason = "length" if choice.get("finish_reason") == "length" else "stop"
        return CompletionResult(
            text=f"<think>\n{reasoning}\n</think>\n{content}" if reasoning else content,
            finish_reason=finish,
            prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
            completion_tokens=_int_or_none(usage.get("completion_tokens")),
        )
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        preview = one_line(response.text, limit=120)  # redacted before it is cut
        return CompletionResult(
            finish_reason="error", error=one_line(f"malformed chat completion ({type(exc).__name__}): {preview}")
        )


def error_detail(response: httpx.Response) -> str:
    """The server's own words about a failed request, from whichever JSON shape it uses."""
    try:
        data = response.json()
    except ValueError:
        return one_line(response.text or response.reason_phrase or "no detail", limit=200)
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            return one_line(str(error["message"]), limit=200)
        for key in ("error", "detail", "message"):
            if data.get(key):
                return one_line(str(data[key]), limit=200)
    return one_line(response.text, limit=200)


def _retry_after(response: httpx.Response) -> float | None:
    try:
        value = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return value if value >= 0 else None


def _models_summary(response: httpx.Response, model: str) -> dict[str, Any]:
    if response.status_code != 200:
        return {"error": f"GET /v1/models: HTTP {response.status_code}: {error_detail(response)}"}
    try:
        entries = [entry for entry in response.json()["data"] if isinstance(entry, dict)]
    except (ValueError, KeyError, TypeError):
        return {"error": "GET /v1/models: not a model list"}
    ids = [str(entry.get("id")) for entry in entries]
    mine = next((entry for entry in entries if entry.get("id") == model), None)
    return {"models": ids, "model": mine}


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
