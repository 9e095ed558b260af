"""Pairwise comparison: every pair judged in both answer orders, then reconciled.

Both orders of every pair go to the backend in one batch (a local judge shares the
instructions and each question's marking block between them), and each pair is
reported as soon as its second order is in. Replies are parsed for the verdict token; one
that cannot be parsed makes the pair unknown. Nothing is re-asked: an unknown pair is
itself a finding about the judge.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from gtreview.core.errors import Cancelled
from gtreview.core.pairwise import PairOutcome, reconcile
from gtreview.core.rubric import Question, VariantRule
from gtreview.inference.backend import (
    ChatMessage,
    CompletionBackend,
    CompletionRequest,
    CompletionResult,
    Sampling,
    complete,
)
from gtreview.inference.context_fit import PromptCheck, check_prompts_fit
from gtreview.judging.marking import marking_block
from gtreview.judging.pointwise import JudgeSettings, Progress
from gtreview.judging.prompts import PAIRWISE, load_template
from gtreview.judging.schemas import pairwise_schema


class PairTask(BaseModel):
    key: str
    question: Question
    answer_a: str
    answer_b: str


class PairJudgement(BaseModel):
    key: str
    question_id: str
    outcome: PairOutcome
    reply_normal: str = ""
    reply_swapped: str = ""
    reason_normal: str = ""
    reason_swapped: str = ""
    judge: str = ""
    prompt_sha256: str = ""
    sampling: Sampling = Field(default_factory=Sampling)
    note: str = ""
    unreachable: bool = False  # an order never reached the judge (its server down): no verdict, never stored


def pair_messages(
    question: Question, first: str, second: str, global_variants: list[VariantRule] | None
) -> list[ChatMessage]:
    template = load_template(PAIRWISE)
    user = (
        "MARKING BLOCK\n"
        f"{marking_block(question, global_variants)}\n"
        f"ANSWER A:\n<<<\n{first}\n>>>\n\nANSWER B:\n<<<\n{second}\n>>>"
    )
    return [ChatMessage(role="system", content=template.text), ChatMessage(role="user", content=user)]


def _verdict_text(reply: str) -> tuple[str, str]:
    """The verdict token text and the reason, from a JSON reply or free text."""
    try:
        data = json.loads(reply, strict=False)
    except json.JSONDecodeError:
        return reply, ""
    if isinstance(data, dict):
        return str(data.get("verdict", "")), str(data.get("reason", ""))
    return reply, ""


def _without_judge(task: PairTask) -> PairOutcome | None:
    """Empty answers decide the pair without a judge call."""
    empty_a, empty_b = not task.answer_a.strip(), not task.answer_b.strip()
    if empty_a and empty_b:
        return reconcile("[[A=B]]", "[[A=B]]")
    if empty_a:
        return reconcile("[[B>>A]]", "[[A>>B]]")
    if empty_b:
        return reconcile("[[A>>B]]", "[[B>>A]]")
    return None


def compare_answers(
    backend: CompletionBackend,
    tasks: Sequence[PairTask],
    *,
    settings: JudgeSettings | None = None,
    global_variants: list[VariantRule] | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    on_pair: Callable[[PairJudgement], None] | None = None,
) -> list[PairJudgement]:
    """Judge every pair in both orders; results come back in the order of ``tasks``.

    ``on_pair(judgement)`` and then ``progress(done, total, tokens)`` are called as each
    pair's second order comes in; a set ``cancel`` raises
    :class:`~gtreview.core.errors.Cancelled` at the next reply.
    """
    settings = settings or JudgeSettings()
    template = load_template(PAIRWISE)
    common = {"judge": backend.spec, "prompt_sha256": template.sha256, "sampling": settings.sampling}
    results: dict[str, PairJudgement] = {}
    tokens = 0

    def finish(judgement: PairJudgement) -> None:
        results[judgement.key] = judgement
        if on_pair is not None:
            on_pair(judgement)
        if progress is not None:
            progress(len(results), len(tasks), tokens)

    judged: list[PairTask] = []
    for task in tasks:
        outcome = _without_judge(task)
        if outcome is None:
            judged.append(task)
        else:
            note = "decided without a judge call: empty answer"
            finish(PairJudgement(key=task.key, question_id=task.question.id, outcome=outcome, note=note, **common))
    schema = pairwise_schema()
    requests = []
    for task in judged:
        for first, second in ((task.answer_a, task.answer_b), (task.answer_b, task.answer_a)):
            requests.append(
                CompletionRequest(
                    messages=pair_messages(task.question, first, second, global_variants),
                    sampling=settings.sampling,
                    json_schema=schema,
                    schema_name="pairwise_verdict",
                )
            )
    checks = [
        PromptCheck(f"question {judged[i // 2].question.id} pair {judged[i // 2].key}", r)
        for i, r in enumerate(requests)
    ]
    check_prompts_fit(backend, checks, what="pairwise judge")  # before the first call, in one line
    replies: dict[int, CompletionResult] = {}

    def on_result(index: int, result: CompletionResult) -> None:
        nonlocal tokens
        replies[index] = result
        tokens += result.completion_tokens or 0
        position = index // 2
        if 2 * position in replies and 2 * position + 1 in replies:
            finish(_reconciled(judged[position], replies[2 * position], replies[2 * position + 1], common))
        if cancel is not None and cancel.is_set():
            raise Cancelled("pairwise judging was cancelled")

    if requests:
        if cancel is not None and cancel.is_set():
            raise Cancelled("pairwise judging was cancelled")
        complete(backend, requests, cancel=cancel, on_result=on_result)
    return [results[task.key] for task in tasks]


def _reconciled(
    task: PairTask, normal: CompletionResult, swapped: CompletionResult, common: dict[str, Any]
) -> PairJudgement:
    normal_verdict, normal_reason = _verdict_text(normal.text if normal.ok else "")
    swapped_verdict, swapped_reason = _verdict_text(swapped.text if swapped.ok else "")
    lost = [r for r in (normal, swapped) if not r.ok and r.unreachable]
    return PairJudgement(
        key=task.key,
        question_id=task.question.id,
        outcome=reconcile(normal_verdict, swapped_verdict),
        reply_normal=normal.text or (normal.error or ""),
        reply_swapped=swapped.text or (swapped.error or ""),
        reason_normal=normal_reason,
        reason_swapped=swapped_reason,
        unreachable=bool(lost),
        note=(lost[0].error or "") if lost else "",
        **common,
    )
