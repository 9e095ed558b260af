"""The read models of the sets store: plain values, safe to hold across threads."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from gtreview.core.changes import OpChanges
from gtreview.core.review_flow import ReviewStatus


class SavedVersion(BaseModel):
    """What a save did: the question's version after it (unchanged for a no-op save), its
    id after it, and its review status before and after (an edit voids an approval)."""

    version: int
    qid: str
    status_before: ReviewStatus
    status_after: ReviewStatus


class SetSummary(BaseModel):
    id: int
    name: str
    source_name: str
    question_count: int


class QuestionSummary(BaseModel):
    qid: str
    position: int
    review_status: ReviewStatus
    current_version: int


class VersionInfo(BaseModel):
    version: int
    content_hash: str
    author: str
    comment: str
    created_at: str


class ContentCalibration(BaseModel):
    """A calibration run with the question it calibrated: its id and its version's content hash."""

    qid: str
    content_hash: str
    judge: str
    prompt_sha256: str
    reproduced: bool
    report_json: str


class HistoryEntry(BaseModel):
    """One entry of a question's audit trail."""

    model_config = ConfigDict(from_attributes=True)

    at: datetime
    actor: str
    action: str
    version: int | None
    content_hash: str
    comment: str
    calibration_required: bool | None = None  # on an approval: did the project require a calibration?


class SignoffInfo(BaseModel):
    """One sign-off of a set (what it froze is read with ``signed_rubric_text``)."""

    model_config = ConfigDict(from_attributes=True)

    id: int  # the project's, for a window to name it; ``number`` counts within the set
    set_id: int
    number: int
    content_hash: str
    question_count: int
    reviewer: str
    signed_at: datetime
    comment: str
    # The signed questions approved while calibration was not required (None: not recorded).
    approved_without_calibration: list[str] | None = None

    @property
    def changes(self) -> OpChanges:
        """What a sign-off changed: the set (its questions are frozen, its status read again)."""
        return OpChanges(sets=frozenset({self.set_id}))
