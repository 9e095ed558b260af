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
from gtreview.judging.calibration import QuestionCalibration
from gtreview.store import sets_repo
from gtreview.store.corpus_repo import list_documents, load_documents
from gtreview.store.review_records import HistoryEntry, SignoffInfo, history, signoffs
from gtreview.store.tables import Document


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


# -- what one view of the review window shows, read in one go (off the GUI thread) ----


class QuestionPane(BaseModel):
    """The question tabs of one question: the view, the calibration, the audit trail."""

    detail: QuestionDetail
    calibration: tuple[str, QuestionCalibration] | None
    history: list[HistoryEntry]
    versions: list[sets_repo.VersionInfo]


def question_pane(engine: Engine, index: CorpusIndex, set_id: int, qid: str) -> QuestionPane:
    from gtreview.app.question_calibration import latest_calibration

    return QuestionPane(
        detail=question_detail(engine, index, set_id, qid),
        calibration=latest_calibration(engine, set_id, qid),
        history=history(engine, set_id, qid),
        versions=sets_repo.list_versions(engine, set_id, qid),
    )


class SetOverview(BaseModel):
    """The question list of a set and what the status line says about the set."""

    set_id: int
    name: str
    rows: list[QuestionRow]
    signoffs: list[SignoffInfo]


def set_name(engine: Engine, set_id: int) -> str:
    return next((s.name for s in sets_repo.list_sets(engine) if s.id == set_id), "")


def set_overview(engine: Engine, set_id: int, qids: list[str] | None = None) -> SetOverview:
    """Every row, or only the rows of ``qids`` (after a change to those questions)."""
    name = set_name(engine, set_id)
    rows = question_rows(engine, set_id) if qids is None else [question_row(engine, set_id, q) for q in qids]
    return SetOverview(set_id=set_id, name=name, rows=rows, signoffs=signoffs(engine, set_id))


class ProjectOverview(BaseModel):
    """What the navigator lists: documents, sets with their sign-offs, the project's passes."""

    model_config = {"arbitrary_types_allowed": True}

    documents: list[Document]
    sets: list[sets_repo.SetSummary]
    signoffs: dict[int, list[SignoffInfo]]
    runs: list[tuple[int, str]]


def project_overview(engine: Engine) -> ProjectOverview:
    from gtreview.app.results import reportable_runs

    sets = sets_repo.list_sets(engine)
    return ProjectOverview(
        documents=list_documents(engine),
        sets=sets,
        signoffs={s.id: signoffs(engine, s.id) for s in sets},
        runs=reportable_runs(engine),
    )
