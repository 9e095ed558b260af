"""Drafting on the real llama.cpp path: a tiny random-weight GGUF under each stage's grammar.

A random model writes grammatical nonsense, so most stage items fail the program's
checks. What must hold is that the pipeline runs end to end, every stage's schema
compiles to a grammar, replies are strict JSON whenever they finish, and failures
are reported with their reasons and replies instead of crashing anything.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.authoring.authority import default_contract
from gtreview.authoring.models import ADMISSION_RULES, EvidenceCard, QuestionReply
from gtreview.authoring.passages import SourcePassage, select_passages
from gtreview.authoring.pipeline import draft_set
from gtreview.authoring.runner import ItemStatus
from gtreview.authoring.schemas import SchemaLimits, card_schema, critique_schema, question_schema, rubric_schema
from gtreview.authoring.stages import (
    STAGES,
    DraftContext,
    DraftSettings,
    draft_questions,
    draft_rubrics,
)
from gtreview.authoring.verify import critique_drafts, resolve_evidence_items
from gtreview.core.rubric import AccessMode
from gtreview.corpus.locators import CorpusIndex
from gtreview.inference.backend import Sampling
from gtreview.inference.factory import open_backend
from gtreview.inference.json_grammar import schema_to_gbnf
from tests.authoring.fakes import card_reply, corpus, question_reply, rubric_reply

TINY = DraftSettings(
    reasks=1,
    limits=SchemaLimits(short_text=8, long_text=16, max_claims=1, max_list=1, max_conflicts=0),
    sampling=Sampling(temperature=0.0, seed=0),
    max_tokens={"cards": 400, "questions": 700, "rubric": 600, "verify": 300},
)


def few_passages() -> list[SourcePassage]:
    """A short context: the byte-level tiny model spends a token per character, and a
    sequence of ``ctx=8192&seq=2`` holds 4,096 of them."""
    return select_passages(corpus(), max_chars=300)


def test_every_stage_schema_compiles_to_a_grammar() -> None:
    documents, keys = ["reports/a.txt", "tables/b.csv"], default_contract().keys
    for limits in (SchemaLimits(), TINY.limits):
        for schema in (
            card_schema(documents, keys, limits),
            question_schema(limits),
            rubric_schema(documents, keys, limits),
            critique_schema(2, limits),
            critique_schema(0, limits),
        ):
            assert "root ::=" in schema_to_gbnf(schema)


def _strict_json_or_cut_off(text: str) -> None:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        assert not text.rstrip().endswith("}"), text  # only an unfinished reply may fail to parse


def test_random_model_drafts_end_to_end_and_reports_failures(tiny_judge_gguf: Path) -> None:
    documents = corpus()
    backend = open_backend(f"llama:{tiny_judge_gguf}?ctx=8192&seq=2&threads=2")
    events: list[tuple[str, int, int]] = []
    try:
        result = draft_set(
            backend,
            documents,
            few_passages(),
            n_questions=2,
            access_mode=AccessMode.OPEN_CORPUS,
            authority=default_contract(),
            settings=TINY,
            progress=lambda *event: events.append(event),
        )
    finally:
        backend.close()
    assert result.model.startswith("llama:") and result.backend["spec"] == result.model
    assert [u.stage for u in result.usage] == list(STAGES)
    assert result.usage[0].requests >= 2 and result.usage[0].prompt_tokens > 0
    assert result.usage[0].cost_usd == 0.0  # a local model costs nothing per token
    assert events[0] == ("cards", 0, 2)
    # Every card either became a draft or is a reported failure; nothing vanished.
    cards_failed = {f.item for f in result.failures if f.stage == "cards"}
    assert len(cards_failed) + len(result.cards) == 2
    for failure in result.failures:
        assert failure.reason and failure.attempts == TINY.reasks + 1 and len(failure.replies) == failure.attempts
        assert "unsupported JSON schema" not in failure.reason
        for reply in failure.replies:
            _strict_json_or_cut_off(reply)
    for draft in result.drafts:
        assert draft.question.id.startswith("D") and draft.findings is not None


def test_random_model_runs_each_later_stage_under_its_grammar(tiny_judge_gguf: Path) -> None:
    documents = corpus()
    card = EvidenceCard.model_validate({**card_reply(), "card_id": "K1", "conflicts": []})
    question = QuestionReply.model_validate(question_reply())
    content = {"id": "D1", **rubric_reply()}
    backend = open_backend(f"llama:{tiny_judge_gguf}?ctx=8192&seq=2&threads=2")
    try:
        ctx = DraftContext(
            backend=backend,
            passages=few_passages(),
            index=CorpusIndex(documents),
            authority=default_contract(),
            access_mode=AccessMode.CLOSED_CORPUS,
            settings=TINY.model_copy(update={"reasks": 0, "max_tokens": {**TINY.max_tokens, "rubric": 300}}),
        )
        outcomes = [
            *draft_questions(ctx, [card]),
            *draft_rubrics(ctx, [("D1", card, question)]),
            *critique_drafts(ctx, [("D1", content, resolve_evidence_items(ctx.index, content))]),
        ]
    finally:
        backend.close()
    assert [o.key for o in outcomes] == ["K1", "D1", "D1"]
    for outcome in outcomes:
        assert outcome.attempts >= 1 and outcome.replies
        assert outcome.status is ItemStatus.OK or outcome.reason
        assert "unsupported JSON schema" not in outcome.reason and "backend failed" not in outcome.reason
        for reply in outcome.replies:
            _strict_json_or_cut_off(reply)
    assert ctx.usage["questions"].requests >= 1 and ctx.usage["verify"].completion_tokens > 0
    assert set(ADMISSION_RULES) <= set(question_schema(TINY.limits)["properties"]["self_check"]["required"])


@pytest.mark.parametrize("mode", list(AccessMode))
def test_the_access_mode_is_stated_in_the_shared_context(mode: AccessMode) -> None:
    documents = corpus()
    ctx = DraftContext(
        backend=None,  # type: ignore[arg-type]  # only the context text is built
        passages=few_passages(),
        index=CorpusIndex(documents),
        authority=default_contract(),
        access_mode=mode,
    )
    assert ctx.corpus_message.startswith(f"CANDIDATE ACCESS MODE: {mode.value} (")
