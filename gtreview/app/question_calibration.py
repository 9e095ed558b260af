"""Calibrating the questions of a set with a judge, and remembering the outcome.

Results are stored per question version, so an edit (a new version) needs a new
calibration before approval, when the project asks for one.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine

from gtreview.app.judging import OpenBackend, open_judge
from gtreview.core.review_flow import is_active
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend as open_model
from gtreview.judging.calibration import FixtureCheck as FixtureCheck  # re-exported: what a calibration returns
from gtreview.judging.calibration import QuestionCalibration as QuestionCalibration
from gtreview.judging.calibration import calibrate
from gtreview.judging.pointwise import JudgeSettings
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, get_setting


def calibrate_questions(
    engine: Engine,
    backend: CompletionBackend,
    set_id: int,
    qids: Sequence[str],
    *,
    settings: JudgeSettings | None = None,
) -> list[QuestionCalibration]:
    with reading(engine) as session:
        header = Rubric.model_validate({**sets.set_header(session, set_id), "questions": []})
    with reading(engine) as session:
        summaries = {s.qid: s for s in sets.list_questions(session, set_id)}
    with reading(engine) as session:
        questions = [sets.load_question(session, set_id, qid) for qid in qids]
    report = calibrate(backend, questions, settings=settings, global_variants=header.global_variants)
    for result in report.questions:
        with unit_of_work(engine) as tx:
            sets.add_calibration_run(
                tx,
                set_id,
                result.question_id,
                summaries[result.question_id].current_version,
                judge=report.judge,
                prompt_sha256=report.prompt_sha256,
                reproduced=result.reproduced,
                report_json=result.model_dump_json(),
            )
    return report.questions


def calibrate_set(
    engine: Engine,
    set_id: int,
    qids: Sequence[str] | None,
    *,
    judge: str,
    open_backend: OpenBackend = open_model,
    settings: JudgeSettings | None = None,
) -> list[QuestionCalibration]:
    """Calibrate ``qids`` (None: every active question of the set) with the judge ``judge``
    names, opened for this calibration only, and keep each outcome with its version."""
    wanted = list(qids) if qids is not None else active_qids(engine, set_id)
    backend = open_judge(judge, open_backend)
    try:
        return calibrate_questions(engine, backend, set_id, wanted, settings=settings)
    finally:
        backend.close()


def active_qids(engine: Engine, set_id: int) -> list[str]:
    """The set's questions less the retired ones (a retired question is never calibrated)."""
    with reading(engine) as session:
        return [s.qid for s in sets.list_questions(session, set_id) if is_active(s.review_status)]


def latest_calibration(engine: Engine, set_id: int, qid: str) -> tuple[str, QuestionCalibration] | None:
    """(judge, result) of the newest calibration of the current version, or None."""
    with reading(engine) as session:
        run = sets.latest_calibration_run(session, set_id, qid)
    if run is None:
        return None
    return run.judge, QuestionCalibration.model_validate_json(run.report_json)


def latest_calibrations(engine: Engine, set_id: int) -> dict[str, tuple[str, QuestionCalibration]]:
    """:func:`latest_calibration` of every question of the set that has one (one query)."""
    with reading(engine) as session:
        return {
            qid: (run.judge, QuestionCalibration.model_validate_json(run.report_json))
            for qid, run in sets.latest_calibration_runs(session, set_id).items()
        }


def approval_requires_calibration(engine: Engine) -> bool:
    return bool(get_setting(engine, APPROVAL_REQUIRES_CALIBRATION, True))
