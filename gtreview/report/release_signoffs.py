"""Which sign-off a release is made from, and the sign-off record it carries."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.review_flow import ReviewStatus
from gtreview.core.rubric import Rubric
from gtreview.store import sets


class ReleaseError(UserError, ValueError):
    """A release that cannot be made (one line for the user)."""


def signoffs_document(session: Session, set_id: int, chosen: sets.SignoffInfo, rubric: Rubric) -> dict[str, Any]:
    """The sign-offs up to the released one, and the approvals of exactly the signed versions."""
    hashes = {canonical_hash(q.to_json_dict()): q.id for q in rubric.questions}
    approvals = [
        {"question_id": hashes[entry.content_hash], **sets.HistoryEntry.model_validate(entry).model_dump(mode="json")}
        for entry in sets.review_log(session, set_id)
        if entry.action == ReviewStatus.APPROVED.value and entry.content_hash in hashes and entry.at <= chosen.signed_at
    ]
    return {
        "set_name": sets.get_set(session, set_id).name,
        "released_signoff": chosen.number,
        "signoffs": [s.model_dump(mode="json") for s in sets.signoffs(session, set_id) if s.number <= chosen.number],
        "approvals": approvals,  # each says whether calibration was required when it was made
        "calibration_requirement": [  # who switched Require calibration before approval, and when
            entry.model_dump(mode="json") for entry in sets.project_log(session) if entry.at <= chosen.signed_at
        ],
    }


def choose_signoff(session: Session, set_id: int, number: int | None) -> sets.SignoffInfo:
    try:
        sets.get_set(session, set_id)
    except KeyError:
        raise ReleaseError(f"the project has no set {set_id}") from None
    records = sets.signoffs(session, set_id)
    if not records:
        raise ReleaseError(f"set {set_id} has no sign-off; approve its questions and sign it off first")
    if number is None:
        return records[-1]
    for record in records:
        if record.number == number:
            return record
    known = ", ".join(str(r.number) for r in records)
    raise ReleaseError(f"set {set_id} has no sign-off {number} (it has {known})")
