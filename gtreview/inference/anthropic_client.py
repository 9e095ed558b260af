"""A backend for Claude through the Anthropic API, for authoring and judging.

Structured replies use forced tool use (one tool whose input schema is the reply
schema): the model then has to answer with an object of that shape, and its input is
the reply text. The program still validates every reply; this only makes re-asks rare.

Sampling is not ours to set here. The Claude API version that the SDK sends
(2026-10-21) rejects ``temperature``, ``top_p`` and ``top_k``, and there is no seed,
so only ``max_tokens`` is taken from ``Sampling``; describe() records that, because
a repeat of a Claude judgement is a new sample, not a replay.

The API key is a secret the user trusted us with: it is resolved once (argument, then
the OS keyring, then ``ANTHROPIC_API_KEY``), kept out of describe() and repr, and
masked in every error text in case a proxy echoes it.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import anthropic
from anthropic.types import MessageParam, TextBlock, ToolChoiceToolParam, ToolParam, ToolUseBlock

from gtreview.inference.backend import CompletionRequest, CompletionResult, FinishReason

if TYPE_CHECKING:
    import httpx2

log = logging.getLogger(__name__)

KEYRING_SERVICE = "gtreview"
KEYRING_USERNAME = "anthropic"
API_KEY_ENV = "ANTHROPIC_API_KEY"
_KEY_PATTERN = re.compile(r"sk-ant-[A-Za-z0-9_\-]+")
_SAMPLING_NOTE = (
    "server defaults: the Claude API version sent takes no temperature, top_p or top_k and has no seed; "
    "only max_tokens is honoured"
)


class MissingApiKeyError(ValueError):
    """No Anthropic API key was passed, stored in the keyring or set in the environment."""


def resolve_api_key(explicit: str | None = None) -> tuple[str, str]:
    """The key and where it came from (``argument``, ``keyring`` or ``environment``).

    The keyring comes before the environment: a key the user stored on purpose beats
    one a shell happened to export. Any keyring failure (package missing, no backend,
    a locked D-Bus secret service) just means "not there".
    """
    for source, value in (("argument", explicit), ("keyring", None), ("environment", None)):
        if source == "keyring":
            value = _keyring_key()
        elif source == "environment":
            value = os.environ.get(API_KEY_ENV)
        if value and value.strip():
            return value.strip(), source
    raise MissingApiKeyError(
        "no Anthropic API key: store one with `keyring set gtreview anthropic`, set ANTHROPIC_API_KEY, or pass api_key"
    )


def _keyring_key() -> str | None:
    try:
        keyring = importlib.import_module("keyring")
    except ImportError:
        return None
    try:
        value = keyring.get_password(KEYRING_SERVICE, KEYRING_USERNAME)
    except Exception:  # noqa: BLE001 - every keyring backend fails its own way; all mean "no key here"
        log.debug("keyring lookup failed", exc_info=False)
        return None
    return value if isinstance(value, str) else None


class AnthropicBackend:
    """Claude messages with bounded concurrency; one result per request, never a raise."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_concurrency: int = 4,
        http_client: httpx2.Client | None = None,
        max_retries: int = 3,
        spec: str | None = None,
    ) -> None:
        if not model:
            raise ValueError("an Anthropic backend needs a model name")
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        key, self.api_key_source = resolve_api_key(api_key)
        self._secret = key
        self.model = model
        self.spec = spec or f"anthropic:{model}"
        self.max_concurrency = max_concurrency
        # The SDK retries connection errors, 408, 409, 429 and 5xx with backoff and
        # honours retry-after, which is the policy we want; it just needs one more try.
        self._client = anthropic.Anthropic(
            api_key=key, base_url=base_url, http_client=http_client, max_retries=max_retries
        )
        self.base_url = str(self._client.base_url)
        self._pool = ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="gtreview-anthropic")
        self._closed = False

    def __repr__(self) -> str:
        return f"AnthropicBackend(model={self.model!r}, base_url={self.base_url!r})"

    def __enter__(self) -> AnthropicBackend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def describe(self) -> dict[str, Any]:
        """Settings to record with each result; never the key, only where it came from."""
        return {
            "backend": "anthropic",
            "spec": self.spec,
            "model": self.model,
            "base_url": self.base_url,
            "api_key_source": self.api_key_source,
            "sdk_version": anthropic.__version__,
            "api_version": self._client.default_headers.get("anthropic-version"),
            "max_concurrency": self.max_concurrency,
            "structured_output": "forced tool use",
            "sampling": _SAMPLING_NOTE,
            "seed": None,
        }

    def complete_batch(self, requests: Sequence[CompletionRequest]) -> list[CompletionResult]:
        if self._closed:
            raise RuntimeError("this backend is closed")
        return list(self._pool.map(self._complete_safely, requests))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._client.close()

    # -- one request --------------------------------------------------------------

    def _complete_safely(self, request: CompletionRequest) -> CompletionResult:
        try:
            return self._complete(request)
        except anthropic.APIStatusError as exc:
            return self._error(f"HTTP {exc.status_code}: {_status_detail(exc)}")
        except anthropic.APIConnectionError as exc:
            return self._error(f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a bug or SDK surprise must cost one result, not the batch
            log.error("unexpected failure in an Anthropic request: %s", self._mask(repr(exc)))
            return self._error(f"{type(exc).__name__}: {exc}")

    def _complete(self, request: CompletionRequest) -> CompletionResult:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        messages: list[MessageParam] = []
        for m in request.messages:
            if m.role == "user":
                messages.append({"role": "user", "content": m.content})
            elif m.role == "assistant":
                messages.append({"role": "assistant", "content": m.content})
        tools: list[ToolParam] = []
        if request.json_schema is not None:
            tools.append(
                {
                    "name": request.schema_name,
                    "description": "Give your reply by calling this tool with an object of this shape.",
                    "input_schema": request.json_schema,
                }
            )
            choice: ToolChoiceToolParam | anthropic.Omit = {"type": "tool", "name": request.schema_name}
        else:
            choice = anthropic.omit
        reply = self._client.messages.create(
            model=self.model,
            max_tokens=request.sampling.max_tokens,
            messages=messages,
            system=system or anthropic.omit,
            tools=tools or anthropic.omit,
            tool_choice=choice,
        )
        return self._result(reply, request)

    def _result(self, reply: anthropic.types.Message, request: CompletionRequest) -> CompletionResult:
        text = "".join(block.text for block in reply.content if isinstance(block, TextBlock))
        if request.json_schema is not None:
            tool = next(
                (b for b in reply.content if isinstance(b, ToolUseBlock) and b.name == request.schema_name), None
            )
            if tool is not None:
                text = json.dumps(tool.input, ensure_ascii=False)
        usage = reply.usage
        tokens = {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens}
        if reply.stop_reason == "refusal":
            return CompletionResult(text=text, finish_reason="error", error="the model refused to answer", **tokens)
        finish: FinishReason = (
            "length" if reply.stop_reason in ("max_tokens", "model_context_window_exceeded") else "stop"
        )
        return CompletionResult(text=text, finish_reason=finish, **tokens)

    def _error(self, message: str) -> CompletionResult:
        return CompletionResult(finish_reason="error", error=self._mask(_one_line(message)))

    def _mask(self, text: str) -> str:
        return _KEY_PATTERN.sub("sk-ant-***", text.replace(self._secret, "***"))


def _status_detail(exc: anthropic.APIStatusError) -> str:
    """The API's own message ("model: not found") rather than the SDK's dict dump."""
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return f"{error.get('type', 'error')}: {error['message']}"
    return exc.message


def _one_line(text: str, limit: int = 300) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
