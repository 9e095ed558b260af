"""The rows behind a set's read models and the content check every read makes (internal)."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, select

from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.review_flow import ReviewStatus
from gtreview.store import tables
from gtreview.store.sets.errors import DamagedVersionError
from gtreview.store.sets.models import QuestionSummary


def summary_of(row: tables.Question) -> QuestionSummary:
    return QuestionSummary(
        qid=row.qid,
        position=row.position,
        review_status=ReviewStatus(row.review_status),
        current_version=row.current_version,
    )


def question_row(session: Session, set_id: int, qid: str) -> tables.Question:
    row = session.exec(
        select(tables.Question).where(tables.Question.set_id == set_id, tables.Question.qid == qid)
    ).first()
    if row is None:
        raise KeyError(f"set {set_id} has no question {qid}")
    return row


def version_row(session: Session, question: tables.Question, version: int) -> tables.QuestionVersion:
    return session.exec(
        select(tables.QuestionVersion).where(
            tables.QuestionVersion.question_id == question.id, tables.QuestionVersion.version == version
        )
    ).one()


def current_content(session: Session, question: tables.Question) -> dict[str, Any]:
    version = version_row(session, question, question.current_version)
    return verified_content(question.set_id, question.qid, version.version, version.content_json, version.content_hash)


def verified_content(set_id: int, qid: str, version: int, content_json: str, content_hash: str) -> dict[str, Any]:
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
