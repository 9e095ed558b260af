"""Adjudications and human grades: append-only rows, with the effective state derived.

Every function takes the session of the intent that calls it; none commits."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, col, select

from gtreview.store import tables


def add_adjudication(session: Session, record: tables.Adjudication) -> int:
    session.add(record)
    session.flush()
    assert record.id is not None
    return record.id


def adjudications(session: Session, run_id: int, key: str | None = None) -> list[tables.Adjudication]:
    query = select(tables.Adjudication).where(col(tables.Adjudication.run_id) == run_id)
    if key is not None:
        query = query.where(col(tables.Adjudication.key) == key)
    return list(session.exec(query.order_by(col(tables.Adjudication.id))))


def effective(session: Session, run_id: int) -> dict[str, tables.Adjudication]:
    """Per key, the latest decision that has not been reverted (reverts can be reverted)."""
    rows = adjudications(session, run_id)
    reverted: set[int] = set()
    for row in reversed(rows):  # a revert undoes its target unless it was reverted itself
        if row.action == "revert" and row.id not in reverted and row.reverts_id is not None:
            reverted.add(row.reverts_id)
    current: dict[str, tables.Adjudication] = {}
    for row in rows:
        if row.action != "revert" and row.id not in reverted:
            current[row.key] = row
    return current


def add_grade(session: Session, record: tables.HumanGrade) -> int:
    session.add(record)
    session.flush()
    assert record.id is not None
    return record.id


def grades(session: Session, run_id: int) -> list[tables.HumanGrade]:
    """Every grade of the run; a grader's later grade of the same answer replaces the earlier."""
    rows = list(
        session.exec(
            select(tables.HumanGrade).where(col(tables.HumanGrade.run_id) == run_id).order_by(col(tables.HumanGrade.id))
        )
    )
    latest: dict[tuple[str, str], tables.HumanGrade] = {}
    for row in rows:
        latest[(row.generation_key, row.grader)] = row
    return list(latest.values())


def awards_of(record: tables.Adjudication | tables.HumanGrade) -> dict[str, int]:
    value: dict[str, Any] = json.loads(record.awards_json or "{}")
    return {str(k): int(v) for k, v in value.items()}
