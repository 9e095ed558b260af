"""Read models of the review record: a question's history and a set's sign-offs.

Kept in the store (not the workflow) because release bundles and reports read them
too, and they sit below the application layer.
"""

from __future__ import annotations

import json
from datetime import datetime

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from gtreview.core.errors import UserError
from gtreview.core.review_flow import ReviewStatus
from gtreview.store import sets_repo, tables


class HistoryEntry(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    at: datetime
    actor: str
    action: str
    version: int | None
    content_hash: str
    comment: str
    calibration_required: bool | None = None  # on an approval: did the project require a calibration?


class SignoffInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    number: int
    content_hash: str
    question_count: int
    reviewer: str
    signed_at: datetime
    comment: str
    # The signed questions approved while calibration was not required (None: not recorded).
    approved_without_calibration: list[str] | None = None


class NoSuchSignoff(UserError):
    """A sign-off number the set does not have."""


def history(engine: Engine, set_id: int, qid: str) -> list[HistoryEntry]:
    return [HistoryEntry.model_validate(entry) for entry in sets_repo.question_log(engine, set_id, qid)]


def signoffs(engine: Engine, set_id: int) -> list[SignoffInfo]:
    return [_signoff_info(record) for record in sets_repo.list_signoffs(engine, set_id)]


def _signoff_info(record: tables.SetSignoff) -> SignoffInfo:
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


def project_log(engine: Engine) -> list[HistoryEntry]:
    """The project-wide audit entries (the calibration requirement switched), oldest first."""
    with Session(engine) as session:
        rows = session.exec(
            select(tables.ReviewLog).where(col(tables.ReviewLog.set_id).is_(None)).order_by(col(tables.ReviewLog.id))
        )
        return [HistoryEntry.model_validate(row) for row in rows]


def signed_rubric_text(engine: Engine, set_id: int, number: int) -> str:
    """The exact rubric file frozen by sign-off ``number``."""
    for record in sets_repo.list_signoffs(engine, set_id):
        if record.number == number:
            return record.rubric_json
    raise NoSuchSignoff(f"set {set_id} has no sign-off {number}")
