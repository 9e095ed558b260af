"""A question's versions: every edit a new version with its audit entry, read under the write lock.

Every change to a question is a new ``QuestionVersion`` row plus an append-only
``ReviewLog`` entry carrying the content hash, so the history of what an expert saw and
approved can be shown and verified later. Several processes may edit one set at once, so
a change reads what it changes in the intent's unit of work (``store.db.unit_of_work``,
which holds the write lock from its first statement), and an edit made on a version that
is no longer current is refused (``EditConflictError``) rather than undoing a change
nobody saw.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from gtreview.core import review_flow
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.review_flow import Refusal, ReviewAction, ReviewStatus
from gtreview.core.rubric import Question
from gtreview.store import tables
from gtreview.store.sets.errors import EditConflictError, EditRefusedError, QuestionIdTakenError
from gtreview.store.sets.models import SavedVersion, VersionInfo
from gtreview.store.sets.rows import current_content, question_row, verified_content, version_row


def add_version(
    session: Session, question_id: int, version: int, content: dict[str, Any], author: str, comment: str
) -> str:
    content_hash = canonical_hash(content)
    record = tables.QuestionVersion(
        question_id=question_id,
        version=version,
        content_json=json.dumps(content, ensure_ascii=False),
        content_hash=content_hash,
        author=author,
        comment=comment,
    )
    session.add(record)
    session.flush()
    assert record.id is not None
    for position, fixture in enumerate(content.get("calibration") or []):
        if not isinstance(fixture, dict):
            continue
        total = fixture.get("expected_total")
        session.add(
            tables.CalibrationFixture(
                question_version_id=record.id,
                position=position,
                fixture_id=str(fixture.get("fixture_id", "")),
                expected_gate_passed=bool(fixture.get("expected_gate_passed")),
                # a denormalised copy for queries; a rubric with errors still imports, so a
                # total SQLite cannot hold (validation reports it) is stored as 0
                expected_total=total if isinstance(total, int) and -(2**63) <= total < 2**63 else 0,
                content_json=json.dumps(fixture, ensure_ascii=False),
            )
        )
    return content_hash


def _commit_version(
    session: Session, set_id: int, row: tables.Question, content: dict[str, Any], author: str, comment: str
) -> int:
    """Add the next version of ``row`` with its audit entry; its status is the one the
    review table gives an edit (an edit voids an approval)."""
    assert row.id is not None
    after = _edit_outcome(row)
    version = row.current_version + 1
    content_hash = add_version(session, row.id, version, content, author, comment)
    row.current_version = version
    row.qid = str(content.get("id", row.qid))
    row.review_status = after.value
    session.add(row)
    session.add(
        tables.ReviewLog(
            actor=author,
            action="edit",
            set_id=set_id,
            question_id=row.id,
            version=version,
            content_hash=content_hash,
            comment=comment,
        )
    )
    return version


def _edit_outcome(row: tables.Question) -> ReviewStatus:
    """The status an edit leaves ``row`` in; EditRefusedError when the rules refuse the edit."""
    after = review_flow.decide(ReviewStatus(row.review_status), ReviewAction.EDIT, qid=row.qid)
    if isinstance(after, Refusal):
        raise EditRefusedError(after)
    return after


# The change an edit makes, given the current content and review status; it may raise
# to refuse the edit (nothing is written).
Change = Callable[[dict[str, Any], ReviewStatus], dict[str, Any]]


def update_question(
    session: Session,
    set_id: int,
    qid: str,
    change: Change,
    *,
    author: str,
    comment: str = "",
    base_version: int | None = None,
) -> SavedVersion:
    """Save ``change(current content)`` as the question's next version, in ``session`` (the
    intent's unit of work).

    The current version is read under the write lock, so a concurrent writer's version is
    never overwritten by content computed from an older one. ``base_version`` is the
    version the edit was made on: when another version has been saved since, the edit is
    refused (``EditConflictError`` names the newer version and carries the edit). Without
    it the change applies to whatever is current (a one-field edit then never undoes
    another field's). A change that leaves the content as it is saves nothing. A new id
    in the content renames the question, refused when the set already has that id. An
    edit the review rules refuse (of a retired question) is refused before ``change`` is
    asked (``EditRefusedError``).
    """
    row = question_row(session, set_id, qid)
    before = ReviewStatus(row.review_status)
    _edit_outcome(row)
    current = current_content(session, row)
    content = change(current, before)
    if canonical_hash(current) == canonical_hash(content):  # already so, whoever saved it: nothing to do
        return SavedVersion(version=row.current_version, qid=row.qid, status_before=before, status_after=before)
    if base_version is not None and base_version != row.current_version:
        newest = version_row(session, row, row.current_version)
        raise EditConflictError(qid, base_version, row.current_version, newest.author, content)
    new_qid = str(content.get("id", qid))
    if (
        new_qid != qid
        and session.exec(
            select(tables.Question).where(tables.Question.set_id == set_id, tables.Question.qid == new_qid)
        ).first()
    ):
        raise QuestionIdTakenError(f"the set already has a question {new_qid}")
    version = _commit_version(session, set_id, row, content, author, comment)
    after = ReviewStatus(row.review_status)
    return SavedVersion(version=version, qid=new_qid, status_before=before, status_after=after)


def add_question(
    session: Session,
    set_id: int,
    content: Callable[[list[tuple[str, dict[str, Any]]]], dict[str, Any]],
    *,
    after: Callable[[str, dict[str, Any]], bool],
    author: str,
    comment: str,
) -> str:
    """Add a question to the set (version 1, status draft); return its id.

    ``content`` makes the question from the set's current (id, content) pairs, read under
    the write lock, so an id it picks as free is still free when written. The question is
    placed after the last question ``after`` accepts (at the end when none does); the
    questions below it move down one place.
    """
    rows = list(
        session.exec(
            select(tables.Question).where(tables.Question.set_id == set_id).order_by(col(tables.Question.position))
        )
    )
    if session.get(tables.BenchmarkSet, set_id) is None:
        raise KeyError(f"no benchmark set {set_id}")
    current = [(row.qid, current_content(session, row)) for row in rows]
    new = content(current)
    qid = str(new.get("id", ""))
    if any(row.qid == qid for row in rows):
        raise QuestionIdTakenError(f"the set already has a question {qid}")
    placed = [row.position for row, (rid, data) in zip(rows, current, strict=True) if after(rid, data)]
    position = (placed[-1] + 1) if placed else (rows[-1].position + 1 if rows else 0)
    for row in reversed(rows):  # from the bottom, so no two rows ever share a place
        if row.position >= position:
            row.position += 1
            session.add(row)
    session.flush()
    added = tables.Question(set_id=set_id, position=position, qid=qid)
    session.add(added)
    session.flush()
    assert added.id is not None
    content_hash = add_version(session, added.id, 1, new, author, comment)
    session.add(
        tables.ReviewLog(
            actor=author,
            action="add",
            set_id=set_id,
            question_id=added.id,
            version=1,
            content_hash=content_hash,
            comment=comment,
        )
    )
    return qid


def save_question(
    session: Session,
    set_id: int,
    question: Question,
    *,
    author: str,
    comment: str = "",
    base_version: int | None = None,
) -> int:
    """Save an edited question as a new version; return the version number.

    Saving content identical to the current version is a no-op (returns it); an edit
    made on an older version than the current one is refused (see ``update_question``).
    """
    content = question.to_json_dict()
    saved = update_question(
        session, set_id, question.id, lambda _c, _s: content, author=author, comment=comment, base_version=base_version
    )
    return saved.version


def list_versions(session: Session, set_id: int, qid: str) -> list[VersionInfo]:
    row = question_row(session, set_id, qid)
    versions = session.exec(
        select(tables.QuestionVersion)
        .where(tables.QuestionVersion.question_id == row.id)
        .order_by(col(tables.QuestionVersion.version))
    )
    return [
        VersionInfo(
            version=v.version,
            content_hash=v.content_hash,
            author=v.author,
            comment=v.comment,
            created_at=v.created_at.isoformat(),
        )
        for v in versions
    ]


def load_version(session: Session, set_id: int, qid: str, version: int) -> Question:
    row = question_row(session, set_id, qid)
    record = session.exec(
        select(tables.QuestionVersion).where(
            tables.QuestionVersion.question_id == row.id, tables.QuestionVersion.version == version
        )
    ).one()
    return Question.model_validate(verified_content(set_id, row.qid, version, record.content_json, record.content_hash))


def versions_saved_since(session: Session, set_id: int, moment: datetime) -> int:
    """How many of the set's questions have a current version saved after ``moment`` (one query)."""
    return len(
        session.exec(
            select(tables.Question.id)
            .join(
                tables.QuestionVersion,
                (col(tables.QuestionVersion.question_id) == col(tables.Question.id))
                & (col(tables.QuestionVersion.version) == col(tables.Question.current_version)),
            )
            .where(tables.Question.set_id == set_id, col(tables.QuestionVersion.created_at) > moment)
        ).all()
    )
