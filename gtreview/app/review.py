"""Read models for reviewing a benchmark set: what the question list and view show.

Plain pydantic objects built from the store and the validator, so the UI never
touches ORM rows or sessions and can hold them across threads.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.app.in_set import InSet, alone, read_in_set, whole_set
from gtreview.core import numbering
from gtreview.core.corpus import LocatorResolution
from gtreview.core.findings import Finding, count_errors, count_warnings
from gtreview.core.locator_findings import is_unresolved, unresolved_findings, waived
from gtreview.core.review_flow import ReviewStatus, is_active, sign_off_refusal
from gtreview.core.rubric import Question, Rubric
from gtreview.corpus.locators import CorpusIndex
from gtreview.judging.calibration import QuestionCalibration
from gtreview.store import sets, tables
from gtreview.store.corpus_repo import list_documents, load_documents
from gtreview.store.db import reading
from gtreview.store.sets import HistoryEntry, SignoffInfo, history, signoffs
from gtreview.store.sets import SetSummary as SetSummary  # re-exported: the read models the GUI shows
from gtreview.store.sets import VersionInfo as VersionInfo
from gtreview.store.tables import Document as Document


class QuestionRow(BaseModel):
    """One line of the question list."""

    qid: str
    section: str
    title: str
    difficulty: str
    review_status: ReviewStatus
    version: int
    errors: int
    warnings: int
    fixtures: int
    calibration_ok: bool  # the fixtures are well formed (the rules the validator checks)
    unresolved: int = 0  # evidence locators the corpus does not resolve (counted in ``errors``, unless waived)
    waived: int = 0  # of those, the ones the current approval recorded a reason for (warnings, not errors)
    reproduced: int | None = None  # fixtures the judge reproduced when this version was last calibrated
    search_text: str = ""  # every text of the question, casefolded: what the search box looks in
    paraphrase_of: str = ""  # the question this one rewords ("" for an original)

    @property
    def has_findings(self) -> bool:
        return bool(self.errors or self.warnings)

    @property
    def difficulty_rank(self) -> int:
        return numbering.difficulty_rank(self.difficulty)

    @property
    def calibration_text(self) -> str:
        """What the list says of the calibration: reproduced by the judge, or not yet run."""
        if self.fixtures == 0:
            return "none"
        if not self.calibration_ok:
            return f"{self.fixtures} to fix"
        if self.reproduced is None:
            return f"{self.fixtures} not run"
        return f"{self.reproduced}/{self.fixtures} reproduced"


class QuestionDetail(BaseModel):
    """Everything the question view shows for one question."""

    set_id: int
    question: Question
    review_status: ReviewStatus
    version: int
    findings: list[Finding]
    evidence: list[LocatorResolution]
    paraphrases: list[str] = []  # the questions that reword this one, in set order
    # the set as its findings read it (``app.in_set``): the editor checks what is typed with it
    set_questions: list[dict[str, Any]] = []
    position: int = 0

    def in_set(self) -> InSet:
        return InSet(self.set_questions, self.position) if self.set_questions else alone({})


def _is_calibration_finding(finding: Finding) -> bool:
    return finding.code.startswith(("calibration-", "fixture-"))


def resolve_evidence(index: CorpusIndex, content: dict[str, Any]) -> list[LocatorResolution]:
    """One resolution per evidence item of a question's JSON, in order (a malformed
    item resolves to nothing, with the reason)."""
    items = content.get("evidence")
    return [
        index.resolve(str(item.get("source") or ""), str(item.get("locator") or ""))
        if isinstance(item, dict)
        else index.resolve("", "")
        for item in (items if isinstance(items, list) else [])
    ]


def checks_locators(index: CorpusIndex | None) -> bool:
    """Locators are checked against a corpus; a project without documents has none to
    check them against (its rubric import already listed them as unresolved)."""
    return index is not None and bool(index.documents)


def question_findings(content: dict[str, Any], index: CorpusIndex | None, in_set: InSet | None = None) -> list[Finding]:
    """The validator's findings of the question in its set (``in_set``; alone without it)
    and, with the corpus index, one per unresolved locator: what the editor shows live,
    the question list counts and ``rubric validate`` reports."""
    findings = (in_set or alone(content)).findings(content)
    if index is not None and checks_locators(index):
        qid = content.get("id")
        findings += unresolved_findings(qid if isinstance(qid, str) else None, resolve_evidence(index, content))
    return findings


def with_waiver(engine: Engine, set_id: int, qid: str, findings: list[Finding]) -> list[Finding]:
    """An approved question's findings, its unresolved locators waived when the approval
    (its last ``approved`` entry: an edit or a reopening since would have voided it) says why."""
    with reading(engine) as session:
        approval = next((e for e in reversed(history(session, set_id, qid)) if e.action == ReviewStatus.APPROVED), None)
    if approval is None:
        return findings
    return waived(findings, approval.actor, f"{approval.at:%Y-%m-%d}", approval.comment)


def _row(
    engine: Engine,
    set_id: int,
    summary: sets.QuestionSummary,
    content: dict[str, Any],
    index: CorpusIndex | None,
    calibrated: tables.CalibrationRun | None,
    in_set: InSet,
) -> QuestionRow:
    findings = question_findings(content, index, in_set)
    if summary.review_status is ReviewStatus.APPROVED and any(is_unresolved(f) for f in findings):
        findings = with_waiver(engine, set_id, summary.qid, findings)
    calibration = content.get("calibration")
    original = content.get("paraphrase_of")
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
        unresolved=sum(1 for f in findings if is_unresolved(f)),
        waived=sum(1 for f in findings if is_unresolved(f) and not f.is_error),
        reproduced=_reproduced(calibrated),
        search_text=" ".join(_texts(content)).casefold(),
        paraphrase_of=original if isinstance(original, str) else "",
    )


def _reproduced(run: tables.CalibrationRun | None) -> int | None:
    if run is None:
        return None
    return sum(1 for f in QuestionCalibration.model_validate_json(run.report_json).fixtures if f.reproduced)


def _texts(value: Any) -> list[str]:
    """Every string in a question's content (prompt, answers, rubric, fixtures), in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


def question_rows(engine: Engine, set_id: int, index: CorpusIndex | None = None) -> list[QuestionRow]:
    """Every row; with the corpus index, unresolved locators are counted among the errors."""
    with reading(engine) as session:
        calibrated = sets.latest_calibration_runs(session, set_id)
    with reading(engine) as session:
        contents = sets.current_contents(session, set_id)
    placed = whole_set([content for _summary, content in contents])
    return [
        _row(engine, set_id, summary, content, index, calibrated.get(summary.qid), in_set)
        for (summary, content), in_set in zip(contents, placed, strict=True)
    ]


def question_row(engine: Engine, set_id: int, qid: str, index: CorpusIndex | None = None) -> QuestionRow:
    """One refreshed row, after an edit or a review action on that question."""
    with reading(engine) as session:
        summary = next(s for s in sets.list_questions(session, set_id) if s.qid == qid)
    with reading(engine) as session:
        content = sets.load_question(session, set_id, qid).to_json_dict()
    with reading(engine) as store_session:
        calibrated = sets.latest_calibration_run(store_session, set_id, qid)
    return _row(engine, set_id, summary, content, index, calibrated, read_in_set(engine, set_id, content))


def with_paraphrases(engine: Engine, set_id: int, qids: list[str]) -> list[str]:
    """``qids`` and the paraphrases of each: an edit of an original changes whether its
    paraphrases still carry its rubric, so their rows are read again with it."""
    wanted = list(dict.fromkeys(qids))
    for qid in qids:
        with reading(engine) as session:
            wanted += [p for p in sets.paraphrase_ids(session, set_id, qid) if p not in wanted]
    return wanted


def status_counts(rows: list[QuestionRow]) -> dict[ReviewStatus, int]:
    counts = Counter(row.review_status for row in rows)
    return {status: counts.get(status, 0) for status in ReviewStatus}


def corpus_index(engine: Engine) -> CorpusIndex:
    """Index the project corpus once per session; locator resolution reuses it."""
    with reading(engine) as session:
        return CorpusIndex(load_documents(session))


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
    with reading(engine) as session:
        question = sets.load_question(session, set_id, qid)
    with reading(engine) as session:
        summary = next(s for s in sets.list_questions(session, set_id) if s.qid == qid)
    evidence = [index.resolve(item.source or "", item.locator or "") for item in question.evidence]
    content = question.to_json_dict()
    in_set = read_in_set(engine, set_id, content)
    findings = in_set.findings(content) + (unresolved_findings(question.id, evidence) if checks_locators(index) else [])
    if summary.review_status is ReviewStatus.APPROVED:
        findings = with_waiver(engine, set_id, qid, findings)
    with reading(engine) as store_session:
        return QuestionDetail(
            set_id=set_id,
            question=question,
            review_status=summary.review_status,
            version=summary.current_version,
            findings=findings,
            evidence=evidence,
            paraphrases=sets.paraphrase_ids(store_session, set_id, qid),
            set_questions=list(in_set.questions),
            position=in_set.position,
        )


# -- what one view of the review window shows, read in one go (off the GUI thread) ----


class QuestionPane(BaseModel):
    """The question tabs of one question: the view, the calibration, the audit trail."""

    detail: QuestionDetail
    calibration: tuple[str, QuestionCalibration] | None
    history: list[HistoryEntry]
    versions: list[sets.VersionInfo]


def question_pane(engine: Engine, index: CorpusIndex, set_id: int, qid: str) -> QuestionPane:
    from gtreview.app.question_calibration import latest_calibration

    with reading(engine) as session:
        return QuestionPane(
            detail=question_detail(engine, index, set_id, qid),
            calibration=latest_calibration(engine, set_id, qid),
            history=history(session, set_id, qid),
            versions=sets.list_versions(session, set_id, qid),
        )


class SetOverview(BaseModel):
    """The question list of a set and what the status line says about the set."""

    set_id: int
    name: str
    rows: list[QuestionRow]
    signoffs: list[SignoffInfo]
    edited_since_signoff: bool = False  # a current version was saved after the last sign-off


def set_name(engine: Engine, set_id: int) -> str:
    with reading(engine) as session:
        return next((s.name for s in sets.list_sets(session) if s.id == set_id), "")


def set_overview(
    engine: Engine, set_id: int, qids: list[str] | None = None, index: CorpusIndex | None = None
) -> SetOverview:
    """Every row, or only the rows of ``qids`` (after a change to those questions); with
    the corpus index, the rows count unresolved locators."""
    name = set_name(engine, set_id)
    if qids is None:
        rows = question_rows(engine, set_id, index)
    else:
        rows = [question_row(engine, set_id, q, index) for q in with_paraphrases(engine, set_id, qids)]
    with reading(engine) as session:
        signed = signoffs(session, set_id)
    return SetOverview(
        set_id=set_id,
        name=name,
        rows=rows,
        signoffs=signed,
        edited_since_signoff=bool(signed) and edited_since(engine, set_id, signed[-1]),
    )


def edited_since(engine: Engine, set_id: int, signoff: SignoffInfo) -> bool:
    """Whether a question's current version was saved after ``signoff`` (one query)."""
    signed_at = signoff.signed_at if signoff.signed_at.tzinfo is not None else signoff.signed_at.replace(tzinfo=UTC)
    with reading(engine) as session:
        return sets.versions_saved_since(session, set_id, signed_at) > 0


def changed_since_signoff(rows: list[QuestionRow], signoff: SignoffInfo, edited: bool) -> bool:
    """Whether the set is no longer what ``signoff`` froze: a version saved after it
    (``edited``), a question not approved (an edit withdraws an approval), or another
    number of active questions. From the rows shown, not by hashing the frozen set again
    (seconds on a large one); an edit undone by another edit counts as a change."""
    active = [r for r in rows if is_active(r.review_status)]
    return (
        edited
        or len(active) != signoff.question_count
        or sign_off_refusal((r.qid, r.review_status) for r in active) is not None
    )


class ProjectOverview(BaseModel):
    """What the navigator lists: documents, sets with their sign-offs, the project's passes."""

    model_config = {"arbitrary_types_allowed": True}

    documents: list[Document]
    sets: list[SetSummary]
    signoffs: dict[int, list[SignoffInfo]]
    runs: list[tuple[int, str]]


def project_overview(engine: Engine) -> ProjectOverview:
    from gtreview.app.results import reportable_runs

    with reading(engine) as session:
        summaries = sets.list_sets(session)
        return ProjectOverview(
            documents=list_documents(session),
            sets=summaries,
            signoffs={s.id: signoffs(session, s.id) for s in summaries},
            runs=reportable_runs(engine),
        )
