"""Benchmark sets: import, versioned edits, review status, the audit log, export.

Every change to a question is a new ``QuestionVersion`` row plus an append-only
``ReviewLog`` entry carrying the content hash, so the history of what an expert
saw and approved can be shown and verified later.

Several processes may edit one set at once, so every change reads what it changes
under the write lock (``db.write_session``), and an edit or a review decision made on a
version that is no longer current is refused (``EditConflictError``,
``ReviewConflictError``) rather than undoing, or approving, a change nobody saw.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine, func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from gtreview.core import review_flow
from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.review_flow import Refusal, ReviewAction
from gtreview.core.review_flow import ReviewStatus as ReviewStatus  # its home is core.review_flow
from gtreview.core.rubric import Question, Rubric
from gtreview.store import tables
from gtreview.store.db import write_session


class SetImportError(UserError, ValueError):
    """A rubric that cannot become a set (one-line message)."""


class SetAlreadyImportedError(UserError, ValueError):
    """The same file (same sha256) is already a set of the project; nothing was added."""

    def __init__(self, set_id: int, name: str, source_name: str) -> None:
        self.set_id = set_id
        super().__init__(
            f"{source_name} is already in the project as set {set_id} ({name}); nothing was added "
            "(import it as a new copy to get a second set)"
        )


class QuestionIdTakenError(UserError, ValueError):
    """A rename to an id the set already has; nothing was written."""


class EditConflictError(UserError, ValueError):
    """An edit made on a version that is no longer the current one: refused, nothing written.

    Saving it would silently undo the newer version's changes, so it is refused; the
    edit's content travels with the error so the caller can give it back to the editor.
    """

    def __init__(self, qid: str, base_version: int, current_version: int, author: str, content: dict[str, Any]):
        self.qid, self.base_version, self.current_version = qid, base_version, current_version
        self.author, self.content = author, content
        super().__init__(
            f"{qid} was changed by {author or 'someone else'} (now version {current_version}) after "
            f"version {base_version} you edited; your edit was not saved"
        )


class ReviewConflictError(UserError, ValueError):
    """A review decision about a version that is no longer the current one: not recorded."""

    def __init__(self, qid: str, version: int, current_version: int, author: str, action: str) -> None:
        self.qid, self.version, self.current_version = qid, version, current_version
        super().__init__(
            f"{qid} was changed by {author or 'someone else'} (now version {current_version}) after "
            f"version {version} was reviewed; not {action}: review the newer version"
        )


class EditRefusedError(UserError, ValueError):
    """An edit the review rules refuse (a retired question is not edited): nothing written."""

    def __init__(self, refusal: Refusal) -> None:
        self.refusal = refusal
        super().__init__(refusal.message)


class SavedVersion(BaseModel):
    """What a save did: the question's version after it (unchanged for a no-op save), its
    id after it, and its review status before and after (an edit voids an approval)."""

    version: int
    qid: str
    status_before: ReviewStatus
    status_after: ReviewStatus


class DamagedVersionError(UserError):
    """A stored question version whose content no longer matches its content hash (a
    flipped bit on disk, a hand edit). ``PRAGMA integrity_check`` cannot see it; exported,
    signed off or reported, the damaged text would pass for what the expert approved."""


def _verified_content(set_id: int, qid: str, version: int, content_json: str, content_hash: str) -> dict[str, Any]:
    """The stored content of a version, refused (naming it) unless it hashes to its hash."""
    try:
        content = json.loads(content_json)
    except ValueError:
        content = None
    if not isinstance(content, dict) or canonical_hash(content) != content_hash:
        raise DamagedVersionError(
            f"set {set_id} question {qid} version {version} is damaged: its stored content no longer matches "
            f"its content hash {content_hash[:12]}; restore the project from a backup"
        )
    return content


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


def repeated_ids(ids: Iterable[str]) -> list[str]:
    """The ids that occur more than once, sorted; one pass, so a large set imports in linear time
    (counting each id in the whole list was quadratic: 200,000 questions never finished)."""
    return sorted(qid for qid, count in Counter(ids).items() if count > 1)


def import_rubric(
    engine: Engine,
    rubric: Rubric,
    *,
    source_name: str,
    source_sha256: str,
    actor: str,
    source_text: str | None = None,
    if_absent: bool = False,
) -> int:
    """Store ``rubric`` as a new benchmark set (version 1 of each question); return its id.
    ``source_text`` is the file as read, kept so an export can be written in its layout.

    With ``if_absent``, a set imported from the same file (same ``source_sha256``) is
    refused (``SetAlreadyImportedError`` names it): an import rerun after it was killed,
    or two run at once, gives one set. The check and the insert share one write
    transaction, so two imports cannot both see the set missing.
    """
    duplicates = repeated_ids(q.id for q in rubric.questions)
    if duplicates:
        raise SetImportError(f"question ids are not unique ({', '.join(duplicates)}); fix the rubric first")
    header = rubric.header_dict()
    with write_session(engine) as session:
        if if_absent:
            present = session.exec(
                select(tables.BenchmarkSet)
                .where(tables.BenchmarkSet.source_sha256 == source_sha256)
                .order_by(col(tables.BenchmarkSet.id))
            ).first()
            if present is not None and present.id is not None:
                raise SetAlreadyImportedError(present.id, present.name, source_name)
        benchmark_set = tables.BenchmarkSet(
            name=rubric.benchmark.name or source_name,
            source_name=source_name,
            header_json=json.dumps(header, ensure_ascii=False),
            source_sha256=source_sha256,
            source_text=source_text,
        )
        session.add(benchmark_set)
        session.flush()
        assert benchmark_set.id is not None
        for position, question in enumerate(rubric.questions):
            row = tables.Question(set_id=benchmark_set.id, position=position, qid=question.id)
            session.add(row)
            session.flush()
            assert row.id is not None
            _add_version(session, row.id, 1, question.to_json_dict(), actor, "imported")
        session.add(
            tables.ReviewLog(
                actor=actor,
                action="import",
                set_id=benchmark_set.id,
                content_hash=source_sha256,
                comment=f"imported {source_name}",
            )
        )
        session.commit()
        return benchmark_set.id


def _add_version(
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


def list_sets(engine: Engine) -> list[SetSummary]:
    with Session(engine) as session:
        counts = dict(
            session.exec(select(tables.Question.set_id, func.count()).group_by(col(tables.Question.set_id))).all()
        )
        return [
            SetSummary(id=s.id or 0, name=s.name, source_name=s.source_name, question_count=counts.get(s.id or 0, 0))
            for s in session.exec(select(tables.BenchmarkSet).order_by(col(tables.BenchmarkSet.id)))
        ]


def list_questions(engine: Engine, set_id: int) -> list[QuestionSummary]:
    with Session(engine) as session:
        return question_summaries(session, set_id)


def _summary(row: tables.Question) -> QuestionSummary:
    return QuestionSummary(
        qid=row.qid,
        position=row.position,
        review_status=ReviewStatus(row.review_status),
        current_version=row.current_version,
    )


def question_summaries(session: Session, set_id: int) -> list[QuestionSummary]:
    """The set's questions with their status and version, in set order, read in ``session``."""
    rows = session.exec(
        select(tables.Question).where(tables.Question.set_id == set_id).order_by(col(tables.Question.position))
    )
    return [_summary(r) for r in rows]


def review_state(session: Session, set_id: int, qid: str) -> QuestionSummary:
    """One question's status and current version, read in ``session`` (a write session, for
    a decision taken on it); KeyError when the set has no such question."""
    return _summary(_question_row(session, set_id, qid))


def _question_row(session: Session, set_id: int, qid: str) -> tables.Question:
    row = session.exec(
        select(tables.Question).where(tables.Question.set_id == set_id, tables.Question.qid == qid)
    ).first()
    if row is None:
        raise KeyError(f"set {set_id} has no question {qid}")
    return row


def _version_row(session: Session, question: tables.Question, version: int) -> tables.QuestionVersion:
    return session.exec(
        select(tables.QuestionVersion).where(
            tables.QuestionVersion.question_id == question.id, tables.QuestionVersion.version == version
        )
    ).one()


def _current_content(session: Session, question: tables.Question) -> dict[str, Any]:
    version = _version_row(session, question, question.current_version)
    return _verified_content(question.set_id, question.qid, version.version, version.content_json, version.content_hash)


def load_question(engine: Engine, set_id: int, qid: str) -> Question:
    with Session(engine) as session:
        return Question.model_validate(_current_content(session, _question_row(session, set_id, qid)))


def load_current(engine: Engine, set_id: int, qid: str) -> tuple[int, Question]:
    """The current version's number and content, read together."""
    with Session(engine) as session:
        row = _question_row(session, set_id, qid)
        return row.current_version, Question.model_validate(_current_content(session, row))


def _commit_version(
    session: Session, set_id: int, row: tables.Question, content: dict[str, Any], author: str, comment: str
) -> int:
    """Add the next version of ``row`` with its audit entry; its status is the one the
    review table gives an edit (an edit voids an approval)."""
    assert row.id is not None
    after = _edit_outcome(row)
    version = row.current_version + 1
    content_hash = _add_version(session, row.id, version, content, author, comment)
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
    engine: Engine,
    set_id: int,
    qid: str,
    change: Change,
    *,
    author: str,
    comment: str = "",
    base_version: int | None = None,
) -> SavedVersion:
    """Save ``change(current content)`` as the question's next version, in one write transaction.

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
    with write_session(engine) as session:
        row = _question_row(session, set_id, qid)
        before = ReviewStatus(row.review_status)
        _edit_outcome(row)
        current = _current_content(session, row)
        content = change(current, before)
        if canonical_hash(current) == canonical_hash(content):  # already so, whoever saved it: nothing to do
            return SavedVersion(version=row.current_version, qid=row.qid, status_before=before, status_after=before)
        if base_version is not None and base_version != row.current_version:
            newest = _version_row(session, row, row.current_version)
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
        session.commit()
        return SavedVersion(version=version, qid=new_qid, status_before=before, status_after=after)


def add_question(
    engine: Engine,
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
    with write_session(engine) as session:
        rows = list(
            session.exec(
                select(tables.Question).where(tables.Question.set_id == set_id).order_by(col(tables.Question.position))
            )
        )
        if session.get(tables.BenchmarkSet, set_id) is None:
            raise KeyError(f"no benchmark set {set_id}")
        current = [(row.qid, _current_content(session, row)) for row in rows]
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
        content_hash = _add_version(session, added.id, 1, new, author, comment)
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
        session.commit()
        return qid


def paraphrase_ids(engine: Engine, set_id: int, original_id: str) -> list[str]:
    """The questions whose current version names ``original_id`` in ``paraphrase_of``, in
    set order (one query; SQLite reads the key, so no content is parsed here)."""
    with Session(engine) as session:
        rows = session.execute(
            sa_select(col(tables.Question.qid))
            .join(
                tables.QuestionVersion,
                (col(tables.QuestionVersion.question_id) == col(tables.Question.id))
                & (col(tables.QuestionVersion.version) == col(tables.Question.current_version)),
            )
            .where(
                col(tables.Question.set_id) == set_id,
                func.json_extract(col(tables.QuestionVersion.content_json), "$.paraphrase_of") == original_id,
            )
            .order_by(col(tables.Question.position))
        ).all()
        return [qid for (qid,) in rows]


def save_question(
    engine: Engine,
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
        engine, set_id, question.id, lambda _c, _s: content, author=author, comment=comment, base_version=base_version
    )
    return saved.version


def set_review_status(
    engine: Engine,
    set_id: int,
    qid: str,
    status: ReviewStatus,
    *,
    actor: str,
    comment: str = "",
    version: int | None = None,
) -> None:
    """Record a review decision on the current version in the audit log, in a write
    transaction of its own, whatever the status was (the review rules are the app's:
    ``app.workflow`` decides and records in one transaction with :func:`record_review`)."""
    with write_session(engine) as session:
        record_review(session, set_id, qid, status, actor=actor, comment=comment, version=version)
        session.commit()


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
    (a write session: the caller commits); return the version the decision is about.
    ``calibration_required``: on an approval, whether the project asked for a calibration.

    ``version`` is the version the reviewer decided on: when another has been saved since,
    the decision is refused (``ReviewConflictError``), so nobody approves content unseen.
    """
    row = _question_row(session, set_id, qid)
    if version is not None and version != row.current_version:
        newest = _version_row(session, row, row.current_version)
        raise ReviewConflictError(qid, version, row.current_version, newest.author, status.value.replace("_", " "))
    content_hash = canonical_hash(_current_content(session, row))
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


def list_versions(engine: Engine, set_id: int, qid: str) -> list[VersionInfo]:
    with Session(engine) as session:
        row = _question_row(session, set_id, qid)
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


def load_version(engine: Engine, set_id: int, qid: str, version: int) -> Question:
    with Session(engine) as session:
        row = _question_row(session, set_id, qid)
        record = session.exec(
            select(tables.QuestionVersion).where(
                tables.QuestionVersion.question_id == row.id, tables.QuestionVersion.version == version
            )
        ).one()
        return Question.model_validate(
            _verified_content(set_id, row.qid, version, record.content_json, record.content_hash)
        )


def current_contents(
    engine: Engine, set_id: int, *, verify: bool = False
) -> list[tuple[QuestionSummary, dict[str, Any]]]:
    """Every question of the set with its current content, in set order (one query);
    with ``verify``, each checked against its content hash (DamagedVersionError).

    Selects plain columns rather than ORM objects: this is the hot path of opening
    a set of thousands of questions (a listing; what leaves the project is verified).
    """
    with Session(engine) as session:
        return _current_contents(session, set_id, verify=verify)


def _current_contents(session: Session, set_id: int, *, verify: bool) -> list[tuple[QuestionSummary, dict[str, Any]]]:
    rows = session.execute(
        sa_select(
            col(tables.Question.qid),
            col(tables.Question.position),
            col(tables.Question.review_status),
            col(tables.Question.current_version),
            col(tables.QuestionVersion.content_json),
            col(tables.QuestionVersion.content_hash),
        )
        .join(
            tables.QuestionVersion,
            (col(tables.QuestionVersion.question_id) == col(tables.Question.id))
            & (col(tables.QuestionVersion.version) == col(tables.Question.current_version)),
        )
        .where(col(tables.Question.set_id) == set_id)
        .order_by(col(tables.Question.position))
    ).all()
    return [
        (
            QuestionSummary(qid=qid, position=position, review_status=ReviewStatus(status), current_version=version),
            _verified_content(set_id, qid, version, content_json, content_hash) if verify else json.loads(content_json),
        )
        for qid, position, status, version, content_json, content_hash in rows
    ]


def set_header(engine: Engine, set_id: int) -> dict[str, Any]:
    """The imported rubric's top level (everything but the questions)."""
    with Session(engine) as session:
        benchmark_set = session.get(tables.BenchmarkSet, set_id)
        if benchmark_set is None:
            raise KeyError(f"no benchmark set {set_id}")
        header: dict[str, Any] = json.loads(benchmark_set.header_json)
        return header


def source_text(engine: Engine, set_id: int) -> str | None:
    """The text of the file the set was imported from (None: imported before sets kept it)."""
    with Session(engine) as session:
        benchmark_set = session.get(tables.BenchmarkSet, set_id)
        if benchmark_set is None:
            raise KeyError(f"no set {set_id}")
        return benchmark_set.source_text


def export_rubric(engine: Engine, set_id: int) -> Rubric:
    """The set as a rubric: the imported header with each question's current version,
    every one checked against its content hash (what an export, a sign-off, a pass and a
    report take from the project)."""
    with Session(engine) as session:
        return set_rubric(session, set_id)


def set_rubric(session: Session, set_id: int) -> Rubric:
    """:func:`export_rubric` read in ``session`` (a sign-off reads it in its write transaction)."""
    benchmark_set = session.get(tables.BenchmarkSet, set_id)
    if benchmark_set is None:
        raise KeyError(f"no benchmark set {set_id}")
    header: dict[str, Any] = json.loads(benchmark_set.header_json)
    header["questions"] = [content for _, content in _current_contents(session, set_id, verify=True)]
    return Rubric.model_validate(header)


def question_log(engine: Engine, set_id: int, qid: str) -> list[tables.ReviewLog]:
    """The audit trail of one question, oldest first."""
    with Session(engine) as session:
        row = _question_row(session, set_id, qid)
        return list(
            session.exec(
                select(tables.ReviewLog)
                .where(tables.ReviewLog.question_id == row.id)
                .order_by(col(tables.ReviewLog.id))
            )
        )


def add_signoff(
    engine: Engine,
    set_id: int,
    rubric_json: str,
    content_hash: str,
    question_count: int,
    *,
    reviewer: str,
    comment: str,
) -> int:
    """Record a frozen sign-off and its audit entry; return its number (1, 2, ...).
    Numbered under the write lock, so two sign-offs at once get 1 and 2."""
    with write_session(engine) as session:
        number = record_signoff(
            session, set_id, rubric_json, content_hash, question_count, reviewer=reviewer, comment=comment
        )
        session.commit()
        return number


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
    """:func:`add_signoff` in ``session`` (a write session: the caller commits);
    ``uncalibrated``: the questions approved while calibration was not required."""
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


def list_signoffs(engine: Engine, set_id: int) -> list[tables.SetSignoff]:
    with Session(engine) as session:
        return list(
            session.exec(
                select(tables.SetSignoff)
                .where(tables.SetSignoff.set_id == set_id)
                .order_by(col(tables.SetSignoff.number))
            )
        )


def add_calibration_run(
    engine: Engine,
    set_id: int,
    qid: str,
    version: int,
    *,
    judge: str,
    prompt_sha256: str,
    reproduced: bool,
    report_json: str,
) -> None:
    with Session(engine) as session:
        row = _question_row(session, set_id, qid)
        assert row.id is not None
        session.add(
            tables.CalibrationRun(
                question_id=row.id,
                version=version,
                judge=judge,
                prompt_sha256=prompt_sha256,
                reproduced=reproduced,
                report_json=report_json,
            )
        )
        session.commit()


def versions_saved_since(engine: Engine, set_id: int, moment: datetime) -> int:
    """How many of the set's questions have a current version saved after ``moment`` (one query)."""
    with Session(engine) as session:
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


def latest_calibration_run(engine: Engine, set_id: int, qid: str) -> tables.CalibrationRun | None:
    """The newest calibration of the question's current version, if any."""
    with Session(engine) as session:
        row = _question_row(session, set_id, qid)
        return session.exec(
            select(tables.CalibrationRun)
            .where(tables.CalibrationRun.question_id == row.id, tables.CalibrationRun.version == row.current_version)
            .order_by(col(tables.CalibrationRun.id).desc())
        ).first()


def latest_calibration_runs(engine: Engine, set_id: int) -> dict[str, tables.CalibrationRun]:
    """The newest calibration of each question's current version, by question id (one query)."""
    with Session(engine) as session:
        rows = session.exec(
            select(tables.Question.qid, tables.CalibrationRun)
            .join(
                tables.CalibrationRun,
                (col(tables.CalibrationRun.question_id) == col(tables.Question.id))
                & (col(tables.CalibrationRun.version) == col(tables.Question.current_version)),
            )
            .where(tables.Question.set_id == set_id)
            .order_by(col(tables.CalibrationRun.id))
        ).all()
    return {qid: run for qid, run in rows}  # in id order, so the newest is kept


class ContentCalibration(BaseModel):
    """A calibration run with the question it calibrated: its id and its version's content hash."""

    qid: str
    content_hash: str
    judge: str
    prompt_sha256: str
    reproduced: bool
    report_json: str


def calibrations_of_contents(engine: Engine, content_hashes: Iterable[str]) -> list[ContentCalibration]:
    """Every calibration, in any set of the project, of a question version with one of these
    content hashes, oldest first. Keyed by content, a pass finds the calibrations of exactly
    the questions it ran, whichever version number or set holds them."""
    wanted = sorted(set(content_hashes))
    found: list[ContentCalibration] = []
    with Session(engine) as session:
        for start in range(0, len(wanted), 500):
            rows = session.exec(
                select(tables.Question.qid, tables.QuestionVersion.content_hash, tables.CalibrationRun)
                .join(tables.QuestionVersion, col(tables.QuestionVersion.question_id) == col(tables.Question.id))
                .join(
                    tables.CalibrationRun,
                    (col(tables.CalibrationRun.question_id) == col(tables.Question.id))
                    & (col(tables.CalibrationRun.version) == col(tables.QuestionVersion.version)),
                )
                .where(col(tables.QuestionVersion.content_hash).in_(wanted[start : start + 500]))
            ).all()
            found += [
                ContentCalibration(
                    qid=qid,
                    content_hash=content_hash,
                    judge=run.judge,
                    prompt_sha256=run.prompt_sha256,
                    reproduced=run.reproduced,
                    report_json=run.report_json,
                )
                for qid, content_hash, run in sorted(rows, key=lambda row: row[2].id or 0)
            ]
    return found


def calibrated_qids(engine: Engine, set_id: int) -> set[str]:
    """The ids of the set's questions that have a calibration of some version."""
    with Session(engine) as session:
        return set(
            session.exec(
                select(tables.Question.qid)
                .join(tables.CalibrationRun, col(tables.CalibrationRun.question_id) == col(tables.Question.id))
                .where(tables.Question.set_id == set_id)
            ).all()
        )


def review_log(engine: Engine, set_id: int) -> list[tables.ReviewLog]:
    with Session(engine) as session:
        return list(
            session.exec(
                select(tables.ReviewLog).where(tables.ReviewLog.set_id == set_id).order_by(col(tables.ReviewLog.id))
            )
        )
