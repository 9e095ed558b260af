"""Running one drafting stage: a batch of requests, each reply checked, broken ones re-asked.

Every stage works the same way, so it lives here once. All items of a stage go to the
backend as one batch (a local model shares the long corpus prefix between them; an
HTTP backend sends them concurrently). Each reply must parse as a JSON object and
pass the stage's check; a reply that does not is re-asked with the reason, at most
``reasks`` times, and then reported as a failed item with every reply kept — never
dropped. A check may offer a *salvage* value with its rejection (a complete question
whose points do not yet add up): when the attempts run out, that value is kept and
flagged for the expert instead of being thrown away.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

from gtreview.authoring.pricing import StageUsage
from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, CompletionResult, Sampling

log = logging.getLogger(__name__)

T = TypeVar("T")
MAX_REPLY_ECHO = 4000


class ReplyRejected(ValueError):
    """A reply that breaks the stage's contract; the message is what the model is told."""

    def __init__(self, reason: str, salvage: Any = None) -> None:
        super().__init__(reason)
        self.salvage = salvage


class ItemStatus(StrEnum):
    OK = "ok"
    FLAGGED = "flagged"  # attempts ran out, but a usable (imperfect) value was kept
    FAILED = "failed"


@dataclass
class StageItem(Generic[T]):
    """One request of a stage and the check its reply must pass."""

    key: str
    messages: list[ChatMessage]
    schema: dict[str, Any]
    check: Callable[[dict[str, Any]], T]


@dataclass
class ItemOutcome(Generic[T]):
    key: str
    status: ItemStatus
    value: T | None = None
    attempts: int = 0
    reason: str = ""
    replies: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class _Pending(Generic[T]):
    item: StageItem[T]
    messages: list[ChatMessage]
    outcome: ItemOutcome[T]
    salvage: Any = None


def json_object(text: str) -> dict[str, Any]:
    """The reply as a JSON object (reasoning and a Markdown fence around it are dropped)."""
    stripped = text.strip()
    if stripped.startswith("<think>") and "</think>" in stripped:  # reasoning split off by a server
        stripped = stripped.split("</think>", 1)[1].strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(stripped, strict=False)
    except json.JSONDecodeError as exc:
        raise ReplyRejected(f"the reply is not valid JSON ({exc.msg} at character {exc.pos})") from None
    if not isinstance(data, dict):
        raise ReplyRejected("the reply is not a JSON object")
    return data


def validation_reason(exc: ValidationError, limit: int = 6) -> str:
    """Pydantic errors as one line the model can act on: ``claims.0.locator: Field required``."""
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error["loc"]) or "the reply"
        parts.append(f"{where}: {error['msg']}")
    more = len(exc.errors()) - limit
    return "; ".join(parts) + (f"; and {more} more problems" if more > 0 else "")


def reask_messages(messages: list[ChatMessage], reply: str, reason: str) -> list[ChatMessage]:
    return [
        *messages,
        ChatMessage(role="assistant", content=reply[:MAX_REPLY_ECHO]),
        ChatMessage(
            role="user",
            content=(
                f"That reply cannot be accepted: {reason}. Reply again with one complete JSON object that follows "
                "the schema and fixes every problem named."
            ),
        ),
    ]


def run_stage(
    backend: CompletionBackend,
    stage: str,
    items: Sequence[StageItem[T]],
    *,
    sampling: Sampling,
    reasks: int,
    usage: StageUsage,
    cancel: threading.Event | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[ItemOutcome[T]]:
    """One outcome per item, in order; tokens of every attempt are added to ``usage``."""
    outcomes = [ItemOutcome[T](key=item.key, status=ItemStatus.FAILED) for item in items]
    pending = [_Pending(item, list(item.messages), outcome) for item, outcome in zip(items, outcomes, strict=True)]
    finished = 0
    for attempt in range(reasks + 1):
        if not pending:
            break
        if cancel is not None and cancel.is_set():
            for entry in pending:
                entry.outcome.reason = "cancelled before a reply was accepted"
            return outcomes
        requests = [
            CompletionRequest(
                messages=entry.messages,
                sampling=sampling.model_copy(update={"seed": sampling.seed + attempt}),
                json_schema=entry.item.schema,
                schema_name=stage,
                cache_prefix=True,
            )
            for entry in pending
        ]
        results = backend.complete_batch(requests)
        if len(results) != len(requests):
            raise RuntimeError(f"{backend.spec} returned {len(results)} results for {len(requests)} requests")
        still: list[_Pending[T]] = []
        for entry, result in zip(pending, results, strict=True):
            if _accept(entry, result, attempt, usage):
                finished += 1
                if progress is not None:
                    progress(finished, len(items))
            else:
                still.append(entry)
        pending = still
    for entry in pending:
        if entry.salvage is not None:
            entry.outcome.status = ItemStatus.FLAGGED
            entry.outcome.value = entry.salvage
        log.warning(
            "%s %s failed after %d attempts: %s", stage, entry.item.key, entry.outcome.attempts, entry.outcome.reason
        )
    return outcomes


def _accept(entry: _Pending[T], result: CompletionResult, attempt: int, usage: StageUsage) -> bool:
    """Check one reply; on rejection, prepare the re-ask. True when the item is done."""
    outcome = entry.outcome
    usage.add(result)
    outcome.attempts = attempt + 1
    outcome.replies.append(result.text)
    outcome.prompt_tokens += result.prompt_tokens or 0
    outcome.completion_tokens += result.completion_tokens or 0
    if not result.ok:  # a transport or server failure: ask the same thing again
        outcome.reason = f"the backend failed: {result.error}"
        return False
    try:
        if result.finish_reason == "length":
            raise ReplyRejected("the reply was cut off at the token limit; keep every text field shorter")
        value = entry.item.check(json_object(result.text))
    except ReplyRejected as exc:
        outcome.reason = str(exc)
        if exc.salvage is not None:
            entry.salvage = exc.salvage
        entry.messages = reask_messages(entry.item.messages, result.text, str(exc))
        return False
    except ValidationError as exc:
        outcome.reason = validation_reason(exc)
        entry.messages = reask_messages(entry.item.messages, result.text, outcome.reason)
        return False
    outcome.status, outcome.value, outcome.reason = ItemStatus.OK, value, ""
    return True
