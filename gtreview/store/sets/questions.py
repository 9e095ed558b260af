"""Reading a set: its summary, its questions, their current content, the set as a rubric.

Every function reads in the ``session`` it is given (``store.db.reading`` or, for a
decision taken on what it reads, the intent's ``store.db.unit_of_work``).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from gtreview.core.review_flow import ReviewStatus
from gtreview.core.rubric import Question, Rubric
from gtreview.store import tables
from gtreview.store.sets.models import QuestionSummary, SetSummary
from gtreview.store.sets.rows import current_content, question_row, summary_of, verified_content


def list_sets(session: Session) -> list[SetSummary]:
    """Every set of the project with its question count, oldest first."""
    counts = dict(
        session.exec(select(tables.Question.set_id, func.count()).group_by(col(tables.Question.set_id))).all()
    )
    return [
        SetSummary(id=s.id or 0, name=s.name, source_name=s.source_name, question_count=counts.get(s.id or 0, 0))
        for s in session.exec(select(tables.BenchmarkSet).order_by(col(tables.BenchmarkSet.id)))
    ]


def get_set(session: Session, set_id: int) -> SetSummary:
    """One set's summary; KeyError when the project has no such set."""
    benchmark_set = session.get(tables.BenchmarkSet, set_id)
    if benchmark_set is None:
        raise KeyError(f"no benchmark set {set_id}")
    count = session.exec(select(func.count()).where(tables.Question.set_id == set_id)).one()
    return SetSummary(id=set_id, name=benchmark_set.name, source_name=benchmark_set.source_name, question_count=count)


def list_questions(session: Session, set_id: int) -> list[QuestionSummary]:
    """The set's questions with their status and version, in set order."""
    rows = session.exec(
        select(tables.Question).where(tables.Question.set_id == set_id).order_by(col(tables.Question.position))
    )
    return [summary_of(r) for r in rows]


def get_question(session: Session, set_id: int, qid: str) -> QuestionSummary:
    """One question's status and current version (read in the intent's unit of work, for a
    decision taken on it); KeyError when the set has no such question."""
    return summary_of(question_row(session, set_id, qid))


def load_question(session: Session, set_id: int, qid: str) -> Question:
    return Question.model_validate(current_content(session, question_row(session, set_id, qid)))


def load_current(session: Session, set_id: int, qid: str) -> tuple[int, Question]:
    """The current version's number and content, read together."""
    row = question_row(session, set_id, qid)
    return row.current_version, Question.model_validate(current_content(session, row))


def paraphrase_ids(session: Session, set_id: int, original_id: str) -> list[str]:
    """The questions whose current version names ``original_id`` in ``paraphrase_of``, in
    set order (one query; SQLite reads the key, so no content is parsed here)."""
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


def current_contents(
    session: Session, set_id: int, *, verify: bool = False
) -> list[tuple[QuestionSummary, dict[str, Any]]]:
    """Every question of the set with its current content, in set order (one query);
    with ``verify``, each checked against its content hash (DamagedVersionError).

    Selects plain columns rather than ORM objects: this is the hot path of opening
    a set of thousands of questions (a listing; what leaves the project is verified).
    """
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
            verified_content(set_id, qid, version, content_json, content_hash) if verify else json.loads(content_json),
        )
        for qid, position, status, version, content_json, content_hash in rows
    ]


def set_header(session: Session, set_id: int) -> dict[str, Any]:
    """The imported rubric's top level (everything but the questions)."""
    benchmark_set = session.get(tables.BenchmarkSet, set_id)
    if benchmark_set is None:
        raise KeyError(f"no benchmark set {set_id}")
    header: dict[str, Any] = json.loads(benchmark_set.header_json)
    return header


def source_text(session: Session, set_id: int) -> str | None:
    """The text of the file the set was imported from (None: imported before sets kept it)."""
    benchmark_set = session.get(tables.BenchmarkSet, set_id)
    if benchmark_set is None:
        raise KeyError(f"no set {set_id}")
    return benchmark_set.source_text


def export_rubric(session: Session, set_id: int) -> Rubric:
    """The set as a rubric: the imported header with each question's current version,
    every one checked against its content hash (what an export, a sign-off, a pass and a
    report take from the project; a sign-off reads it in its unit of work)."""
    benchmark_set = session.get(tables.BenchmarkSet, set_id)
    if benchmark_set is None:
        raise KeyError(f"no benchmark set {set_id}")
    header: dict[str, Any] = json.loads(benchmark_set.header_json)
    header["questions"] = [content for _, content in current_contents(session, set_id, verify=True)]
    return Rubric.model_validate(header)
