"""Pointwise judging: one answer against one question's rubric, scored by the program.

All answers go to the backend as one batch per attempt, so a local judge shares the
long prefixes (the instructions, each question's marking block) between them and keeps
its sequences busy, and each verdict is reported as it comes in. A reply that breaks
the contract is re-asked (with the reason) at most ``reasks`` times, then the answer
is recorded as unscored, never as 0 and never dropped. An empty answer fails the gate
without a judge call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from gtreview.core.errors import Cancelled
from gtreview.core.grading import GraderRecord, JudgeVerdict, empty_answer_record, score_verdict
from gtreview.core.rubric import Question, VariantRule
from gtreview.core.statuses import JudgementStatus as JudgementStatus  # re-exported: a judgement's status
from gtreview.inference.backend import (
    ChatMessage,
    CompletionBackend,
    CompletionRequest,
    CompletionResult,
    Sampling,
    complete,
)
from gtreview.inference.context_fit import PromptCheck, check_prompts_fit
from gtreview.judging.contract import ContractViolation, parse_verdict_reply
from gtreview.judging.marking import marking_block
from gtreview.judging.prompts import POINTWISE, load_template
from gtreview.judging.schemas import BOUNDS, VerdictBounds, verdict_schema

Progress = Callable[[int, int, int], None]  # verdicts final, verdicts asked for, tokens generated
MAX_REPLY_ECHO = 2000


class JudgingCancelled(Cancelled, RuntimeError):
    """Raised when the cancel event is set (at the next finished reply, or between
    attempts); ``done`` holds the finished judgements."""

    def __init__(self, done: list[Judgement]) -> None:
        super().__init__("judging was cancelled")
        self.done = done


class JudgeSettings(BaseModel):
    sampling: Sampling = Field(default_factory=lambda: Sampling(temperature=0.0, seed=0, max_tokens=1024))
    reasks: int = 3
    # The instructions (a template name in resources/prompts) and the verdict's string
    # bounds (None: the ones that template version was written for).
    template: str = POINTWISE
    bounds: VerdictBounds | None = None

    @property
    def verdict_bounds(self) -> VerdictBounds:
        return self.bounds if self.bounds is not None else BOUNDS[self.template]


class JudgeTask(BaseModel):
    key: str
    question: Question
    answer: str
    fixture_id: str | None = None
    # A judge repeat: the order the components are shown in (ids; the verdict still maps
    # back by id) and what is added to the sampling seed. None and 0: as the rubric has it.
    component_order: list[str] | None = None
    seed_offset: int = 0


def presented(question: Question, component_order: list[str] | None) -> Question:
    """The question as the judge is shown it: its components in ``component_order``."""
    if component_order is None:
        return question
    by_id = {c.id: c for c in question.components}
    if sorted(component_order) != sorted(by_id):
        raise ValueError(f"component order {component_order} does not name the components of {question.id}")
    return question.model_copy(update={"components": [by_id[cid] for cid in component_order]})


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
    tokens: int = 0  # what the judge generated for this answer, every attempt together
    # Unscored because the judge could not be reached (its server down): no verdict of
    # the judge's, so a pass never stores it and asks again when it is run again.
    unreachable: bool = False

    @property
    def total(self) -> int | None:
        return self.record.total if self.record is not None else None


def base_messages(
    question: Question, answer: str, global_variants: list[VariantRule] | None, template_name: str = POINTWISE
) -> list[ChatMessage]:
    # The template (the same for every answer and question) comes first and the answer
    # last, so a local judge prefills the instructions once and each marking block once.
    template = load_template(template_name)
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
    on_judgement: Callable[[Judgement], None] | None = None,
) -> list[Judgement]:
    """Judge every task; results come back in the order of ``tasks``.

    All pending answers go to the backend in one batch per attempt (a local judge
    shares each question's prefix between them and keeps its sequences busy);
    ``progress(done, total, tokens)`` is called as each verdict becomes final, with the
    tokens the judge has generated so far, right after ``on_judgement(judgement)`` (a
    pass stores each judgement there, as it is final). A set ``cancel`` stops the work at
    the next finished reply and raises :class:`JudgingCancelled` holding the finished
    judgements. Every prompt's fit in the judge's context is checked before the first
    call (:class:`~gtreview.inference.context_fit.PromptsDoNotFit`, one line).
    """
    settings = settings or JudgeSettings()
    sha = load_template(settings.template).sha256
    results: dict[str, Judgement] = {}
    tokens = 0
    schemas: dict[str, dict[str, Any]] = {}

    def cancelled() -> JudgingCancelled:
        return JudgingCancelled([results[t.key] for t in tasks if t.key in results])

    def finish(task: JudgeTask, status: JudgementStatus, **fields: Any) -> None:
        results[task.key] = judgement = Judgement(
            key=task.key,
            question_id=task.question.id,
            fixture_id=task.fixture_id,
            status=status,
            prompt_template=settings.template,
            prompt_sha256=sha,
            judge=backend.spec,
            sampling=_offset(settings.sampling, task.seed_offset),
            **fields,
        )
        if on_judgement is not None:
            on_judgement(judgement)
        if progress is not None:
            progress(len(results), len(tasks), tokens)

    pending: list[_Pending] = []
    for order, task in enumerate(tasks):
        if not task.answer.strip():
            record = empty_answer_record(task.question, grader_id=backend.spec, fixture_id=task.fixture_id)
            finish(task, JudgementStatus.SCORED, record=record)
        else:
            shown = presented(task.question, task.component_order)
            pending.append(_Pending(order, task, base_messages(shown, task.answer, global_variants, settings.template)))
    for attempt in range(settings.reasks + 1):
        if not pending:
            break
        if cancel is not None and cancel.is_set():
            raise cancelled()
        requests = []
        for item in pending:
            component_order = item.task.component_order
            shape = f"{item.task.question.id}\n{component_order}"  # a shuffled repeat's schema: keys in its order
            if shape not in schemas:
                shown = presented(item.task.question, component_order)
                schemas[shape] = verdict_schema(shown, settings.verdict_bounds)
            requests.append(
                CompletionRequest(
                    messages=item.messages,
                    sampling=_offset(settings.sampling, attempt + item.task.seed_offset),
                    json_schema=schemas[shape],
                    schema_name="verdict",
                )
            )
        if attempt == 0:
            checks = [PromptCheck(_label(item.task), r) for item, r in zip(pending, requests, strict=True)]
            check_prompts_fit(backend, checks, what="judge")
        still: list[_Pending] = []

        def on_result(
            index: int,
            result: CompletionResult,
            attempt: int = attempt,
            asked: list[_Pending] = pending,
            still: list[_Pending] = still,
        ) -> None:
            nonlocal tokens
            item = asked[index]
            tokens += result.completion_tokens or 0
            item.history.append(result.text)
            item.tokens += result.completion_tokens or 0
            item.unreachable = not result.ok and result.unreachable
            try:
                verdict = _read_reply(item.task.question, result)
            except ContractViolation as exc:
                item.reason = str(exc)
                if result.ok:
                    item.messages = _reask(item.messages, result.text, item.reason)
                still.append(item)
            else:
                record = score_verdict(
                    item.task.question, verdict, grader_id=backend.spec, fixture_id=item.task.fixture_id
                )
                finish(
                    item.task,
                    JudgementStatus.SCORED,
                    record=record,
                    attempts=attempt + 1,
                    replies=item.history,
                    tokens=item.tokens,
                )
            if cancel is not None and cancel.is_set():
                raise cancelled()

        try:
            complete(backend, requests, cancel=cancel, on_result=on_result)
        except Cancelled as exc:
            if isinstance(exc, JudgingCancelled):
                raise
            raise cancelled() from exc
        pending = sorted(still, key=lambda item: item.order)
    for item in pending:
        finish(
            item.task,
            JudgementStatus.UNSCORED,
            unscored_reason=item.reason,
            attempts=settings.reasks + 1,
            replies=item.history,
            tokens=item.tokens,
            unreachable=item.unreachable,
        )
    return [results[task.key] for task in tasks]


def _offset(sampling: Sampling, offset: int) -> Sampling:
    return sampling if offset == 0 else sampling.model_copy(update={"seed": sampling.seed + offset})


def _label(task: JudgeTask) -> str:
    """The answer a judge prompt is for, as a fit message names it."""
    if task.fixture_id:
        return f"question {task.question.id} fixture {task.fixture_id}"
    return f"question {task.question.id} answer {task.key}"


class _Pending:
    """An answer still waiting for a valid verdict, with what it was asked so far."""

    def __init__(self, order: int, task: JudgeTask, messages: list[ChatMessage]) -> None:
        self.order, self.task, self.messages = order, task, messages
        self.history: list[str] = []
        self.reason = ""
        self.tokens = 0
        self.unreachable = False  # the last attempt never reached the judge


def _read_reply(question: Question, result: CompletionResult) -> JudgeVerdict:
    if not result.ok:
        raise ContractViolation(f"the judge backend failed: {result.error}")
    if result.finish_reason == "length":
        raise ContractViolation("the reply was cut off at the token limit")
    return parse_verdict_reply(question, result.text)
