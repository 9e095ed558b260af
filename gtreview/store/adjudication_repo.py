"""Adjudications and human grades: append-only rows, with the effective state derived."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from gtreview.store import tables


def add_adjudication(engine: Engine, record: tables.Adjudication) -> int:
    with Session(engine) as session:
        session.add(record)
        session.commit()
        assert record.id is not None
        return record.id


def adjudications(engine: Engine, run_id: int, key: str | None = None) -> list[tables.Adjudication]:
    with Session(engine) as session:
        query = select(tables.Adjudication).where(col(tables.Adjudication.run_id) == run_id)
        if key is not None:
            query = query.where(col(tables.Adjudication.key) == key)
        return list(session.exec(query.order_by(col(tables.Adjudication.id))))


def effective(engine: Engine, run_id: int) -> dict[str, tables.Adjudication]:
    """Per key, the latest decision that has not been reverted (reverts can be reverted)."""
    rows = adjudications(engine, run_id)
    reverted: set[int] = set()
    for row in reversed(rows):  # a revert undoes its target unless it was reverted itself
        if row.action == "revert" and row.id not in reverted and row.reverts_id is not None:
            reverted.add(row.reverts_id)
    current: dict[str, tables.Adjudication] = {}
    for row in rows:
        if row.action != "revert" and row.id not in reverted:
            current[row.key] = row
    return current


def add_grade(engine: Engine, record: tables.HumanGrade) -> int:
    with Session(engine) as session:
        session.add(record)
        session.commit()
        assert record.id is not None
        return record.id


def grades(engine: Engine, run_id: int) -> list[tables.HumanGrade]:
    """Every grade of the run; a grader's later grade of the same answer replaces the earlier."""
    with Session(engine) as session:
        rows = list(
            session.exec(
                select(tables.HumanGrade)
                .where(col(tables.HumanGrade.run_id) == run_id)
                .order_by(col(tables.HumanGrade.id))
            )
        )
    latest: dict[tuple[str, str], tables.HumanGrade] = {}
    for row in rows:
        latest[(row.generation_key, row.grader)] = row
    return list(latest.values())


def awards_of(record: tables.Adjudication | tables.HumanGrade) -> dict[str, int]:
    value: dict[str, Any] = json.loads(record.awards_json or "{}")
    return {str(k): int(v) for k, v in value.items()}
