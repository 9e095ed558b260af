"""Read models for reviewing a benchmark set: what the question list and view show.

Plain pydantic objects built from the store and the validator, so the UI never
touches ORM rows or sessions and can hold them across threads.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.core.corpus import LocatorResolution
from gtreview.core.findings import Finding, count_errors, count_warnings
from gtreview.core.rubric import Question, Rubric
from gtreview.core.validation import validate_question
from gtreview.corpus.locators import CorpusIndex
from gtreview.store import sets_repo
from gtreview.store.corpus_repo import load_documents


class QuestionRow(BaseModel):
    """One line of the question list."""

    qid: str
    section: str
    title: str
    difficulty: str
    review_status: sets_repo.ReviewStatus
    version: int
    errors: int
    warnings: int
    fixtures: int
    calibration_ok: bool

    @property
    def has_findings(self) -> bool:
        return bool(self.errors or self.warnings)


class QuestionDetail(BaseModel):
    """Everything the question view shows for one question."""

    set_id: int
    question: Question
    review_status: sets_repo.ReviewStatus
    version: int
    findings: list[Finding]
    evidence: list[LocatorResolution]


def _is_calibration_finding(finding: Finding) -> bool:
    return finding.code.startswith(("calibration-", "fixture-"))


def _row(summary: sets_repo.QuestionSummary, content: dict[str, Any]) -> QuestionRow:
    findings = validate_question(content)
    calibration = content.get("calibration")
    return QuestionRow(
        qid=summary.qid,
        section=str(content.get("section") or ""),
        title=str(content.get("title") or ""),
        difficulty=str(content.get("difficulty") or ""),
        review_status=summary.review_status,
        version=summary.current_version,
        errors=count_errors(findings),
        warnings=count_warnings(findings),
        fixtures=len(calibration) if isinstance(calibration, list) else 0,
        calibration_ok=not any(_is_calibration_finding(f) for f in findings),
    )


def question_rows(engine: Engine, set_id: int) -> list[QuestionRow]:
    return [_row(summary, content) for summary, content in sets_repo.current_contents(engine, set_id)]


def question_row(engine: Engine, set_id: int, qid: str) -> QuestionRow:
    """One refreshed row, after an edit or a review action on that question."""
    summary = next(s for s in sets_repo.list_questions(engine, set_id) if s.qid == qid)
    return _row(summary, sets_repo.load_question(engine, set_id, qid).to_json_dict())


def status_counts(rows: list[QuestionRow]) -> dict[sets_repo.ReviewStatus, int]:
    counts = Counter(row.review_status for row in rows)
    return {status: counts.get(status, 0) for status in sets_repo.ReviewStatus}


def corpus_index(engine: Engine) -> CorpusIndex:
    """Index the project corpus once per session; locator resolution reuses it."""
    return CorpusIndex(load_documents(engine))


class EvidenceCheck(BaseModel):
    question_id: str
    position: int
    resolution: LocatorResolution


def check_rubric_evidence(index: CorpusIndex, rubric: Rubric) -> list[EvidenceCheck]:
    """Resolve every evidence locator of ``rubric``; unresolved ones carry the reason."""
    return [
        EvidenceCheck(question_id=q.id, position=n, resolution=index.resolve(item.source or "", item.locator or ""))
        for q in rubric.questions
        for n, item in enumerate(q.evidence)
    ]


def question_detail(engine: Engine, index: CorpusIndex, set_id: int, qid: str) -> QuestionDetail:
    question = sets_repo.load_question(engine, set_id, qid)
    summary = next(s for s in sets_repo.list_questions(engine, set_id) if s.qid == qid)
    return QuestionDetail(
        set_id=set_id,
        question=question,
        review_status=summary.review_status,
        version=summary.current_version,
        findings=validate_question(question.to_json_dict()),
        evidence=[index.resolve(item.source or "", item.locator or "") for item in question.evidence],
    )
