"""The one interface every text-generation backend offers to judging and benchmark runs.

A backend takes a batch of chat requests and returns one result per request, in
order. Batching is the backend's business: llama.cpp decodes the batch as parallel
sequences sharing their common prompt prefix; HTTP backends send the requests with
bounded concurrency. A failed request is a result with ``finish_reason="error"``,
never an exception, so one bad request cannot sink the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

Role = Literal["system", "user", "assistant"]
FinishReason = Literal["stop", "length", "error"]


class ChatMessage(BaseModel):
    role: Role
    content: str


class Sampling(BaseModel):
    """Sampling parameters; the defaults are deterministic (judging)."""

    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 0
    seed: int = 0
    max_tokens: int = 1024


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

    @property
    def ok(self) -> bool:
        return self.finish_reason != "error"


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
