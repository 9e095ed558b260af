"""The four drafting stages, each in its own context: cards, questions, rubrics, verifier.

Every request of every stage starts with the same three messages: the stage's
versioned instructions (system), the shared corpus context (access mode, the
source-authority contract and the numbered passages), and a one-line acknowledgement,
so that the long context is a cacheable prefix (Anthropic prompt caching, llama.cpp
shared prefill) and the conversation alternates user/assistant as strict chat
templates require. The stage's task follows in a last user message.

Separation is the point: the question stage sees the evidence card only, never an
answer or a rubric (it runs before any exists and in a fresh conversation); the
rubric stage sees the finished question but not the question author's reasoning; the
verifier sees the draft and the text each locator resolves to.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from gtreview.authoring.authority import AuthorityContract, Conflict, resolve_conflicts
from gtreview.authoring.models import (
    ADMISSION_RULES,
    CardReply,
    EvidenceCard,
    QuestionReply,
    RubricReply,
)
from gtreview.authoring.passages import SourcePassage, passage_labels, render_passage, shown_in
from gtreview.authoring.pricing import StageUsage
from gtreview.authoring.runner import ItemOutcome, ReplyRejected, StageItem, run_stage
from gtreview.authoring.schemas import SchemaLimits, card_schema, question_schema, rubric_schema
from gtreview.core.rubric import AccessMode
from gtreview.core.validation import validate_question
from gtreview.corpus.locators import CorpusIndex
from gtreview.inference.backend import ChatMessage, CompletionBackend, Sampling
from gtreview.judging.prompts import load_template

CARDS, QUESTIONS, RUBRIC, VERIFY = "cards", "questions", "rubric", "verify"
STAGES = (CARDS, QUESTIONS, RUBRIC, VERIFY)
TEMPLATES = {
    CARDS: "author_cards_v1",
    QUESTIONS: "author_questions_v1",
    RUBRIC: "author_rubric_v1",
    VERIFY: "author_verify_v1",
}
SCHEMA_NAMES = {CARDS: "evidence_card", QUESTIONS: "question", RUBRIC: "marking_block", VERIFY: "critique"}
ACKNOWLEDGEMENT = "I have read the access mode, the source-authority contract and every passage."
StageProgress = Callable[[int, int], None]
Check = Callable[[dict[str, Any]], Any]
ACCESS_NOTES = {
    AccessMode.OPEN_CORPUS: "the candidate may read the whole corpus while answering",
    AccessMode.RETRIEVAL_ASSISTED: "the candidate has a search tool over the corpus but does not read every file",
    AccessMode.CLOSED_CORPUS: "the candidate has no corpus access; every source fact needed must be in the question",
}


class DraftSettings(BaseModel):
    """How drafting asks: re-asks per item, schema bounds, sampling and token limits per stage."""

    reasks: int = Field(default=3, ge=0)
    limits: SchemaLimits = Field(default_factory=SchemaLimits)
    sampling: Sampling = Field(default_factory=lambda: Sampling(temperature=0.3, top_p=0.95, seed=0))
    max_tokens: dict[str, int] = Field(
        default_factory=lambda: {CARDS: 2048, QUESTIONS: 2048, RUBRIC: 8192, VERIFY: 2048}
    )

    def sampling_for(self, stage: str) -> Sampling:
        return self.sampling.model_copy(update={"max_tokens": self.max_tokens.get(stage, self.sampling.max_tokens)})


@dataclass
class DraftContext:
    """What every stage shares: the backend, the passages shown and the rules in force."""

    backend: CompletionBackend
    passages: list[SourcePassage]
    index: CorpusIndex
    authority: AuthorityContract
    access_mode: AccessMode
    settings: DraftSettings = field(default_factory=DraftSettings)
    cancel: threading.Event | None = None
    usage: dict[str, StageUsage] = field(default_factory=lambda: {s: StageUsage(stage=s) for s in STAGES})

    def __post_init__(self) -> None:
        self.access_mode = AccessMode(self.access_mode)
        self.labels = passage_labels(self.passages)
        self.documents = sorted({p.document for p in self.passages})
        self.corpus_message = corpus_context(self.passages, self.authority, self.access_mode)

    def messages(self, stage: str, task: str) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=load_template(TEMPLATES[stage]).text),
            ChatMessage(role="user", content=self.corpus_message),
            ChatMessage(role="assistant", content=ACKNOWLEDGEMENT),
            ChatMessage(role="user", content=task),
        ]

    def run(
        self, stage: str, items: list[StageItem[Any]], progress: StageProgress | None = None
    ) -> list[ItemOutcome[Any]]:
        return run_stage(
            self.backend,
            SCHEMA_NAMES[stage],
            items,
            sampling=self.settings.sampling_for(stage),
            reasks=self.settings.reasks,
            usage=self.usage[stage],
            cancel=self.cancel,
            progress=progress,
        )


def corpus_context(passages: list[SourcePassage], authority: AuthorityContract, access_mode: AccessMode) -> str:
    """The shared first user message of every request (identical across stages)."""
    ranks = [
        f"{rank}. {c.key}: {c.label}. {c.detail} {c.note}".rstrip() for rank, c in enumerate(authority.classes, start=1)
    ]
    shown = [render_passage(label, p) for label, p in zip(passage_labels(passages), passages, strict=True)]
    return "\n".join(
        [
            f"CANDIDATE ACCESS MODE: {access_mode.value} ({ACCESS_NOTES[access_mode]}).",
            "",
            "SOURCE-AUTHORITY CONTRACT (rank 1 is the most authoritative; cite a class by its key):",
            *ranks,
            "",
            "CORPUS PASSAGES (each line is numbered as in its source; cite only what is shown here):",
            "",
            "\n\n".join(shown),
        ]
    )


# -- stage a: evidence cards -----------------------------------------------------------


def focus_groups(labels: list[str], n: int) -> list[list[str]]:
    """``n`` runs of consecutive passage labels (passages are in corpus order), one per card."""
    m = len(labels)
    if m == 0:
        return [[] for _ in range(n)]
    groups = []
    for k in range(n):
        start = (k * m) // n
        end = max(((k + 1) * m) // n, start + 1)
        groups.append(labels[start % m : min(end, m)] or [labels[k % m]])
    return groups


def _check_card(ctx: DraftContext, card_id: str, focus: list[str]) -> Check:
    def check(data: dict[str, Any]) -> EvidenceCard:
        reply = CardReply.model_validate(data)
        keys = ctx.authority.keys
        problems: list[str] = []
        cited = [(f"claims[{i}]", c.source, c.locator, c.authority) for i, c in enumerate(reply.claims)]
        for i, conflict in enumerate(reply.conflicts):
            cited += [
                (f"conflicts[{i}].values[{j}]", v.source, v.locator, v.authority) for j, v in enumerate(conflict.values)
            ]
        for where, source, locator, authority in cited:
            if authority not in keys:
                problems.append(f"{where}.authority '{authority}' is not a class key ({', '.join(keys)})")
            resolution = ctx.index.resolve(source, locator)
            if not resolution.resolved:
                problems.append(f"{where} ({source} | {locator}) does not resolve: {resolution.reason}")
            elif not shown_in(ctx.passages, resolution):
                problems.append(f"{where} ({source} | {locator}) cites text outside the passages you were shown")
        if problems:
            raise ReplyRejected("; ".join(problems[:8]))
        conflicts = [Conflict(subject=c.subject, values=tuple(c.values)) for c in reply.conflicts]
        return EvidenceCard(
            card_id=card_id,
            topic=reply.topic,
            principle=reply.principle,
            claims=reply.claims,
            conflicts=resolve_conflicts(conflicts, ctx.authority),
            focus=focus,
        )

    return check


def draft_cards(ctx: DraftContext, n: int, progress: StageProgress | None = None) -> list[ItemOutcome[EvidenceCard]]:
    return ctx.run(CARDS, card_items(ctx, n), progress)


def card_items(ctx: DraftContext, n: int) -> list[StageItem[Any]]:
    """The ``n`` evidence-card requests, each drawing mainly on its own run of passages."""
    schema = card_schema(ctx.documents, ctx.authority.keys, ctx.settings.limits)
    items: list[StageItem[Any]] = []
    groups = focus_groups(ctx.labels, n)
    for k, focus in enumerate(groups, start=1):
        card_id = f"K{k}"
        sharing = [i for i, group in enumerate(groups, start=1) if group == focus]
        if len(sharing) == 1:
            choice = "The other cards draw on other passages, so choose the topic these passages support best."
        else:  # more cards than passages: cards on the same passages take different topics by rank
            rank = sharing.index(k) + 1
            choice = (
                f"{len(sharing)} cards draw on these passages; rank the topics they support from best to worst and "
                f"take topic number {rank}."
            )
        task = (
            f"TASK: write evidence card {k} of {n}. Draw mainly on passages {', '.join(focus)}; you may also cite "
            f"any other passage shown. {choice}"
        )
        items.append(StageItem(card_id, ctx.messages(CARDS, task), schema, _check_card(ctx, card_id, focus)))
    return items


def render_card(card: EvidenceCard, *, with_principle: bool = True) -> str:
    lines = [f"EVIDENCE CARD {card.card_id}", f"Topic: {card.topic}"]
    if with_principle:
        lines.append(f"Principle: {card.principle}")
    lines.append("Claims:")
    lines += [f"- {c.claim} [{c.source} | {c.locator} | {c.authority}]" for c in card.claims]
    if card.conflicts:
        lines.append("Recorded conflicts, settled by the source-authority contract:")
        for conflict in card.conflicts:
            values = "; ".join(f"'{v.value}' ({v.source} | {v.locator} | {v.authority})" for v in conflict.values)
            lines.append(f"- {conflict.subject}: {values}. {conflict.rule}")
    return "\n".join(lines)


# -- stage b: questions only -------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+")
GIVE_AWAY_WORDS = 8


def give_away(principle: str, question: str, run: int = GIVE_AWAY_WORDS) -> str | None:
    """A run of ``run`` consecutive words of the principle that the question repeats."""
    words = _WORD.findall(principle.casefold())
    text = " " + " ".join(_WORD.findall(question.casefold())) + " "
    for start in range(len(words) - run + 1):
        phrase = " ".join(words[start : start + run])
        if f" {phrase} " in text:
            return phrase
    return None


def _check_question(card: EvidenceCard) -> Check:
    def check(data: dict[str, Any]) -> QuestionReply:
        reply = QuestionReply.model_validate(data)
        missing = [key for key in ADMISSION_RULES if key not in reply.self_check]
        if missing:
            raise ReplyRejected(f"self_check has no entry for {', '.join(missing)}")
        failed = [
            f"{key} ({reply.self_check[key].note})" for key in ADMISSION_RULES if not reply.self_check[key].passed
        ]
        if failed:
            raise ReplyRejected(
                f"by your own check the question fails {'; '.join(failed)}; rewrite it so that every rule passes"
            )
        leak = give_away(card.principle, reply.question)
        if leak:
            raise ReplyRejected(f"the question repeats the principle ('{leak}'), which gives the answer away")
        return reply

    return check


def draft_questions(
    ctx: DraftContext, cards: list[EvidenceCard], progress: StageProgress | None = None
) -> list[ItemOutcome[QuestionReply]]:
    schema = question_schema(ctx.settings.limits)
    items: list[StageItem[Any]] = []
    for card in cards:
        task = (
            f"{render_card(card)}\n\nTASK: write one candidate-facing question from this card, under access mode "
            f"{ctx.access_mode.value}. The principle is what the question must let a strong candidate show; "
            "do not state it or hint at it in the question."
        )
        items.append(StageItem(card.card_id, ctx.messages(QUESTIONS, task), schema, _check_question(card)))
    return ctx.run(QUESTIONS, items, progress)


# -- stage c: answers and rubrics ---------------------------------------------------------


def assemble_question(qid: str, question: QuestionReply, reply: RubricReply) -> dict[str, Any]:
    """A full schema-2.0 question object, shipped-sample shape, in the sample's key order.

    Ids, the gate's component id, ``is_gate`` and fixture ids are the program's, so a
    model cannot get them inconsistent; everything it wrote is kept as written.
    """

    def evidence(e: Any) -> dict[str, Any]:
        item = {k: getattr(e, k) for k in ("claim", "source", "locator", "authority", "confidence")}
        return {**item, "notes": e.notes} if e.notes else item

    return {
        "id": qid,
        "section": re.sub(r"\d+$", "", qid) or "D",
        "title": question.title,
        "question": question.question,
        "type": question.type,
        "mode": "Graduated",
        "difficulty": question.difficulty,
        "model_answer": reply.model_answer,
        "principle": reply.principle,
        "gate": {
            "component_id": "C1",
            "points": reply.gate.points,
            "pass_condition": reply.gate.pass_condition,
            "fail_examples": list(reply.gate.fail_examples),
        },
        "components": [
            {"id": c.id, "points": c.points, "is_gate": c.id == "C1", "credit_if": c.credit_if}
            for c in reply.components
        ],
        "required_concepts": list(reply.required_concepts),
        "accepted_variants": [
            {"canonical": v.canonical, "accepted_variants": v.accepted_variants, **({"note": v.note} if v.note else {})}
            for v in reply.accepted_variants
        ],
        "indicative_terms": list(reply.indicative_terms),
        "do_not_credit": list(reply.do_not_credit),
        "evidence": [evidence(e) for e in reply.evidence],
        "calibration": [
            {
                "fixture_id": f"{qid}-F{n}",
                "response_text": f.response_text,
                "expected_gate_passed": f.expected_gate_passed,
                "expected_component_awards": [{"id": a.id, "awarded": a.awarded} for a in f.expected_component_awards],
                "expected_total": f.expected_total,
                "rationale": f.rationale,
            }
            for n, f in enumerate(reply.calibration, start=1)
        ],
    }


def _check_rubric(qid: str, question: QuestionReply) -> Check:
    def check(data: dict[str, Any]) -> dict[str, Any]:
        content = assemble_question(qid, question, RubricReply.model_validate(data))
        errors = [f for f in validate_question(content) if f.is_error]
        if errors:
            listed = "; ".join(f"{f.path}: {f.message}" for f in errors[:8])
            raise ReplyRejected(f"the marking block breaks rubric rules: {listed}", salvage=content)
        return content

    return check


def render_question(question: QuestionReply) -> str:
    parts = "\n".join(f"- {p}" for p in question.subparts) or "- (none listed)"
    return (
        f"Title: {question.title}\nType: {question.type}\nDifficulty: {question.difficulty}\n"
        f"Question (verbatim, as the candidate sees it):\n{question.question}\n"
        f"Parts the answer must address:\n{parts}\nSource scope: {question.source_scope}"
    )


def draft_rubrics(
    ctx: DraftContext, drafts: list[tuple[str, EvidenceCard, QuestionReply]], progress: StageProgress | None = None
) -> list[ItemOutcome[dict[str, Any]]]:
    schema = rubric_schema(ctx.documents, ctx.authority.keys, ctx.settings.limits)
    items: list[StageItem[Any]] = []
    for qid, card, question in drafts:
        task = (
            f"{render_card(card)}\n\nQUESTION {qid}\n{render_question(question)}\n\nTASK: write the reference "
            "answer and the full marking block for this question."
        )
        items.append(StageItem(qid, ctx.messages(RUBRIC, task), schema, _check_rubric(qid, question)))
    return ctx.run(RUBRIC, items, progress)
