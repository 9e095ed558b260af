"""Drafting paraphrases of finished questions with a drafting model.

One request per question asks for N rewordings that keep what is asked and the
principle but change the vocabulary and sentence structure, away from the wording of
the question and of the evidence it quotes (a model that memorised the reports keeps
its score only on their wording). Every reply is constrained to a JSON schema and
checked by the program: N distinct texts, none the original's own wording, none that
repeats a long run of the original's or the evidence's words; a reply that breaks a
rule is re-asked with the reason (the runner every drafting stage uses). Nothing is
saved here: the application adds each accepted text as a draft paraphrase.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from gtreview.authoring.pricing import PriceTable, StageUsage, Unknown, model_names
from gtreview.authoring.runner import ItemStatus, ReplyRejected, StageItem, run_stage
from gtreview.authoring.schemas import SchemaLimits
from gtreview.authoring.stages import give_away
from gtreview.core.paraphrases import normalised_wording, same_wording
from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, Sampling
from gtreview.inference.context_fit import PromptCheck, check_prompts_fit
from gtreview.judging.prompts import load_template

TEMPLATE = "author_paraphrase_v1"
SCHEMA_NAME = "paraphrases"
#: A paraphrase may share no run of this many consecutive words with the original or its evidence.
SHARED_RUN_WORDS = 8


class ParaphraseSettings(BaseModel):
    reasks: int = Field(default=3, ge=0)
    limits: SchemaLimits = Field(default_factory=SchemaLimits)
    sampling: Sampling = Field(default_factory=lambda: Sampling(temperature=0.7, top_p=0.95, seed=0, max_tokens=2048))


class Paraphrase(BaseModel):
    question: str
    changes: str = ""


class ParaphraseReply(BaseModel):
    paraphrases: list[Paraphrase]


class DraftedParaphrases(BaseModel):
    """The accepted rewordings of one question, with what it took to get them."""

    qid: str
    paraphrases: list[Paraphrase]
    attempts: int
    status: ItemStatus


class ParaphraseFailure(BaseModel):
    qid: str
    reason: str
    attempts: int
    replies: list[str] = Field(default_factory=list)


class ParaphraseDraft(BaseModel):
    """Everything one drafting run produced: rewordings per question, failures, usage, cost."""

    model: str
    backend: dict[str, Any]
    template: str
    template_sha256: str
    drafted: list[DraftedParaphrases] = Field(default_factory=list)
    failures: list[ParaphraseFailure] = Field(default_factory=list)
    usage: StageUsage
    total_cost_usd: float | Unknown = 0.0
    cancelled: bool = False


def paraphrase_schema(count: int, limits: SchemaLimits) -> dict[str, Any]:
    text = {"type": "string", "maxLength": limits.long_text}
    note = {"type": "string", "maxLength": limits.short_text}
    item = {
        "type": "object",
        "properties": {"question": text, "changes": note},
        "required": ["question", "changes"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"paraphrases": {"type": "array", "items": item, "minItems": count, "maxItems": count}},
        "required": ["paraphrases"],
        "additionalProperties": False,
    }


def _evidence_claims(question: dict[str, Any]) -> list[str]:
    items = question.get("evidence")
    return [
        str(item["claim"])
        for item in (items if isinstance(items, list) else [])
        if isinstance(item, dict) and item.get("claim")
    ]


def paraphrase_task(question: dict[str, Any], count: int) -> str:
    claims = "\n".join(f"- {claim}" for claim in _evidence_claims(question)) or "- (none quoted)"
    return (
        f"QUESTION {question.get('id')}\n"
        f"Question (verbatim, as the candidate sees it):\n{question.get('question') or ''}\n\n"
        f"Principle a strong answer shows (do not state or hint at it):\n{question.get('principle') or ''}\n\n"
        f"Evidence the question rests on, in the sources' own words (move away from this wording):\n{claims}\n\n"
        f"TASK: write {count} paraphrases of this question."
    )


def _check(question: dict[str, Any], count: int) -> Callable[[dict[str, Any]], list[Paraphrase]]:
    original = str(question.get("question") or "")
    sources = [original, *_evidence_claims(question)]

    def check(data: dict[str, Any]) -> list[Paraphrase]:
        reply = ParaphraseReply.model_validate(data)
        texts = [p.question.strip() for p in reply.paraphrases]
        problems: list[str] = []
        if len(texts) != count:
            problems.append(f"write exactly {count} paraphrases, not {len(texts)}")
        seen: set[str] = set()
        for n, text in enumerate(texts, start=1):
            if not text:
                problems.append(f"paraphrase {n} is empty")
            elif same_wording(text, original):
                problems.append(f"paraphrase {n} is the original question's own wording")
            elif normalised_wording(text) in seen:
                problems.append(f"paraphrase {n} repeats an earlier paraphrase")
            else:
                shared = next((run for s in sources if (run := give_away(s, text, SHARED_RUN_WORDS))), None)
                if shared:
                    problems.append(f"paraphrase {n} keeps the source's wording ('{shared}'); reword it")
            seen.add(normalised_wording(text))
        if problems:
            raise ReplyRejected("; ".join(problems[:6]))
        return [Paraphrase(question=text, changes=p.changes) for text, p in zip(texts, reply.paraphrases, strict=True)]

    return check


def _items(questions: Sequence[dict[str, Any]], count: int, settings: ParaphraseSettings) -> list[StageItem[Any]]:
    system = load_template(TEMPLATE).text
    schema = paraphrase_schema(count, settings.limits)
    return [
        StageItem(
            str(q.get("id")),
            [ChatMessage(role="system", content=system), ChatMessage(role="user", content=paraphrase_task(q, count))],
            schema,
            _check(q, count),
        )
        for q in questions
    ]


def draft_paraphrases(
    backend: CompletionBackend,
    questions: Sequence[dict[str, Any]],
    *,
    per_question: int,
    settings: ParaphraseSettings | None = None,
    prices: PriceTable | None = None,
    cancel: threading.Event | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ParaphraseDraft:
    """``per_question`` checked rewordings of each of ``questions`` (question objects);
    every prompt is checked against the model's context before the first call."""
    if per_question < 1:
        raise ValueError("per_question must be at least 1")
    settings = settings or ParaphraseSettings()
    items = _items(questions, per_question, settings)
    check_prompts_fit(
        backend,
        [
            PromptCheck(f"question {i.key}", CompletionRequest(messages=i.messages, sampling=settings.sampling))
            for i in items
        ],
        what="paraphrase drafting",
    )
    template = load_template(TEMPLATE)
    usage = StageUsage(stage=SCHEMA_NAME)
    result = ParaphraseDraft(
        model=backend.spec,
        backend=json.loads(json.dumps(backend.describe(), default=str)),  # stored with every paraphrase
        template=template.name,
        template_sha256=template.sha256,
        usage=usage,
    )
    outcomes = run_stage(
        backend,
        SCHEMA_NAME,
        items,
        sampling=settings.sampling,
        reasks=settings.reasks,
        usage=usage,
        cancel=cancel,
        progress=progress,
    )
    for outcome in outcomes:
        if outcome.value is not None:
            result.drafted.append(
                DraftedParaphrases(
                    qid=outcome.key, paraphrases=outcome.value, attempts=outcome.attempts, status=outcome.status
                )
            )
        else:
            result.failures.append(
                ParaphraseFailure(
                    qid=outcome.key, reason=outcome.reason, attempts=outcome.attempts, replies=outcome.replies
                )
            )
    result.cancelled = cancel is not None and cancel.is_set()
    priced = usage.priced(prices or PriceTable(), model_names(backend.spec, result.backend))
    result.usage, result.total_cost_usd = priced, priced.cost_usd
    return result
