"""Saving the expert's edits: every committed change is a new, validated version.

What an edit does to the review status is ``core.review_flow``'s (a retired question is
not edited, an edit voids an approval), applied by the store in the edit's transaction.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ValidationError
from sqlalchemy import Engine

from gtreview.core.changes import OpChanges
from gtreview.core.errors import UserError
from gtreview.core.findings import Finding
from gtreview.core.jsonformat import dumps_harness_json
from gtreview.core.jsonpath import Path, json_path, set_at
from gtreview.core.review_flow import ReviewStatus
from gtreview.core.rubric import Question
from gtreview.core.validation import validate_question
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work


class EditError(UserError, ValueError):
    """An edit that cannot be saved (one line); nothing was written."""


class SaveResult(BaseModel):
    version: int
    findings: list[Finding]
    withdrawn: ReviewStatus | None = None  # the status the save took away (an approval, a review)
    set_id: int
    qid: str  # the question's id after the save
    renamed: bool = False  # its id changed: the set's rows change too

    @property
    def changes(self) -> OpChanges:
        changed = OpChanges.of_questions(self.set_id, self.qid)
        return changed | OpChanges(sets=frozenset({self.set_id})) if self.renamed else changed


EditConflictError = sets.EditConflictError  # a stale edit, refused; it carries the edit back


def _validated(content: dict[str, Any]) -> dict[str, Any]:
    """``content`` as the question model writes it; a one-line EditError when it is not one."""
    new_qid = content.get("id")
    if not isinstance(new_qid, str) or not new_qid.strip():
        raise EditError("the question id cannot be empty")
    try:
        return Question.model_validate(content).to_json_dict()
    except ValidationError as exc:
        first = exc.errors()[0]
        raise EditError(f"cannot save: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def _save(
    engine: Engine,
    set_id: int,
    qid: str,
    change: Callable[[dict[str, Any]], dict[str, Any]],
    *,
    author: str,
    comment: str,
    base_version: int | None,
) -> SaveResult:
    """One edit in one write transaction: ``change`` sees the current content under the
    write lock, so no concurrent save can slip in between the read and the write; the
    review rules (a retired question is not edited) are asked in that transaction too."""

    def checked(current: dict[str, Any], _status: ReviewStatus) -> dict[str, Any]:
        return _validated(change(current))

    try:
        with unit_of_work(engine) as tx:
            saved = sets.update_question(
                tx, set_id, qid, checked, author=author, comment=comment, base_version=base_version
            )
    except KeyError:
        raise EditError(f"the set has no question {qid}") from None
    except (sets.QuestionIdTakenError, sets.EditRefusedError) as exc:
        raise EditError(str(exc)) from None
    with reading(engine) as session:
        content = sets.load_version(session, set_id, saved.qid, saved.version).to_json_dict()
    withdrawn = saved.status_before if saved.status_after is not saved.status_before else None
    return SaveResult(
        version=saved.version,
        findings=validate_question(content),
        withdrawn=withdrawn,
        set_id=set_id,
        qid=saved.qid,
        renamed=saved.qid != qid,
    )


def save_content(
    engine: Engine,
    set_id: int,
    qid: str,
    content: dict[str, Any],
    *,
    author: str,
    comment: str = "",
    base_version: int | None = None,
) -> SaveResult:
    """Save ``content`` as the question's next version (no-op when unchanged).

    ``base_version`` is the version the content was edited from: when someone saved a
    newer one meanwhile, the save is refused (``EditConflictError``, carrying
    ``content``) rather than silently undoing their changes. Renaming (a different
    ``id``) is saved as a version of its own first, after the id check.
    """
    validated = _validated(content)
    new_qid = validated["id"]
    renaming = new_qid != qid
    if renaming:
        renamed = _save(
            engine,
            set_id,
            qid,
            lambda current: {**current, "id": new_qid},
            author=author,
            comment=f"renamed {qid} -> {new_qid}",
            base_version=base_version,
        )
        qid, base_version = new_qid, renamed.version
    saved = _save(
        engine, set_id, qid, lambda _current: validated, author=author, comment=comment, base_version=base_version
    )
    return saved.model_copy(update={"renamed": True}) if renaming else saved


def apply_edit(
    engine: Engine,
    set_id: int,
    qid: str,
    path: Path,
    value: Any,
    *,
    author: str,
    comment: str = "",
    base_version: int | None = None,
    kind: EditKind = "edit",
    of_version: int | None = None,
) -> SaveResult:
    """Set one field of the question's current version and save the result.

    Applied to whatever is current, under the write lock, so edits to different fields
    never undo each other, and undo is the same call with the old value. With
    ``base_version`` (the version the editor showed) an edit is refused when another
    version was saved since, so it cannot overwrite a change its author never saw.
    ``kind`` says whether this is an edit or the undo or redo of the one that saved
    ``of_version``: the history tells the three apart.
    """
    said = comment or edit_comment(path, kind=kind, of_version=of_version)
    return _save(
        engine,
        set_id,
        qid,
        lambda current: set_at(current, path, value),
        author=author,
        comment=said,
        base_version=base_version,
    )


# An edit's history entry says which field it changed, and whether it undid or redid
# another version: "field $.title", "undo of version 6: field $.title".
FIELD_PREFIX = "field "
EditKind = Literal["edit", "undo", "redo"]
_REVERSAL = re.compile(r"(undo|redo)(?: of version (\d+))?: (.*)", re.DOTALL)


class EditNote(NamedTuple):
    kind: EditKind
    of_version: int | None  # the version an undo or redo reverses or repeats
    field: str  # its JSON path, "$.gate.pass_condition"


def edit_comment(path: Path, *, kind: EditKind = "edit", of_version: int | None = None) -> str:
    said = f"{FIELD_PREFIX}{json_path(path)}"
    if kind == "edit":
        return said
    return f"{kind} of version {of_version}: {said}" if of_version is not None else f"{kind}: {said}"


def edit_note(comment: str) -> EditNote | None:
    """What an edit's history entry says it did, else None (a comment of the author's own)."""
    kind: EditKind = "edit"
    of_version: int | None = None
    reversal = _REVERSAL.fullmatch(comment)
    if reversal:
        kind = "undo" if reversal.group(1) == "undo" else "redo"
        of_version = int(reversal.group(2)) if reversal.group(2) else None
        comment = reversal.group(3)
    if not comment.startswith(FIELD_PREFIX + "$"):
        return None
    return EditNote(kind, of_version, comment[len(FIELD_PREFIX) :])


_ITEM_NAMES = {"components": "component", "calibration": "fixture", "evidence": "evidence item"}


def field_in_words(path: str) -> str:
    """A field's JSON path as the expert reads it: ``$.components[2].credit_if`` is
    "component 3 › credit if" (items count from 1, as the app numbers them)."""
    words = []
    for part in path.removeprefix("$").strip(".").split("."):
        name, _, rest = part.partition("[")
        index = rest.rstrip("]")
        if index.isdigit():
            words.append(f"{_ITEM_NAMES.get(name, name.replace('_', ' '))} {int(index) + 1}")
        elif name:
            words.append(name.replace("_", " "))
    return " › ".join(words) or path


def diff_versions(engine: Engine, set_id: int, qid: str, old: int, new: int) -> str:
    """A unified diff of two versions of a question, in the layout of the rubric file."""
    with reading(engine) as session:
        before = dumps_harness_json(sets.load_version(session, set_id, qid, old).to_json_dict())
    with reading(engine) as session:
        after = dumps_harness_json(sets.load_version(session, set_id, qid, new).to_json_dict())
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"{qid} v{old}", f"{qid} v{new}"
        )
    )
