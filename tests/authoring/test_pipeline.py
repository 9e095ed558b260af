"""The drafting pipeline with a scripted model: stages, re-asks, failures, flags, separation."""

from __future__ import annotations

import json
import threading

import pytest

from gtreview.authoring.authority import default_contract
from gtreview.authoring.pipeline import DraftingCancelled, DraftResult, draft_set
from gtreview.authoring.pricing import ModelPrice, PriceTable
from gtreview.authoring.runner import ItemStatus
from gtreview.authoring.stages import STAGES, TEMPLATES, give_away
from gtreview.core.rubric import AccessMode
from gtreview.core.validation import validate_question
from gtreview.inference.backend import CompletionRequest, CompletionResult
from gtreview.judging.prompts import load_template
from tests.authoring.fakes import REASK, DraftScript, corpus, passages, rubric_reply
from tests.judging.scripted import ScriptedBackend


def run(script: DraftScript, n: int = 2, **kwargs: object) -> tuple[DraftResult, ScriptedBackend]:
    backend = ScriptedBackend(script, spec="scripted:author")
    documents = corpus()
    result = draft_set(
        backend,
        documents,
        passages(documents),
        n_questions=n,
        access_mode=AccessMode.OPEN_CORPUS,
        authority=default_contract(),
        **kwargs,  # type: ignore[arg-type]
    )
    return result, backend


def test_valid_replies_make_valid_drafts_with_provenance() -> None:
    result, backend = run(DraftScript())
    assert [d.question.id for d in result.drafts] == ["D1", "D2"] and result.failures == []
    for draft in result.drafts:
        content = draft.question.to_json_dict()
        assert not [f for f in validate_question(content) if f.is_error]
        assert draft.findings == [] and not draft.flagged
        assert list(content)[:8] == ["id", "section", "title", "question", "type", "mode", "difficulty", "model_answer"]
        assert content["gate"]["component_id"] == "C1" and content["components"][0]["is_gate"] is True
        assert [f["fixture_id"] for f in content["calibration"]] == [f"{draft.question.id}-F{n}" for n in (1, 2, 3)]
        assert [p.stage for p in draft.provenance] == list(STAGES)
        for p in draft.provenance:
            template = load_template(TEMPLATES[p.stage])
            assert (p.template, p.template_sha256) == (template.name, template.sha256)
            assert p.model == "scripted:author" and p.backend == {"spec": "scripted:author", "kind": "scripted"}
            assert p.attempts == 1 and p.status is ItemStatus.OK
    card = result.drafts[0].card
    assert card.card_id == "K1" and len(card.claims) == 2
    [conflict] = card.conflicts
    assert conflict.outcome == "resolved_by_authority" and conflict.value == "186 feet"
    # One batch per stage: every item of a stage decodes together.
    assert [len(batch) for batch in backend.batches] == [2, 2, 2, 2]
    assert all(r.cache_prefix and r.json_schema is not None for r in backend.requests)


def test_each_stage_has_its_own_context_and_questions_never_see_answers() -> None:
    result, backend = run(DraftScript(), n=1)
    by_stage = {r.schema_name: r for r in backend.requests}
    assert set(by_stage) == {"evidence_card", "question", "marking_block", "critique"}
    corpus_message = by_stage["evidence_card"].messages[1].content
    for request in by_stage.values():
        assert [m.role for m in request.messages] == ["system", "user", "assistant", "user"]
        assert request.messages[1].content == corpus_message  # the shared, cacheable prefix
    question_request = json.dumps([m.model_dump() for m in by_stage["question"].messages])
    answer = result.drafts[0].question.model_answer or ""
    for secret in (answer, "credit_if", "model_answer", "calibration", "fail_examples", "marking block"):
        assert secret not in question_request
    assert by_stage["question"].messages[0].content == load_template("author_questions_v1").text
    assert "Principle:" in by_stage["question"].messages[3].content  # the card, with its principle
    assert "Resolved by authority" in by_stage["marking_block"].messages[3].content
    assert "cited text:" in by_stage["critique"].messages[3].content
    assert "Below water the stone carried mundic" in by_stage["critique"].messages[3].content


def test_a_malformed_reply_is_reasked_with_the_reason_then_accepted() -> None:
    script = DraftScript()

    def broken_once(request: CompletionRequest) -> str:
        if REASK in request.messages[-1].content:
            return json.dumps(script.valid(request))
        return '{"topic": "water", "claims": "none"'

    script.overrides[("evidence_card", "K1")] = broken_once
    result, backend = run(script)
    assert result.failures == [] and len(result.drafts) == 2
    assert result.drafts[0].provenance[0].attempts == 2
    reask = next(r for r in backend.requests if r.schema_name == "evidence_card" and len(r.messages) == 6)
    assert reask.messages[4].content.startswith('{"topic"')  # the bad reply is echoed back
    assert "not valid JSON" in reask.messages[5].content
    assert reask.sampling.seed == 1  # a re-ask is a new sample


def test_a_reply_that_stays_malformed_is_a_reported_failure() -> None:
    script = DraftScript()
    bad_claim = {"topic": "t", "principle": "p", "claims": [{"claim": "c", "source": "reports/1891_inspector.txt"}]}
    script.overrides[("evidence_card", "K2")] = lambda request: json.dumps(bad_claim)
    result, _ = run(script)
    assert [d.question.id for d in result.drafts] == ["D1"]
    [failure] = result.failures
    assert (failure.stage, failure.item, failure.attempts) == ("cards", "K2", 4)
    assert "claims.0.locator: Field required" in failure.reason
    assert len(failure.replies) == 4 and json.loads(failure.replies[0]) == bad_claim
    assert sum(1 for stage, item, _ in script.seen if (stage, item) == ("evidence_card", "K2")) == 4


def test_card_claims_must_resolve_inside_the_passages_shown() -> None:
    script = DraftScript()

    def cites(request: CompletionRequest) -> str:
        card = script.valid(request)
        card["claims"][0]["locator"] = "page=1, lines=30-31" if REASK not in request.messages[-1].content else "p. 2"
        return json.dumps(card)

    script.overrides[("evidence_card", "K1")] = cites
    result, backend = run(script, n=1)
    [failure] = result.failures
    assert failure.stage == "cards" and "does not resolve" in failure.reason
    first_reason = next(r for r in backend.requests if len(r.messages) == 6).messages[5].content
    assert "Page 1 of reports/1891_inspector.txt has 7 lines" in first_reason
    assert result.drafts == []


def test_a_question_failing_its_own_admission_check_is_reasked() -> None:
    script = DraftScript()

    def self_check(request: CompletionRequest) -> str:
        reply = script.valid(request)
        if REASK not in request.messages[-1].content:
            reply["self_check"]["no_give_away_context"] = {"passed": False, "note": "states the mechanism"}
        return json.dumps(reply)

    script.overrides[("question", "K1")] = self_check
    result, backend = run(script, n=1)
    assert result.failures == [] and result.drafts[0].provenance[1].attempts == 2
    reason = next(r for r in backend.requests if r.schema_name == "question" and len(r.messages) == 6)
    assert "no_give_away_context (states the mechanism)" in reason.messages[5].content
    assert give_away("gold stays locked in pyrite and amalgamation recovers little of it", "x") is None
    leak = give_away("a b c d e f g h i", "Why? A b c d e f g h, they say.")
    assert leak == "a b c d e f g h"


def test_unresolved_evidence_flags_the_draft_and_it_stays_a_draft() -> None:
    script = DraftScript()
    script.overrides[("marking_block", "D2")] = lambda request: json.dumps(rubric_reply(locator="page=9, lines=1-2"))
    result, _ = run(script)
    ok, flagged = result.drafts
    assert not ok.flagged and flagged.flagged and result.failures == []
    [finding] = [f for f in flagged.findings if f.code == "evidence-unresolved"]
    assert finding.path == "$.evidence[0].locator" and finding.question_id == "D2"
    assert "has no page 9" in finding.message
    assert flagged.provenance[2].attempts == 1  # flagged by the verifier, not re-asked


def test_a_rubric_that_never_adds_up_is_kept_flagged_not_lost() -> None:
    script = DraftScript()

    def eleven_points(request: CompletionRequest) -> str:
        reply = script.valid(request)
        reply["components"][2]["points"] = 5
        return json.dumps(reply)

    script.overrides[("marking_block", "D1")] = eleven_points
    result, backend = run(script, n=1)
    [draft] = result.drafts
    assert draft.flagged and draft.provenance[2].status is ItemStatus.FLAGGED and draft.provenance[2].attempts == 4
    assert "points-total" in {f.code for f in draft.findings}
    reasks = [r for r in backend.requests if r.schema_name == "marking_block" and len(r.messages) == 6]
    assert len(reasks) == 3
    assert "breaks rubric rules: $.components: Component points total 11, not 10" in reasks[0].messages[5].content


def test_critique_findings_and_a_missing_critique() -> None:
    script = DraftScript()

    def doubtful(request: CompletionRequest) -> str:
        reply = script.valid(request)
        reply["evidence"][1] = {"index": 1, "verdict": "unsupported", "note": "S01 is at 100 ft, not below water"}
        reply["problems"] = ["The gate absorbs most of the marks."]
        return json.dumps(reply)

    script.overrides[("critique", "D1")] = doubtful
    script.overrides[("critique", "D2")] = lambda request: CompletionResult(finish_reason="error", error="HTTP 500")
    result, _ = run(script)
    first, second = result.drafts
    codes = {f.code: f for f in first.findings}
    assert codes["critique-unsupported"].path == "$.evidence[1].claim" and first.flagged
    assert "critique-problem" in codes
    assert [f.code for f in second.findings] == ["critique-missing"] and not second.flagged
    [failure] = result.failures
    assert (failure.stage, failure.item, failure.attempts) == ("verify", "D2", 4)
    assert "HTTP 500" in failure.reason


def test_tokens_and_cost_per_stage() -> None:
    def counted(request: CompletionRequest) -> CompletionResult:
        return CompletionResult(text=json.dumps(DraftScript.valid(request)), prompt_tokens=1000, completion_tokens=100)

    script = DraftScript()
    for stage in ("evidence_card", "question", "marking_block", "critique"):
        for item in ("K1", "D1"):
            script.overrides[(stage, item)] = counted
    result, _ = run(script, n=1)
    assert [u.stage for u in result.usage] == list(STAGES)
    assert all((u.requests, u.prompt_tokens, u.completion_tokens) == (1, 1000, 100) for u in result.usage)
    assert all(u.cost_usd == "unknown" for u in result.usage) and result.total_cost_usd == "unknown"
    prices = PriceTable(prices={"scripted:*": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0)})
    priced, _ = run(script, n=1, prices=prices)
    assert [u.cost_usd for u in priced.usage] == [0.0045] * 4 and priced.total_cost_usd == 0.018


def test_progress_and_cancel() -> None:
    events: list[tuple[str, int, int]] = []
    result, _ = run(DraftScript(), progress=lambda *event: events.append(event))
    assert events[0] == ("cards", 0, 2) and ("verify", 2, 2) in events and result.drafts
    cancel = threading.Event()

    def cancel_after_cards(stage: str, done: int, total: int) -> None:
        if stage == "cards" and done == total:
            cancel.set()

    with pytest.raises(DraftingCancelled) as caught:
        run(DraftScript(), progress=cancel_after_cards, cancel=cancel)
    assert caught.value.result.cancelled and len(caught.value.result.cards) == 2 and caught.value.result.drafts == []


def test_bad_arguments() -> None:
    documents = corpus()
    backend = ScriptedBackend(DraftScript())
    with pytest.raises(ValueError, match="at least 1"):
        draft_set(
            backend,
            documents,
            passages(documents),
            n_questions=0,
            access_mode="OPEN_CORPUS",
            authority=default_contract(),
        )
    with pytest.raises(ValueError, match="no corpus passages"):
        draft_set(backend, documents, [], n_questions=1, access_mode="OPEN_CORPUS", authority=default_contract())
    with pytest.raises(ValueError):
        draft_set(
            backend, documents, passages(documents), n_questions=1, access_mode="OPEN", authority=default_contract()
        )


def test_more_cards_than_passages_take_different_topics() -> None:
    documents = corpus()
    backend = ScriptedBackend(DraftScript())
    one_passage = passages(documents)[:1]
    result = draft_set(
        backend, documents, one_passage, n_questions=2, access_mode="OPEN_CORPUS", authority=default_contract()
    )
    tasks = [r.messages[3].content for r in backend.requests if r.schema_name == "evidence_card"]
    assert "take topic number 1" in tasks[0] and "take topic number 2" in tasks[1]
    assert "[P1]" in backend.requests[0].messages[1].content and "[P2]" not in backend.requests[0].messages[1].content
    # The scripted card cites the table, which these cards were not shown: re-asked, then failed.
    assert {f.stage for f in result.failures} == {"cards"} and "outside the passages" in result.failures[0].reason
