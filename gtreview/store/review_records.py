"""Read models of the review record: a question's history and a set's sign-offs.

Kept in the store (not the workflow) because release bundles and reports read them
too, and they sit below the application layer.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine
from sqlmodel import Session

from gtreview.core.errors import UserError
from gtreview.store import sets_repo, tables


class HistoryEntry(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    at: datetime
    actor: str
    action: str
    version: int | None
    content_hash: str
    comment: str


class SignoffInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int  # the project's, for a window to name it; ``number`` counts within the set
    number: int
    content_hash: str
    question_count: int
    reviewer: str
    signed_at: datetime
    comment: str


class NoSuchSignoff(UserError):
    """A sign-off number the set does not have."""


def history(engine: Engine, set_id: int, qid: str) -> list[HistoryEntry]:
    return [HistoryEntry.model_validate(entry) for entry in sets_repo.question_log(engine, set_id, qid)]


def signoffs(engine: Engine, set_id: int) -> list[SignoffInfo]:
    return [SignoffInfo.model_validate(record) for record in sets_repo.list_signoffs(engine, set_id)]


def signoff_by_id(engine: Engine, signoff_id: int) -> tuple[int, SignoffInfo]:
    """The set a sign-off belongs to, and the sign-off."""
    with Session(engine) as session:
        record = session.get(tables.SetSignoff, signoff_id)
        if record is None:
            raise NoSuchSignoff(f"this project has no sign-off with id {signoff_id}")
        return record.set_id, SignoffInfo.model_validate(record)


def signed_rubric_text(engine: Engine, set_id: int, number: int) -> str:
    """The exact rubric file frozen by sign-off ``number``."""
    for record in sets_repo.list_signoffs(engine, set_id):
        if record.number == number:
            return record.rubric_json
    raise NoSuchSignoff(f"set {set_id} has no sign-off {number}")
