"""Pairwise comparison: every pair judged in both answer orders, then reconciled.

Both orders of every pair of a question go to the backend in one batch (they share
the instructions and marking block). Replies are parsed for the verdict token; one
that cannot be parsed makes the pair unknown. Nothing is re-asked: an unknown pair is
itself a finding about the judge.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel, Field

from gtreview.core.pairwise import PairOutcome, reconcile
from gtreview.core.rubric import Question, VariantRule
from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, Sampling
from gtreview.judging.marking import marking_block
from gtreview.judging.pointwise import JudgeSettings
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
) -> list[PairJudgement]:
    settings = settings or JudgeSettings()
    template = load_template(PAIRWISE)
    common = {"judge": backend.spec, "prompt_sha256": template.sha256, "sampling": settings.sampling}
    results: dict[str, PairJudgement] = {}
    groups: dict[str, list[PairTask]] = {}
    for task in tasks:
        outcome = _without_judge(task)
        if outcome is not None:
            results[task.key] = PairJudgement(
                key=task.key,
                question_id=task.question.id,
                outcome=outcome,
                note="decided without a judge call: empty answer",
                **common,
            )
        else:
            groups.setdefault(task.question.id, []).append(task)
    schema = pairwise_schema()
    for group in groups.values():
        requests = []
        for task in group:
            for first, second in ((task.answer_a, task.answer_b), (task.answer_b, task.answer_a)):
                requests.append(
                    CompletionRequest(
                        messages=pair_messages(task.question, first, second, global_variants),
                        sampling=settings.sampling,
                        json_schema=schema,
                        schema_name="pairwise_verdict",
                    )
                )
        replies = backend.complete_batch(requests)
        for position, task in enumerate(group):
            normal, swapped = replies[2 * position], replies[2 * position + 1]
            normal_verdict, normal_reason = _verdict_text(normal.text if normal.ok else "")
            swapped_verdict, swapped_reason = _verdict_text(swapped.text if swapped.ok else "")
            results[task.key] = PairJudgement(
                key=task.key,
                question_id=task.question.id,
                outcome=reconcile(normal_verdict, swapped_verdict),
                reply_normal=normal.text or (normal.error or ""),
                reply_swapped=swapped.text or (swapped.error or ""),
                reason_normal=normal_reason,
                reason_swapped=swapped_reason,
                **common,
            )
    return [results[task.key] for task in tasks]
