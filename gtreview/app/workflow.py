"""The expert's review workflow: status transitions, their preconditions, and sign-off.

Statuses: draft -> in review -> approved, or changes requested; any active question
can be retired, and a retired question stays retired. Approval needs a question with
no validation errors; requesting changes needs a comment. Every action lands in the
append-only review log with the content hash of the version it concerns.
"""

from __future__ import annotations

from sqlalchemy import Engine

from gtreview.app.question_calibration import approval_requires_calibration, latest_calibration
from gtreview.core.errors import UserError
from gtreview.core.findings import count_errors
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import rubric_to_json_text
from gtreview.core.validation import validate_question
from gtreview.store import sets_repo
from gtreview.store.review_records import HistoryEntry, SignoffInfo, history, signed_rubric_text, signoffs
from gtreview.store.sets_repo import ReviewStatus

ACTIVE = frozenset(status for status in ReviewStatus if status is not ReviewStatus.RETIRED)


class WorkflowError(UserError):
    """An action the workflow does not allow now; the message says why, in one line."""


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


def approve(engine: Engine, set_id: int, qid: str, *, reviewer: str, comment: str = "") -> None:
    """Approve the current version; refused while the validator reports errors."""
    _require_active(_status(engine, set_id, qid), qid)
    question = sets_repo.load_question(engine, set_id, qid)
    errors = count_errors(validate_question(question.to_json_dict()))
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
    sets_repo.set_review_status(engine, set_id, qid, ReviewStatus.APPROVED, actor=reviewer, comment=comment)


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


def sign_off(engine: Engine, set_id: int, *, reviewer: str, comment: str = "") -> SignoffInfo:
    """Freeze the set: every active question approved, retired ones left out.

    The frozen rubric is stored whole with its hash, so later edits (which start a
    new draft of the set) cannot change what was signed.
    """
    if not reviewer.strip():
        raise WorkflowError("a sign-off needs the reviewer's name")
    summaries = sets_repo.list_questions(engine, set_id)
    active = [s for s in summaries if s.review_status in ACTIVE]
    if not active:
        raise WorkflowError("the set has no active questions to sign off")
    pending = [s.qid for s in active if s.review_status is not ReviewStatus.APPROVED]
    if pending:
        shown = ", ".join(pending[:5]) + (" ..." if len(pending) > 5 else "")
        raise WorkflowError(f"{len(pending)} active question(s) are not approved: {shown}")
    rubric = sets_repo.export_rubric(engine, set_id)
    retired = {s.qid for s in summaries if s.review_status is ReviewStatus.RETIRED}
    rubric.questions = [q for q in rubric.questions if q.id not in retired]
    if rubric.benchmark.question_count is not None:
        rubric.benchmark.question_count = len(rubric.questions)
    text = rubric_to_json_text(rubric)
    content_hash = canonical_hash(rubric.to_json_dict())
    number = sets_repo.add_signoff(
        engine, set_id, text, content_hash, len(rubric.questions), reviewer=reviewer, comment=comment
    )
    return next(s for s in signoffs(engine, set_id) if s.number == number)


__all__ = [
    "HistoryEntry",
    "SignoffInfo",
    "WorkflowError",
    "approve",
    "history",
    "reopen",
    "request_changes",
    "retire",
    "sign_off",
    "signed_rubric_text",
    "signoffs",
    "start_review",
]
