"""The one interface every text-generation backend offers to judging and benchmark runs.

A backend takes a batch of chat requests and returns one result per request, in
order. Batching is the backend's business: llama.cpp decodes the batch as parallel
sequences sharing their common prompt prefix; HTTP backends send the requests with
bounded concurrency. A failed request is a result with ``finish_reason="error"``,
never an exception, so one bad request cannot sink the batch.

Two keywords are optional, and :func:`complete` passes each only to a backend whose
``complete_batch`` takes it: ``cancel`` (a ``threading.Event``: the worker-process
backend abandons a batch mid-way) and ``on_result(index, result)``, called as each
request finishes, before the batch returns (the local engine, its worker process and
the HTTP pool do; progress can then count verdicts, not batches).
"""

from __future__ import annotations

import inspect
import math
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from gtreview.core.errors import UserError
from gtreview.core.redaction import redact

Role = Literal["system", "user", "assistant"]
FinishReason = Literal["stop", "length", "error"]


class ChatMessage(BaseModel):
    role: Role
    content: str


class Sampling(BaseModel):
    """Sampling parameters; the defaults are deterministic (judging).

    Bounded here as well as in the front-ends: a NaN temperature or a negative token
    budget from a plan file or a dialog would run a whole pass nobody can reproduce.
    """

    temperature: float = Field(default=0.0, ge=0.0, allow_inf_nan=False)
    top_p: float = Field(default=1.0, ge=0.0, le=1.0, allow_inf_nan=False)
    top_k: int = Field(default=0, ge=0)
    seed: int = 0
    max_tokens: int = Field(default=1024, ge=0)


class CompletionRequest(BaseModel):
    messages: list[ChatMessage]
    sampling: Sampling = Field(default_factory=Sampling)
    json_schema: dict[str, Any] | None = None  # constrain the reply to this JSON schema
    schema_name: str = "reply"
    # Ask a backend that supports prompt caching (Anthropic) to cache the first user
    # message: drafting sends the same long corpus context with every request.
    cache_prefix: bool = False


class CompletionResult(BaseModel):
    text: str = ""
    finish_reason: FinishReason = "stop"
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    # The model could not be reached (connection refused, timeout, 429, 5xx): no answer
    # of the model's, so never counted against it; a pass stops and a rerun asks again.
    unreachable: bool = False

    @property
    def ok(self) -> bool:
        return self.finish_reason != "error"

    def redacted(self) -> CompletionResult:
        """This result with every credential removed from its text and error (a server
        or proxy may echo the key or the basic-auth header it was sent)."""
        error = redact(self.error) if self.error else self.error
        return self.model_copy(update={"text": redact(self.text), "error": error})


class ModelUnreachable(UserError):
    """A model (or the judge) could not be reached: a server down, refusing, timing out or
    overloaded. That is no failure of the model, so nothing of it is stored as its
    result: the work stops unfinished, and running it again asks for what is missing."""

    exit_status = 1


# How the clients word a failure to reach the model (a transport error, a timeout, an
# overloaded or failing server), which earlier versions of gtreview stored as the model's own error.
_UNREACHABLE_ERROR = re.compile(
    r"\b(?:HTTP (?:408|429|5\d\d):|(?:Connect|Read|Write|Pool)(?:Error|Timeout)\b|ConnectTimeout\b|"
    r"RemoteProtocolError\b|NetworkError\b|TimeoutException\b|APIConnectionError\b|APITimeoutError\b)"
)


def looks_unreachable(error: str) -> bool:
    """Whether a stored error says the model could not be reached, not that it failed."""
    return bool(_UNREACHABLE_ERROR.search(error))


def unreachable(spec: str, missing: int, total: int, what: str, reason: str) -> ModelUnreachable:
    """The one line a pass stops with when ``missing`` of ``total`` ``what`` could not be asked for."""
    return ModelUnreachable(
        f"{spec} could not be reached: {missing} of {total} {what} are missing ({reason}); "
        "the pass stopped, what was done is stored, and running it again asks for the rest"
    )


@runtime_checkable
class CompletionBackend(Protocol):
    """What judging and runs need from a model."""

    spec: str

    def describe(self) -> dict[str, Any]:
        """What to record with every result: model id, file hash, versions, settings."""
        ...

    def complete_batch(self, requests: Sequence[CompletionRequest]) -> list[CompletionResult]:
        """One result per request, in order."""
        ...

    def close(self) -> None: ...


ResultCallback = Callable[[int, "CompletionResult"], None]


def _accepts(backend: CompletionBackend, keyword: str) -> bool:
    try:
        return keyword in inspect.signature(backend.complete_batch).parameters
    except (TypeError, ValueError):
        return False


def complete(
    backend: CompletionBackend,
    requests: Sequence[CompletionRequest],
    *,
    cancel: threading.Event | None = None,
    on_result: ResultCallback | None = None,
) -> list[CompletionResult]:
    """``backend.complete_batch(requests)`` with the optional keywords it takes.

    ``on_result`` is called exactly once per request: as it finishes when the backend
    streams, otherwise in order after the batch. Every result comes back redacted
    (``CompletionResult.redacted``), whichever backend made it: the HTTP backends already
    redact at their own boundary, and this covers the local worker and any other.
    """
    keywords: dict[str, Any] = {}
    if cancel is not None and _accepts(backend, "cancel"):
        keywords["cancel"] = cancel
    reported: set[int] = set()
    if on_result is not None and _accepts(backend, "on_result"):
        callback = on_result

        def once(index: int, result: CompletionResult) -> None:
            if index not in reported:
                reported.add(index)
                callback(index, result.redacted())

        keywords["on_result"] = once
    results = [result.redacted() for result in backend.complete_batch(requests, **keywords)]
    if on_result is not None:
        for index, result in enumerate(results):
            if index not in reported:
                on_result(index, result)
    return results


@dataclass(frozen=True)
class TokenScores:
    """One text's tokens and the natural-log probability of each scored token.

    ``text_tokens`` is the whole tokenization (with BOS when the model adds one), so a
    caller can build prompts from exactly the tokens that were scored; ``logprobs[i]``
    belongs to ``text_tokens[start + i]`` given everything before it. Plain data, so a
    worker process can send it back as lists.

    ``expected_logprobs[i]`` and ``logprob_variances[i]`` are the mean and variance of
    log p(z) over the whole vocabulary under the model's distribution at that position
    (mu = sum_z p(z) log p(z), the negative entropy; var = sum_z p(z) (log p(z))**2 − mu**2):
    what Min-K%++ standardises by. Only a backend that sees the full logits can give
    them; None elsewhere.
    """

    text_tokens: tuple[int, ...]
    start: int
    logprobs: tuple[float, ...]
    expected_logprobs: tuple[float, ...] | None = None
    logprob_variances: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("expected_logprobs", "logprob_variances"):
            values = getattr(self, name)
            if values is not None and len(values) != len(self.logprobs):
                raise ValueError(f"{len(values)} {name} for {len(self.logprobs)} scored tokens")

    @property
    def has_moments(self) -> bool:
        """Whether the per-position mean and variance of log p came with the scores."""
        return self.expected_logprobs is not None and self.logprob_variances is not None

    @property
    def tokens(self) -> tuple[int, ...]:
        """The scored token ids (positions ``start`` onwards)."""
        return self.text_tokens[self.start :]

    @property
    def total(self) -> float:
        return float(sum(self.logprobs))

    @property
    def mean(self) -> float:
        """Mean per-token log-likelihood; NaN when nothing was scored (text too short)."""
        return self.total / len(self.logprobs) if self.logprobs else math.nan


@runtime_checkable
class ScoringBackend(Protocol):
    """What the memorisation probes need of a local model beyond chat completion: the
    logits of every position of a raw text and plain greedy continuation of a prefix.

    The local llama backend has both; the factory's worker-process backend forwards
    them to its child, so the model is never loaded in the caller.
    """

    def score_texts(self, texts: Sequence[str], *, prefix_tokens: int = 0) -> list[TokenScores]:
        """Per-token log-likelihoods of each raw text (no chat template), in order; with
        the per-position moments of log p where the backend sees the full logits."""
        ...

    def greedy_continuations(self, prompts: Sequence[str | Sequence[int]], max_tokens: int) -> list[list[int]]:
        """The token ids generated greedily after each prompt (a raw text or token ids)."""
        ...

    def close(self) -> None: ...
