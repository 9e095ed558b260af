"""Saving the expert's edits: every committed change is a new, validated version."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy import Engine

from gtreview.core.errors import UserError
from gtreview.core.findings import Finding
from gtreview.core.jsonformat import dumps_harness_json
from gtreview.core.jsonpath import Path, json_path, set_at
from gtreview.core.rubric import Question
from gtreview.core.validation import validate_question
from gtreview.store import sets_repo


class EditError(UserError, ValueError):
    """An edit that cannot be saved (one line); nothing was written."""


class SaveResult(BaseModel):
    version: int
    findings: list[Finding]
    withdrawn: sets_repo.ReviewStatus | None = None  # the status the save took away (an approval, a review)


def save_content(
    engine: Engine, set_id: int, qid: str, content: dict[str, Any], *, author: str, comment: str = ""
) -> SaveResult:
    """Save ``content`` as the question's next version (no-op when unchanged).

    Renaming (a different ``id`` in ``content``) goes through the id check first.
    """
    status = next((q.review_status for q in sets_repo.list_questions(engine, set_id) if q.qid == qid), None)
    if status is None:
        raise EditError(f"the set has no question {qid}")
    if status is sets_repo.ReviewStatus.RETIRED:
        raise EditError(f"{qid} is retired; retired questions are not edited")
    new_qid = content.get("id")
    if not isinstance(new_qid, str) or not new_qid.strip():
        raise EditError("the question id cannot be empty")
    try:
        question = Question.model_validate(content)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise EditError(f"cannot save: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    if new_qid != qid:
        try:
            sets_repo.rename_question(engine, set_id, qid, new_qid, author=author)
        except ValueError as exc:
            raise EditError(str(exc)) from None
    version = sets_repo.save_question(engine, set_id, question, author=author, comment=comment)
    after = next((q.review_status for q in sets_repo.list_questions(engine, set_id) if q.qid == new_qid), status)
    return SaveResult(
        version=version, findings=validate_question(content), withdrawn=status if after is not status else None
    )


def apply_edit(
    engine: Engine, set_id: int, qid: str, path: Path, value: Any, *, author: str, comment: str = ""
) -> SaveResult:
    """Set one field of the question's current version and save the result.

    Applied to whatever is current, so edits to different fields never undo each
    other, and undo is the same call with the old value.
    """
    current = sets_repo.load_question(engine, set_id, qid).to_json_dict()
    said = comment or f"{FIELD_PREFIX}{json_path(path)}"  # the history says which field an edit changed
    return save_content(engine, set_id, qid, set_at(current, path, value), author=author, comment=said)


FIELD_PREFIX = "field "


def edited_field(comment: str) -> str | None:
    """The field an edit's history entry names (``$.gate.pass_condition``), else None."""
    return comment[len(FIELD_PREFIX) :] if comment.startswith(FIELD_PREFIX + "$") else None


def diff_versions(engine: Engine, set_id: int, qid: str, old: int, new: int) -> str:
    """A unified diff of two versions of a question, in the layout of the rubric file."""
    before = dumps_harness_json(sets_repo.load_version(engine, set_id, qid, old).to_json_dict())
    after = dumps_harness_json(sets_repo.load_version(engine, set_id, qid, new).to_json_dict())
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"{qid} v{old}", f"{qid} v{new}"
        )
    )
