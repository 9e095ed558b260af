"""The review log: decisions on questions, sign-offs of a set, and the append-only audit trail.

The review rules themselves live in ``core.review_flow``; the app applies them and
records the outcome here, in the same unit of work. A decision made on a version that is
no longer current is refused (``ReviewConflictError``): nobody approves content unseen.
"""

from __future__ import annotations

import json

from sqlalchemy import func
from sqlmodel import Session, col, select

from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.review_flow import ReviewStatus
from gtreview.store import tables
from gtreview.store.sets.errors import NoSuchSignoff, ReviewConflictError
from gtreview.store.sets.models import HistoryEntry, SignoffInfo
from gtreview.store.sets.rows import current_content, question_row, version_row


def record_review(
    session: Session,
    set_id: int,
    qid: str,
    status: ReviewStatus,
    *,
    actor: str,
    comment: str = "",
    version: int | None = None,
    calibration_required: bool | None = None,
) -> int:
    """Set the question's status and append the decision to the audit log, in ``session``
    (the intent's unit of work); return the version the decision is about.
    ``calibration_required``: on an approval, whether the project asked for a calibration.

    ``version`` is the version the reviewer decided on: when another has been saved since,
    the decision is refused (``ReviewConflictError``), so nobody approves content unseen.
    """
    row = question_row(session, set_id, qid)
    if version is not None and version != row.current_version:
        newest = version_row(session, row, row.current_version)
        raise ReviewConflictError(qid, version, row.current_version, newest.author, status.value.replace("_", " "))
    content_hash = canonical_hash(current_content(session, row))
    row.review_status = status.value
    session.add(row)
    session.add(
        tables.ReviewLog(
            actor=actor,
            action=status.value,
            set_id=set_id,
            question_id=row.id,
            version=row.current_version,
            content_hash=content_hash,
            comment=comment,
            calibration_required=calibration_required,
        )
    )
    return row.current_version


def question_log(session: Session, set_id: int, qid: str) -> list[tables.ReviewLog]:
    """The audit trail of one question, oldest first."""
    row = question_row(session, set_id, qid)
    return list(
        session.exec(
            select(tables.ReviewLog).where(tables.ReviewLog.question_id == row.id).order_by(col(tables.ReviewLog.id))
        )
    )


def review_log(session: Session, set_id: int) -> list[tables.ReviewLog]:
    return list(
        session.exec(
            select(tables.ReviewLog).where(tables.ReviewLog.set_id == set_id).order_by(col(tables.ReviewLog.id))
        )
    )


def record_signoff(
    session: Session,
    set_id: int,
    rubric_json: str,
    content_hash: str,
    question_count: int,
    *,
    reviewer: str,
    comment: str,
    uncalibrated: list[str] | None = None,
) -> int:
    """Record a frozen sign-off and its audit entry in ``session`` (the intent's unit of work);
    return its number (1, 2, ...). Numbered under the write lock, so two sign-offs at once
    get 1 and 2. ``uncalibrated``: the questions approved while calibration was not required."""
    latest = session.exec(select(func.max(tables.SetSignoff.number)).where(tables.SetSignoff.set_id == set_id)).one()
    number = (latest or 0) + 1
    session.add(
        tables.SetSignoff(
            set_id=set_id,
            number=number,
            content_hash=content_hash,
            rubric_json=rubric_json,
            question_count=question_count,
            reviewer=reviewer,
            comment=comment,
            uncalibrated_json=None if uncalibrated is None else json.dumps(uncalibrated),
        )
    )
    session.add(
        tables.ReviewLog(actor=reviewer, action="sign_off", set_id=set_id, content_hash=content_hash, comment=comment)
    )
    return number


def list_signoffs(session: Session, set_id: int) -> list[tables.SetSignoff]:
    return list(
        session.exec(
            select(tables.SetSignoff).where(tables.SetSignoff.set_id == set_id).order_by(col(tables.SetSignoff.number))
        )
    )


def history(session: Session, set_id: int, qid: str) -> list[HistoryEntry]:
    """A question's audit trail as read models, oldest first. A question the set's import
    made (rather than one added later) starts with that import: the set-level entry,
    shown as what wrote its version 1, so the trail says where the question came from."""
    row = question_row(session, set_id, qid)
    own = question_log(session, set_id, qid)
    entries = [HistoryEntry.model_validate(entry) for entry in own]
    if any(entry.action == "add" for entry in own):
        return entries
    imported = session.exec(
        select(tables.ReviewLog)
        .where(
            tables.ReviewLog.set_id == set_id,
            col(tables.ReviewLog.question_id).is_(None),
            tables.ReviewLog.action == "import",
        )
        .order_by(col(tables.ReviewLog.id))
    ).first()
    if imported is None:
        return entries
    origin = HistoryEntry(
        at=imported.at,
        actor=imported.actor,
        action=imported.action,
        version=1,
        content_hash=version_row(session, row, 1).content_hash,  # the question's, not the file's
        comment=imported.comment,
    )
    return [origin, *entries]


def signoffs(session: Session, set_id: int) -> list[SignoffInfo]:
    """The set's sign-offs as read models, in number order."""
    return [signoff_info(record) for record in list_signoffs(session, set_id)]


def signoff_info(record: tables.SetSignoff) -> SignoffInfo:
    info = SignoffInfo.model_validate(record)
    if record.uncalibrated_json is not None:
        info.approved_without_calibration = list(json.loads(record.uncalibrated_json))
    return info


def approved_without_calibration(session: Session, set_id: int, hashes: dict[str, str]) -> list[str]:
    """Of the questions whose content hashes are ``hashes`` (hash -> id), those whose latest
    approval of that content was made while calibration was not required."""
    latest: dict[str, bool | None] = {}
    for entry in session.exec(
        select(tables.ReviewLog)
        .where(tables.ReviewLog.set_id == set_id, tables.ReviewLog.action == ReviewStatus.APPROVED.value)
        .order_by(col(tables.ReviewLog.id))
    ):
        if entry.content_hash in hashes:
            latest[entry.content_hash] = entry.calibration_required
    return [qid for content, qid in hashes.items() if latest.get(content) is False]


CALIBRATION_REQUIRED, CALIBRATION_NOT_REQUIRED = "calibration required", "calibration not required"


def log_project_action(session: Session, *, actor: str, action: str, comment: str = "") -> None:
    """Append a project-wide entry (no set, no question) to the audit log, in ``session``."""
    session.add(tables.ReviewLog(actor=actor, action=action, content_hash="", comment=comment))


def project_log(session: Session) -> list[HistoryEntry]:
    """The project-wide audit entries (the calibration requirement switched), oldest first."""
    rows = session.exec(
        select(tables.ReviewLog).where(col(tables.ReviewLog.set_id).is_(None)).order_by(col(tables.ReviewLog.id))
    )
    return [HistoryEntry.model_validate(row) for row in rows]


def signoff_by_id(session: Session, signoff_id: int) -> tuple[int, SignoffInfo]:
    """The set a sign-off belongs to, and the sign-off."""
    record = session.get(tables.SetSignoff, signoff_id)
    if record is None:
        raise NoSuchSignoff(f"this project has no sign-off with id {signoff_id}")
    return record.set_id, signoff_info(record)


def signed_rubric_text(session: Session, set_id: int, number: int) -> str:
    """The exact rubric file frozen by sign-off ``number``."""
    for record in list_signoffs(session, set_id):
        if record.number == number:
            return record.rubric_json
    raise NoSuchSignoff(f"set {set_id} has no sign-off {number}")
