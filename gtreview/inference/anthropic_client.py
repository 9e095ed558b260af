"""A backend for Claude through the Anthropic API, for authoring and judging.

Structured replies use forced tool use (one tool whose input schema is the reply
schema): the model then has to answer with an object of that shape, and its input is
the reply text. The program still validates every reply; this only makes re-asks rare.

Sampling is not ours to set here. The Claude API version that the SDK sends
(2026-10-21) rejects ``temperature``, ``top_p`` and ``top_k``, and there is no seed,
so only ``max_tokens`` is taken from ``Sampling``; describe() records that, because
a repeat of a Claude judgement is a new sample, not a replay.

Prompt caching: drafting sends the same long corpus context as the first user message
of every request, so that message goes as a text block with ``cache_control`` (when
the request asks via ``cache_prefix`` or the message is long). Repeats then bill the
context at the cache-read rate; ``prompt_tokens`` still counts the whole prompt.

The API key is a secret the user trusted us with: it is resolved once (argument, then
the OS keyring, then ``ANTHROPIC_API_KEY``), kept out of describe() and repr, and
registered with ``gtreview.core.redaction`` so that every text coming back (and every
log line) has it masked in case a proxy echoes it.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
import warnings
from typing import TYPE_CHECKING, Any

import anthropic
from anthropic.types import MessageParam, TextBlock, TextBlockParam, ToolChoiceToolParam, ToolParam, ToolUseBlock

from gtreview.core.errors import UserError
from gtreview.core.redaction import redact, redact_json, register_secret, register_url_credentials
from gtreview.inference.backend import CompletionRequest, CompletionResult, FinishReason
from gtreview.inference.pooled import PooledBackend, one_line

if TYPE_CHECKING:
    import httpx2

log = logging.getLogger(__name__)

KEYRING_SERVICE = "gtreview"
KEYRING_USERNAME = "anthropic"
API_KEY_ENV = "ANTHROPIC_API_KEY"
# A first user message longer than this is sent as a cached block (Claude caches
# prompts of at least about 1,024 tokens; shorter marked prefixes are just not cached).
CACHE_MIN_CHARS = 2000
_SAMPLING_NOTE = (
    "server defaults: the Claude API version sent takes no temperature, top_p or top_k and has no seed; "
    "only max_tokens is honoured"
)


class MissingApiKeyError(UserError, ValueError):
    """No Anthropic API key was passed, stored in the keyring or set in the environment."""


def resolve_api_key(explicit: str | None = None) -> tuple[str, str]:
    """The key and where it came from (``argument``, ``keyring`` or ``environment``).

    The keyring comes before the environment: a key the user stored on purpose beats
    one a shell happened to export. Any keyring failure (package missing, no backend,
    a locked D-Bus secret service) just means "not there".
    """
    if explicit and explicit.strip():
        return explicit.strip(), "argument"
    stored = _keyring_key()
    if stored and stored.strip():
        return stored.strip(), "keyring"
    exported = os.environ.get(API_KEY_ENV)
    if exported and exported.strip():
        return exported.strip(), "environment"
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
        log.debug("keyring lookup failed")
        return None
    return value if isinstance(value, str) else None


class AnthropicBackend(PooledBackend):
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
        register_secret(key)
        if base_url:
            register_url_credentials(base_url)
        self.model = model
        self.spec = spec or f"anthropic:{model}"
        self.max_concurrency = max_concurrency
        # The SDK retries connection errors, 408, 409, 429 and 5xx with backoff and
        # honours retry-after, which is the policy we want; it just needs one more try.
        self._client = anthropic.Anthropic(
            api_key=key, base_url=base_url, http_client=http_client, max_retries=max_retries
        )
        self.base_url = redact(str(self._client.base_url))
        self.deprecation = _deprecation(model)
        super().__init__(max_concurrency, "anthropic")

    def __repr__(self) -> str:
        return f"AnthropicBackend(model={self.model!r}, base_url={self.base_url!r})"

    def describe(self) -> dict[str, Any]:
        """Settings to record with each result; never the key, only where it came from."""
        return redact_json(
            {
                "backend": "anthropic",
                "spec": self.spec,
                "model": self.model,
                "base_url": self.base_url,
                "api_key_source": self.api_key_source,
                "sdk_version": anthropic.__version__,
                "api_version": self._client.default_headers.get("anthropic-version"),
                "max_concurrency": self.max_concurrency,
                "structured_output": "forced tool use",
                "prompt_caching": f"first user message when asked or longer than {CACHE_MIN_CHARS} characters",
                "sampling": _SAMPLING_NOTE,
                "seed": None,
                "model_end_of_life": self.deprecation,
            }
        )

    def _close_client(self) -> None:
        self._client.close()

    # -- one request --------------------------------------------------------------

    def _complete_safely(self, request: CompletionRequest) -> CompletionResult:
        try:
            return self._complete(request)
        except anthropic.APIStatusError as exc:  # the SDK has retried 408, 429 and 5xx already
            transient = exc.status_code in (408, 429) or exc.status_code >= 500
            return self._error(f"HTTP {exc.status_code}: {_status_detail(exc)}", unreachable=transient)
        except anthropic.APIConnectionError as exc:  # timeouts included
            return self._error(f"{type(exc).__name__}: {exc}", unreachable=True)
        except Exception as exc:  # noqa: BLE001 - a bug or SDK surprise must cost one result, not the batch
            log.error("unexpected failure in an Anthropic request: %s", redact(repr(exc)))
            return self._error(f"{type(exc).__name__}: {exc}")

    def _complete(self, request: CompletionRequest) -> CompletionResult:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        cached = _cached_message(request)
        messages: list[MessageParam] = []
        for index, m in enumerate(request.messages):
            if index == cached:
                block: TextBlockParam = {"type": "text", "text": m.content, "cache_control": {"type": "ephemeral"}}
                messages.append({"role": "user", "content": [block]})
            elif m.role == "user":
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
        finish: FinishReason = "stop"
        error = None
        if reply.stop_reason in ("max_tokens", "model_context_window_exceeded"):
            finish = "length"
        elif reply.stop_reason == "refusal":
            finish, error = "error", "the model refused to answer (stop_reason=refusal)"
        usage = reply.usage
        # With caching, input_tokens counts only what came after the cache breakpoint;
        # the prompt's size is the sum of the three.
        prompt_tokens = (
            usage.input_tokens + (usage.cache_creation_input_tokens or 0) + (usage.cache_read_input_tokens or 0)
        )
        return CompletionResult(
            text=text,
            finish_reason=finish,
            error=error,
            prompt_tokens=prompt_tokens,
            completion_tokens=usage.output_tokens,
        )

    def _error(self, message: str, *, unreachable: bool = False) -> CompletionResult:
        # redacted before it is cut
        return CompletionResult(finish_reason="error", error=one_line(message), unreachable=unreachable)


def _cached_message(request: CompletionRequest) -> int | None:
    """Index of the message to mark for prompt caching: the first user message, when
    the caller asks for it or it is long enough to be a shared context (a corpus, a
    rubric) worth caching. The cache covers everything up to and including it."""
    first = next((i for i, m in enumerate(request.messages) if m.role == "user"), None)
    if first is None:
        return None
    if request.cache_prefix or len(request.messages[first].content) > CACHE_MIN_CHARS:
        return first
    return None


def _deprecation(model: str) -> str | None:
    """When the SDK knows the model is being retired: the end-of-life date it gives.

    The SDK warns about this on every request; that flood would be hidden by default
    filters, or turn every request into an error where warnings are errors. So the
    date is recorded in describe() and logged once, and the repeats are silenced.
    """
    try:
        from anthropic._data import DEPRECATED_MODELS
    except ImportError:  # a private module: an SDK without it just has no date for us
        return None
    end_of_life = DEPRECATED_MODELS.get(model)
    if end_of_life is None:
        return None
    log.warning("Anthropic model %s is deprecated (end of life %s)", model, end_of_life)
    warnings.filterwarnings(
        "ignore", message=re.escape(f"The model '{model}' is deprecated"), category=DeprecationWarning
    )
    return str(end_of_life)


def _status_detail(exc: anthropic.APIStatusError) -> str:
    """The API's own message ("model: not found") rather than the SDK's dict dump."""
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return f"{error.get('type', 'error')}: {error['message']}"
    return exc.message
