"""Pointwise judging: one answer against one question's rubric, scored by the program.

Answers to the same question go to the backend as one batch, so a local judge shares
the long prefix (instructions and marking block) between them. A reply that breaks
the contract is re-asked (with the reason) at most ``reasks`` times, then the answer
is recorded as unscored, never as 0 and never dropped. An empty answer fails the gate
without a judge call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from gtreview.core.errors import Cancelled
from gtreview.core.grading import GraderRecord, empty_answer_record, score_verdict
from gtreview.core.rubric import Question, VariantRule
from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, Sampling
from gtreview.judging.contract import ContractViolation, parse_verdict_reply
from gtreview.judging.marking import marking_block
from gtreview.judging.prompts import POINTWISE, load_template
from gtreview.judging.schemas import verdict_schema

Progress = Callable[[int, int], None]
MAX_REPLY_ECHO = 2000


class JudgingCancelled(Cancelled, RuntimeError):
    """Raised between batches when the cancel event is set; ``done`` holds finished work."""

    def __init__(self, done: list[Judgement]) -> None:
        super().__init__("judging was cancelled")
        self.done = done


class JudgeSettings(BaseModel):
    sampling: Sampling = Field(default_factory=lambda: Sampling(temperature=0.0, seed=0, max_tokens=1024))
    reasks: int = 3
    reason_chars: int = 300


class JudgeTask(BaseModel):
    key: str
    question: Question
    answer: str
    fixture_id: str | None = None


class JudgementStatus(StrEnum):
    SCORED = "scored"
    UNSCORED = "unscored"


class Judgement(BaseModel):
    key: str
    question_id: str
    fixture_id: str | None = None
    status: JudgementStatus
    record: GraderRecord | None = None
    unscored_reason: str = ""
    attempts: int = 0
    replies: list[str] = Field(default_factory=list)
    prompt_template: str = POINTWISE
    prompt_sha256: str = ""
    judge: str = ""
    sampling: Sampling = Field(default_factory=Sampling)

    @property
    def total(self) -> int | None:
        return self.record.total if self.record is not None else None


def base_messages(question: Question, answer: str, global_variants: list[VariantRule] | None) -> list[ChatMessage]:
    template = load_template(POINTWISE)
    user = (
        "MARKING BLOCK\n"
        f"{marking_block(question, global_variants)}\n"
        "ANSWER TO GRADE (between the markers):\n<<<\n"
        f"{answer}\n>>>"
    )
    return [ChatMessage(role="system", content=template.text), ChatMessage(role="user", content=user)]


def _reask(messages: list[ChatMessage], reply: str, reason: str) -> list[ChatMessage]:
    return [
        *messages,
        ChatMessage(role="assistant", content=reply[:MAX_REPLY_ECHO]),
        ChatMessage(
            role="user",
            content=f"That reply broke the contract: {reason}. Reply again with one JSON object that follows the schema.",
        ),
    ]


def judge_answers(
    backend: CompletionBackend,
    tasks: Sequence[JudgeTask],
    *,
    settings: JudgeSettings | None = None,
    global_variants: list[VariantRule] | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> list[Judgement]:
    """Judge every task; results come back in the order of ``tasks``."""
    settings = settings or JudgeSettings()
    template = load_template(POINTWISE)
    results: dict[str, Judgement] = {}
    groups: dict[str, list[JudgeTask]] = {}
    for task in tasks:
        groups.setdefault(task.question.id, []).append(task)

    def finish(judgement: Judgement) -> None:
        results[judgement.key] = judgement
        if progress is not None:
            progress(len(results), len(tasks))

    for group in groups.values():
        if cancel is not None and cancel.is_set():
            raise JudgingCancelled([results[t.key] for t in tasks if t.key in results])
        for judgement in _judge_group(backend, group, settings, global_variants, template.sha256):
            finish(judgement)
    return [results[task.key] for task in tasks]


def _judge_group(
    backend: CompletionBackend,
    group: list[JudgeTask],
    settings: JudgeSettings,
    global_variants: list[VariantRule] | None,
    template_sha: str,
) -> list[Judgement]:
    question = group[0].question
    schema = verdict_schema(question, reason_chars=settings.reason_chars)
    done: list[Judgement] = []

    def finish(task: JudgeTask, status: JudgementStatus, **fields: Any) -> None:
        done.append(
            Judgement(
                key=task.key,
                question_id=question.id,
                fixture_id=task.fixture_id,
                status=status,
                prompt_sha256=template_sha,
                judge=backend.spec,
                sampling=settings.sampling,
                **fields,
            )
        )

    pending: list[tuple[JudgeTask, list[ChatMessage], list[str], str]] = []
    for task in group:
        if not task.answer.strip():
            finish(
                task,
                JudgementStatus.SCORED,
                record=empty_answer_record(question, grader_id=backend.spec, fixture_id=task.fixture_id),
            )
        else:
            pending.append((task, base_messages(question, task.answer, global_variants), [], ""))
    for attempt in range(settings.reasks + 1):
        if not pending:
            break
        sampling = settings.sampling.model_copy(update={"seed": settings.sampling.seed + attempt})
        requests = [
            CompletionRequest(messages=m, sampling=sampling, json_schema=schema, schema_name="verdict")
            for _, m, _, _ in pending
        ]
        replies = backend.complete_batch(requests)
        still: list[tuple[JudgeTask, list[ChatMessage], list[str], str]] = []
        for (task, messages, history, _), result in zip(pending, replies, strict=True):
            history = [*history, result.text]
            try:
                if not result.ok:
                    raise ContractViolation(f"the judge backend failed: {result.error}")
                if result.finish_reason == "length":
                    raise ContractViolation("the reply was cut off at the token limit")
                verdict = parse_verdict_reply(question, result.text)
            except ContractViolation as exc:
                still.append(
                    (task, _reask(messages, result.text, str(exc)) if result.ok else messages, history, str(exc))
                )
                continue
            record = score_verdict(question, verdict, grader_id=backend.spec, fixture_id=task.fixture_id)
            finish(task, JudgementStatus.SCORED, record=record, attempts=attempt + 1, replies=history)
        pending = still
    for task, _, history, reason in pending:
        finish(task, JudgementStatus.UNSCORED, unscored_reason=reason, attempts=settings.reasks + 1, replies=history)
    return done
