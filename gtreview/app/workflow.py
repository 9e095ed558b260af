"""The expert's review workflow: status transitions, their preconditions, and sign-off.

Statuses: draft -> in review -> approved, or changes requested; any active question
can be retired, and a retired question stays retired. Approval needs a question with
no validation errors, and one whose evidence locators do not all resolve in the corpus
needs the expert's reason (kept with the approval); requesting changes needs a comment.
Every action lands in the append-only review log with the content hash of the version
it concerns.
"""

from __future__ import annotations

from sqlalchemy import Engine

from gtreview.app.question_calibration import approval_requires_calibration, latest_calibration
from gtreview.app.review import checks_locators, corpus_index, original_of, resolve_evidence
from gtreview.core.errors import UserError
from gtreview.core.findings import Finding, count_errors
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.locator_findings import unresolved_findings
from gtreview.core.rubric import Rubric, rubric_to_json_text
from gtreview.core.validation import paraphrase_findings, validate_question
from gtreview.corpus.locators import CorpusIndex
from gtreview.store import sets_repo
from gtreview.store.review_records import HistoryEntry, SignoffInfo, history, signed_rubric_text, signoffs
from gtreview.store.sets_repo import ReviewStatus

ACTIVE = frozenset(status for status in ReviewStatus if status is not ReviewStatus.RETIRED)


class WorkflowError(UserError):
    """An action the workflow does not allow now; the message says why, in one line."""


class UnresolvedEvidence(WorkflowError):
    """Approval refused until the expert says why evidence that does not resolve is acceptable."""

    def __init__(self, qid: str, findings: list[Finding]) -> None:
        self.qid, self.findings = qid, findings
        first = findings[0].message.rstrip(".")
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        super().__init__(f"{qid}: {first}{more}; approving it needs a reason")


ReviewConflictError = sets_repo.ReviewConflictError  # a decision on a version no longer current


def _status(engine: Engine, set_id: int, qid: str) -> ReviewStatus:
    for summary in sets_repo.list_questions(engine, set_id):
        if summary.qid == qid:
            return summary.review_status
    raise WorkflowError(f"the set has no question {qid}")


def _require_active(status: ReviewStatus, qid: str) -> None:
    if status is ReviewStatus.RETIRED:
        raise WorkflowError(f"{qid} is retired; retired questions stay retired")


def start_review(engine: Engine, set_id: int, qid: str, *, reviewer: str, comment: str = "") -> None:
    _require_active(_status(engine, set_id, qid), qid)
    sets_repo.set_review_status(engine, set_id, qid, ReviewStatus.IN_REVIEW, actor=reviewer, comment=comment)


def approve(
    engine: Engine,
    set_id: int,
    qid: str,
    *,
    reviewer: str,
    comment: str = "",
    index: CorpusIndex | None = None,
    unresolved_reason: str = "",
    version: int | None = None,
) -> None:
    """Approve the current version; refused while the validator reports errors, and
    while an evidence locator does not resolve in the corpus (``index``, read from the
    project when not given; a project without documents has nothing to check against)
    unless ``unresolved_reason`` says why; the reason and the locators it covers are kept
    as the approval's comment.

    The version approved is the one checked here (or ``version``, the one the reviewer
    saw): when another writer saves a newer one meanwhile, the approval is refused
    (``sets_repo.ReviewConflictError``) rather than given to content nobody checked."""
    _require_active(_status(engine, set_id, qid), qid)
    checked, question = sets_repo.load_current(engine, set_id, qid)
    if version is not None and version != checked:
        newest = sets_repo.list_versions(engine, set_id, qid)[-1]
        raise ReviewConflictError(qid, version, checked, newest.author, "approved")
    content = question.to_json_dict()
    # a paraphrase of no question of the set (or of another paraphrase) is an error like any other
    errors = count_errors(
        validate_question(content) + paraphrase_findings(content, original_of(engine, set_id, content))
    )
    if errors:
        raise WorkflowError(f"{qid} has {errors} validation error(s); fix them before approving")
    if approval_requires_calibration(engine):
        latest = latest_calibration(engine, set_id, qid)
        if latest is None:
            raise WorkflowError(f"{qid} has not been calibrated in this version; run Calibrate first")
        judge, result = latest
        if not result.reproduced:
            missed = ", ".join(f.fixture_id for f in result.fixtures if not f.reproduced)
            raise WorkflowError(f"{judge} did not reproduce {qid}'s fixtures {missed}")
    corpus = (index or corpus_index(engine)) if question.evidence else None
    resolutions = resolve_evidence(corpus, content) if corpus is not None and checks_locators(corpus) else []
    unresolved = unresolved_findings(qid, resolutions)
    if unresolved:
        if not unresolved_reason.strip():
            raise UnresolvedEvidence(qid, unresolved)
        covered = ", ".join(
            f"evidence {n + 1} ({r.locator})" for n, r in enumerate(resolutions) if not r.resolved and r.locator.strip()
        )
        note = f"Approved with unresolved locator(s) {covered}: {unresolved_reason.strip()}"
        comment = f"{note}\n{comment}" if comment.strip() else note
    sets_repo.set_review_status(
        engine, set_id, qid, ReviewStatus.APPROVED, actor=reviewer, comment=comment, version=checked
    )


def request_changes(engine: Engine, set_id: int, qid: str, *, reviewer: str, comment: str) -> None:
    _require_active(_status(engine, set_id, qid), qid)
    if not comment.strip():
        raise WorkflowError("requesting changes needs a comment saying what to change")
    sets_repo.set_review_status(engine, set_id, qid, ReviewStatus.CHANGES_REQUESTED, actor=reviewer, comment=comment)


def retire(engine: Engine, set_id: int, qid: str, *, reviewer: str, comment: str) -> None:
    _require_active(_status(engine, set_id, qid), qid)
    if not comment.strip():
        raise WorkflowError("retiring a question needs a comment saying why")
    sets_repo.set_review_status(engine, set_id, qid, ReviewStatus.RETIRED, actor=reviewer, comment=comment)


def reopen(engine: Engine, set_id: int, qid: str, *, reviewer: str, comment: str = "") -> None:
    """Back to draft (from approved or changes requested)."""
    _require_active(_status(engine, set_id, qid), qid)
    sets_repo.set_review_status(engine, set_id, qid, ReviewStatus.DRAFT, actor=reviewer, comment=comment)


def frozen_rubric(engine: Engine, set_id: int) -> Rubric:
    """The set as a sign-off freezes it and a pass runs it: its active questions (retired
    ones left out, the question count to match), so a pass over a signed-off set carries
    the sign-off's content hash."""
    retired = {s.qid for s in sets_repo.list_questions(engine, set_id) if s.review_status is ReviewStatus.RETIRED}
    rubric = sets_repo.export_rubric(engine, set_id)
    rubric.questions = [q for q in rubric.questions if q.id not in retired]
    if rubric.benchmark.question_count is not None:
        rubric.benchmark.question_count = len(rubric.questions)
    return rubric


def check_ready_to_sign(engine: Engine, set_id: int) -> None:
    """Raise WorkflowError, saying why, unless every active question is approved (asked
    before the sign-off note, so the note is not typed in vain)."""
    summaries = sets_repo.list_questions(engine, set_id)
    active = [s for s in summaries if s.review_status in ACTIVE]
    if not active:
        raise WorkflowError("the set has no active questions to sign off")
    pending = [s.qid for s in active if s.review_status is not ReviewStatus.APPROVED]
    if pending:
        shown = ", ".join(pending[:5]) + (" ..." if len(pending) > 5 else "")
        raise WorkflowError(f"{len(pending)} active question(s) are not approved: {shown}")


def sign_off(engine: Engine, set_id: int, *, reviewer: str, comment: str = "") -> SignoffInfo:
    """Freeze the set: every active question approved, retired ones left out.

    The frozen rubric is stored whole with its hash, so later edits (which start a
    new draft of the set) cannot change what was signed.
    """
    if not reviewer.strip():
        raise WorkflowError("a sign-off needs the reviewer's name")
    check_ready_to_sign(engine, set_id)
    rubric = frozen_rubric(engine, set_id)
    text = rubric_to_json_text(rubric)
    content_hash = canonical_hash(rubric.to_json_dict())
    number = sets_repo.add_signoff(
        engine, set_id, text, content_hash, len(rubric.questions), reviewer=reviewer, comment=comment
    )
    return next(s for s in signoffs(engine, set_id) if s.number == number)


__all__ = [
    "HistoryEntry",
    "SignoffInfo",
    "UnresolvedEvidence",
    "WorkflowError",
    "approve",
    "check_ready_to_sign",
    "frozen_rubric",
    "history",
    "reopen",
    "request_changes",
    "retire",
    "sign_off",
    "signed_rubric_text",
    "signoffs",
    "start_review",
]
