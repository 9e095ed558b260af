"""Drafting a benchmark set from the corpus, stage by stage, and saving it as drafts.

``draft_set`` runs evidence cards -> questions -> answers and rubrics -> verifier, each
stage in its own context, and returns everything that happened: the drafted
questions (schema-2.0 objects) with their findings, the provenance of every stage
item (model, backend description, prompt template and its sha256, attempts, tokens),
the tokens and cost of each stage, and every item that failed with its replies.
Nothing is dropped: an item that fails a stage is a reported failure, and a question
whose evidence does not resolve is kept and flagged.

``save_drafts`` stores the drafts as a NEW benchmark set with every question in
status draft. Drafting never approves anything; that is the expert's decision.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, Field
from sqlalchemy import Engine

from gtreview import __version__
from gtreview.authoring.authority import AuthorityContract, to_source_authority
from gtreview.authoring.models import CritiqueReply, EvidenceCard, QuestionReply
from gtreview.authoring.passages import SourcePassage
from gtreview.authoring.pricing import PriceTable, StageUsage, Unknown, model_names, total_cost
from gtreview.authoring.prompt_fit import check_drafting_fits
from gtreview.authoring.runner import ItemOutcome, ItemStatus
from gtreview.authoring.stages import (
    CARDS,
    QUESTIONS,
    RUBRIC,
    STAGES,
    TEMPLATES,
    VERIFY,
    DraftContext,
    DraftSettings,
    draft_cards,
    draft_questions,
    draft_rubrics,
)
from gtreview.authoring.verify import (
    critique_drafts,
    critique_findings,
    flag_entries,
    program_findings,
    resolve_evidence_items,
)
from gtreview.core.corpus import ParsedDocument
from gtreview.core.errors import Cancelled, UserError
from gtreview.core.findings import Finding
from gtreview.core.rubric import SCHEMA_VERSION, AccessMode, Question, Rubric, rubric_to_json_text
from gtreview.corpus.locators import CorpusIndex
from gtreview.inference.backend import CompletionBackend
from gtreview.judging.prompts import load_template
from gtreview.store.db import unit_of_work
from gtreview.store.sets import import_rubric

log = logging.getLogger(__name__)

DraftProgress = Callable[[str, int, int], None]
T = TypeVar("T")


class ItemProvenance(BaseModel):
    """Where one stage item came from, enough to repeat or audit it."""

    stage: str
    item: str
    model: str
    backend: dict[str, Any]
    template: str
    template_sha256: str
    attempts: int
    status: ItemStatus
    prompt_tokens: int = 0
    completion_tokens: int = 0


class StageFailure(BaseModel):
    """A stage item that produced nothing usable after every attempt; its replies are kept."""

    stage: str
    item: str
    reason: str
    attempts: int
    replies: list[str] = Field(default_factory=list)


class DraftQuestion(BaseModel):
    question: Question
    card: EvidenceCard
    question_reply: QuestionReply  # the question stage's reply, with its self-check
    critique: CritiqueReply | None = None
    findings: list[Finding] = Field(default_factory=list)
    provenance: list[ItemProvenance] = Field(default_factory=list)

    @property
    def flagged(self) -> bool:
        """Whether a check failed: the expert must look at the findings before anything else."""
        return any(f.is_error for f in self.findings)


class DraftResult(BaseModel):
    model: str
    backend: dict[str, Any]
    access_mode: AccessMode
    authority: AuthorityContract
    passages: list[SourcePassage]
    templates: dict[str, str]  # template name -> sha256
    cards: list[EvidenceCard] = Field(default_factory=list)
    drafts: list[DraftQuestion] = Field(default_factory=list)
    failures: list[StageFailure] = Field(default_factory=list)
    usage: list[StageUsage] = Field(default_factory=list)
    total_cost_usd: float | Unknown = 0.0
    started_at: str
    finished_at: str = ""
    cancelled: bool = False


class DraftingCancelled(Cancelled, RuntimeError):
    """Raised between stages when the cancel event is set; ``result`` holds what was done."""

    def __init__(self, result: DraftResult) -> None:
        super().__init__("drafting was cancelled")
        self.result = result


class NothingToSaveError(UserError, ValueError):
    """Every item failed, so there is no draft to store."""


@dataclass
class _Planned:
    qid: str
    card: EvidenceCard
    question: QuestionReply
    history: list[ItemOutcome[Any]]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _json_safe(value: dict[str, Any]) -> dict[str, Any]:
    safe: dict[str, Any] = json.loads(json.dumps(value, default=str))
    return safe


class _Run:
    """The state of one draft_set call: the context, the result so far and bookkeeping."""

    def __init__(
        self, ctx: DraftContext, result: DraftResult, progress: DraftProgress | None, prices: PriceTable
    ) -> None:
        self.ctx, self.result, self.progress, self.prices = ctx, result, progress, prices

    def on_progress(self, stage: str, total: int) -> Callable[[int, int], None] | None:
        if self.progress is None:
            return None
        progress = self.progress
        progress(stage, 0, total)
        return lambda done, of: progress(stage, done, of)

    def provenance(self, stage: str, outcome: ItemOutcome[Any]) -> ItemProvenance:
        template = load_template(TEMPLATES[stage])
        return ItemProvenance(
            stage=stage,
            item=outcome.key,
            model=self.result.model,
            backend=self.result.backend,
            template=template.name,
            template_sha256=template.sha256,
            attempts=outcome.attempts,
            status=outcome.status,
            prompt_tokens=outcome.prompt_tokens,
            completion_tokens=outcome.completion_tokens,
        )

    def kept(self, stage: str, outcomes: list[ItemOutcome[T]]) -> list[tuple[ItemOutcome[T], T]]:
        """The outcomes that carry a value; the rest are recorded as failures."""
        kept: list[tuple[ItemOutcome[T], T]] = []
        for outcome in outcomes:
            if outcome.value is not None:
                kept.append((outcome, outcome.value))
                continue
            self.result.failures.append(
                StageFailure(
                    stage=stage,
                    item=outcome.key,
                    reason=outcome.reason,
                    attempts=outcome.attempts,
                    replies=outcome.replies,
                )
            )
        return kept

    def checkpoint(self) -> None:
        if self.ctx.cancel is not None and self.ctx.cancel.is_set():
            self.finish(cancelled=True)
            raise DraftingCancelled(self.result)

    def finish(self, *, cancelled: bool = False) -> DraftResult:
        names = model_names(self.result.model, self.result.backend)
        self.result.usage = [self.ctx.usage[s].priced(self.prices, names) for s in STAGES]
        self.result.total_cost_usd = total_cost(self.result.usage)
        for usage in self.result.usage:
            log.info(
                "drafting stage %s with %s: %d requests, %d prompt + %d completion tokens, cost %s USD",
                usage.stage,
                self.result.model,
                usage.requests,
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.cost_usd,
            )
        self.result.finished_at = _now()
        self.result.cancelled = cancelled
        return self.result


def draft_set(
    backend: CompletionBackend,
    documents: Sequence[ParsedDocument],
    passages: Sequence[SourcePassage],
    *,
    n_questions: int,
    access_mode: AccessMode | str,
    authority: AuthorityContract,
    progress: DraftProgress | None = None,
    cancel: threading.Event | None = None,
    settings: DraftSettings | None = None,
    prices: PriceTable | None = None,
    id_prefix: str = "D",
) -> DraftResult:
    """Draft up to ``n_questions`` questions from ``passages`` (cited against ``documents``)."""
    if n_questions < 1:
        raise ValueError("n_questions must be at least 1")
    if not passages:
        raise ValueError("no corpus passages to draft from")
    mode = AccessMode(access_mode)
    ctx = DraftContext(
        backend=backend,
        passages=list(passages),
        index=CorpusIndex(documents),
        authority=authority,
        access_mode=mode,
        settings=settings or DraftSettings(),
        cancel=cancel,
    )
    check_drafting_fits(ctx, n_questions)  # every prompt carries every passage: refuse before any call
    result = DraftResult(
        model=backend.spec,
        backend=_json_safe(backend.describe()),
        access_mode=mode,
        authority=authority,
        passages=list(passages),
        templates={load_template(t).name: load_template(t).sha256 for t in TEMPLATES.values()},
        started_at=_now(),
    )
    run = _Run(ctx, result, progress, prices or PriceTable())

    cards = run.kept(CARDS, draft_cards(ctx, n_questions, run.on_progress(CARDS, n_questions)))
    result.cards = [card for _, card in cards]
    run.checkpoint()

    questions = run.kept(QUESTIONS, draft_questions(ctx, result.cards, run.on_progress(QUESTIONS, len(cards))))
    card_by_id = {card.card_id: (outcome, card) for outcome, card in cards}
    planned: list[_Planned] = []
    for n, (outcome, question) in enumerate(questions, start=1):
        card_outcome, card = card_by_id[outcome.key]
        planned.append(_Planned(f"{id_prefix}{n}", card, question, [card_outcome, outcome]))
    run.checkpoint()

    items = [(p.qid, p.card, p.question) for p in planned]
    rubrics = draft_rubrics(ctx, items, run.on_progress(RUBRIC, len(planned)))
    run.kept(RUBRIC, rubrics)
    drafted: list[tuple[_Planned, dict[str, Any]]] = []
    for plan, rubric_outcome in zip(planned, rubrics, strict=True):
        if rubric_outcome.value is not None:  # ok, or flagged with the rule errors still in it
            plan.history.append(rubric_outcome)
            drafted.append((plan, rubric_outcome.value))
    run.checkpoint()

    resolutions = [resolve_evidence_items(ctx.index, content) for _, content in drafted]
    critique_items = [(plan.qid, content, r) for (plan, content), r in zip(drafted, resolutions, strict=True)]
    critiques = critique_drafts(ctx, critique_items, run.on_progress(VERIFY, len(drafted)))
    run.kept(VERIFY, critiques)  # a missing critique is a failure, and a finding on a draft that is kept
    for (plan, content), found, critique in zip(drafted, resolutions, critiques, strict=True):
        findings = program_findings(content, found, ctx.passages)
        findings += critique_findings(plan.qid, critique.value, critique.reason or None)
        stages = zip(STAGES, [*plan.history, critique], strict=True)
        result.drafts.append(
            DraftQuestion(
                question=Question.model_validate(content),
                card=plan.card,
                question_reply=plan.question,
                critique=critique.value,
                findings=findings,
                provenance=[run.provenance(stage, o) for stage, o in stages],
            )
        )
    return run.finish()


# -- saving -----------------------------------------------------------------------------


def _question_json(draft: DraftQuestion) -> dict[str, Any]:
    data = draft.question.to_json_dict()
    data["x_provenance"] = {
        "drafted_by": draft.provenance[0].model if draft.provenance else "",
        "backend": draft.provenance[0].backend if draft.provenance else {},
        "card": draft.card.model_dump(mode="json"),
        "subparts": draft.question_reply.subparts,
        "source_scope": draft.question_reply.source_scope,
        "self_check": {k: v.model_dump(mode="json") for k, v in draft.question_reply.self_check.items()},
        "critique": draft.critique.model_dump(mode="json") if draft.critique is not None else None,
        "stages": [p.model_dump(mode="json", exclude={"backend"}) for p in draft.provenance],
    }
    if draft.findings:
        data["x_flags"] = flag_entries(draft.findings)
    return data


def drafts_rubric(result: DraftResult, *, set_name: str) -> Rubric:
    """The drafts as a schema-2.0 rubric, provenance in ``x_provenance`` keys."""
    header: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "benchmark": {
            "name": set_name,
            "question_count": len(result.drafts),
            "description": (
                f"Drafted by {result.model} on {result.started_at[:10]} with gtreview {__version__}. "
                "Every question is a machine draft for expert review; none is approved."
            ),
        },
        "candidate_access_mode": result.access_mode.value,
        "scoring_model": {
            "total_points": 10,
            "integer_scores_only": True,
            "gate_failure_score": 0,
            "positive_marking_after_gate": True,
            "holistic_bands": False,
        },
        "source_authority": [a.to_json_dict() for a in to_source_authority(result.authority)],
        "global_variants": [],
        "questions": [_question_json(d) for d in result.drafts],
        "x_provenance": {
            "tool": f"gtreview {__version__} draft",
            "model": result.model,
            "backend": result.backend,
            "access_mode": result.access_mode.value,
            "authority": result.authority.model_dump(mode="json"),
            "templates": result.templates,
            "passages": [{"source": p.document, "locator": p.locator} for p in result.passages],
            "usage": [u.model_dump(mode="json") for u in result.usage],
            "total_cost_usd": result.total_cost_usd,
            "failures": [f.model_dump(mode="json", exclude={"replies"}) for f in result.failures],
            "started_at": result.started_at,
            "finished_at": result.finished_at,
        },
    }
    return Rubric.model_validate(header)


def save_drafts(engine: Engine, result: DraftResult, *, set_name: str, actor: str) -> int:
    """Store the drafts as a new set (every question in status draft); return its id."""
    if not result.drafts:
        reasons = "; ".join(f"{f.stage} {f.item}: {f.reason}" for f in result.failures[:3])
        raise NothingToSaveError(f"no question survived drafting, so no set was saved ({reasons or 'nothing ran'})")
    rubric = drafts_rubric(result, set_name=set_name)
    sha256 = hashlib.sha256(rubric_to_json_text(rubric).encode("utf-8")).hexdigest()
    with unit_of_work(engine) as tx:
        return import_rubric(tx, rubric, source_name=f"{set_name} (drafted)", source_sha256=sha256, actor=actor)
