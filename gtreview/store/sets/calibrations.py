"""Calibration runs: whether a judge reproduced a question version's fixtures, by version and by content."""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel import Session, col, select

from gtreview.store import tables
from gtreview.store.sets.models import ContentCalibration
from gtreview.store.sets.rows import question_row


def add_calibration_run(
    session: Session,
    set_id: int,
    qid: str,
    version: int,
    *,
    judge: str,
    prompt_sha256: str,
    reproduced: bool,
    report_json: str,
) -> None:
    row = question_row(session, set_id, qid)
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


def latest_calibration_run(session: Session, set_id: int, qid: str) -> tables.CalibrationRun | None:
    """The newest calibration of the question's current version, if any."""
    row = question_row(session, set_id, qid)
    return session.exec(
        select(tables.CalibrationRun)
        .where(tables.CalibrationRun.question_id == row.id, tables.CalibrationRun.version == row.current_version)
        .order_by(col(tables.CalibrationRun.id).desc())
    ).first()


def latest_calibration_runs(session: Session, set_id: int) -> dict[str, tables.CalibrationRun]:
    """The newest calibration of each question's current version, by question id (one query)."""
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


def calibrations_of_contents(session: Session, content_hashes: Iterable[str]) -> list[ContentCalibration]:
    """Every calibration, in any set of the project, of a question version with one of these
    content hashes, oldest first. Keyed by content, a pass finds the calibrations of exactly
    the questions it ran, whichever version number or set holds them."""
    wanted = sorted(set(content_hashes))
    found: list[ContentCalibration] = []
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


def calibrated_qids(session: Session, set_id: int) -> set[str]:
    """The ids of the set's questions that have a calibration of some version."""
    return set(
        session.exec(
            select(tables.Question.qid)
            .join(tables.CalibrationRun, col(tables.CalibrationRun.question_id) == col(tables.Question.id))
            .where(tables.Question.set_id == set_id)
        ).all()
    )
