"""Calibrating the questions of a set with a judge, and remembering the outcome.

Results are stored per question version, so an edit (a new version) needs a new
calibration before approval, when the project asks for one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.app.judging import OpenBackend, open_judge
from gtreview.core.activity import JobProgress
from gtreview.core.changes import OpChanges
from gtreview.core.errors import Cancelled
from gtreview.core.redaction import redact
from gtreview.core.review_flow import is_active
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.cancel_scope import cancelling
from gtreview.inference.factory import open_backend as open_model
from gtreview.judging.calibration import FixtureCheck as FixtureCheck  # re-exported: what a calibration returns
from gtreview.judging.calibration import QuestionCalibration as QuestionCalibration
from gtreview.judging.calibration import calibrate
from gtreview.judging.pointwise import JudgeSettings
from gtreview.judging.prompts import POINTWISE, load_template
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, get_setting

CalibrationProgress = Callable[[JobProgress], None]
PHASE = "calibrate"


def calibrate_questions(
    engine: Engine,
    backend: CompletionBackend,
    set_id: int,
    qids: Sequence[str],
    *,
    settings: JudgeSettings | None = None,
    progress: CalibrationProgress | None = None,
    cancel: threading.Event | None = None,
) -> list[QuestionCalibration]:
    """Calibrate ``qids`` with ``backend``; each question's outcome is kept with its
    version as soon as its last fixture is judged, so a cancelled calibration (a
    ``Cancelled``) keeps every question it finished. ``progress`` hears each fixture."""
    with reading(engine) as session:
        header = Rubric.model_validate({**sets.set_header(session, set_id), "questions": []})
    with reading(engine) as session:
        summaries = {s.qid: s for s in sets.list_questions(session, set_id)}
    with reading(engine) as session:
        questions = [sets.load_question(session, set_id, qid) for qid in qids]
    order = {q.id: [f.fixture_id for f in q.calibration] for q in questions}
    heard: dict[str, list[FixtureCheck]] = {}
    kept: set[str] = set()
    started = time.monotonic()

    def keep(result: QuestionCalibration) -> None:
        with unit_of_work(engine) as tx:
            sets.add_calibration_run(
                tx,
                set_id,
                result.question_id,
                summaries[result.question_id].current_version,
                judge=backend.spec,
                prompt_sha256=load_template(POINTWISE).sha256,
                reproduced=result.reproduced,
                report_json=result.model_dump_json(),
            )
        kept.add(result.question_id)

    def judged(check: FixtureCheck, done: int, total: int) -> None:
        checks = heard.setdefault(check.question_id, [])
        checks.append(check)
        if len(checks) == len(order[check.question_id]):
            ranked = sorted(checks, key=lambda c: order[c.question_id].index(c.fixture_id))
            keep(QuestionCalibration(question_id=check.question_id, fixtures=ranked))
        if progress is not None:
            progress(fixture_progress(check, done, total, time.monotonic() - started))

    try:
        report = calibrate(
            backend,
            questions,
            settings=settings,
            global_variants=header.global_variants,
            on_fixture=judged,
            cancel=cancel,
        )
    except Cancelled as exc:  # what it finished is kept: those questions changed
        raise CalibrationCancelled(str(exc), OpChanges.of_questions(set_id, *kept)) from exc
    for result in report.questions:  # a question without fixtures is kept as not reproduced
        if result.question_id not in kept:
            keep(result)
    return report.questions


def fixture_progress(check: FixtureCheck, done: int, total: int, elapsed: float) -> JobProgress:
    """A fixture judged, as progress: the fixture and its outcome, n of N fixtures."""
    outcome = "reproduced" if check.reproduced else f"NOT reproduced ({check.reason})"
    return JobProgress(
        phase=PHASE,
        done=done,
        total=total,
        unit="fixtures",
        elapsed=elapsed,
        message=f"{check.question_id} {check.fixture_id}: {outcome} ({done} of {total} fixtures)",
    )


def calibrate_set(
    engine: Engine,
    set_id: int,
    qids: Sequence[str] | None,
    *,
    judge: str,
    open_backend: OpenBackend = open_model,
    settings: JudgeSettings | None = None,
    progress: CalibrationProgress | None = None,
    cancel: threading.Event | None = None,
) -> CalibratedQuestions:
    """Calibrate ``qids`` (None: every active question of the set) with the judge ``judge``
    names, opened for this calibration only, and keep each outcome with its version."""
    wanted = list(qids) if qids is not None else active_qids(engine, set_id)
    if progress is not None:  # the judge loads and reads every fixture before the first verdict
        with reading(engine) as session:
            fixtures = sum(len(sets.load_question(session, set_id, qid).calibration) for qid in wanted)
        progress(
            JobProgress(phase=PHASE, total=fixtures, unit="fixtures", message=f"loading the judge {redact(judge)}")
        )
    if cancel is not None and cancel.is_set():
        raise CalibrationCancelled("calibration cancelled before the judge was opened; nothing was judged")
    try:
        with cancelling(cancel):  # a Cancel during the judge's load stops the load
            backend = open_judge(judge, open_backend)
    except Exception as exc:
        if cancel is not None and cancel.is_set():
            raise CalibrationCancelled("calibration cancelled while the judge loaded; nothing was judged") from exc
        raise
    if progress is not None and fixtures:  # the first verdict can take minutes on a small machine: say so
        progress(JobProgress(phase=PHASE, total=fixtures, unit="fixtures", message=f"judging fixture 1 of {fixtures}"))
    try:
        done = calibrate_questions(engine, backend, set_id, wanted, settings=settings, progress=progress, cancel=cancel)
    finally:
        backend.close()
    return CalibratedQuestions(set_id=set_id, questions=done)


class CalibratedQuestions(BaseModel):
    """A set calibration's outcome, question by question, and what it changed (each
    question's latest calibration)."""

    set_id: int
    questions: list[QuestionCalibration]

    @property
    def changes(self) -> OpChanges:
        return OpChanges.of_questions(self.set_id, *(q.question_id for q in self.questions))


class CalibrationCancelled(Cancelled):
    """The calibration was cancelled; every question it finished is kept (its ``changes``)."""

    def __init__(self, message: str, changes: OpChanges | None = None) -> None:
        super().__init__(message)
        self._changes = changes if changes is not None else OpChanges()

    @property
    def changes(self) -> OpChanges:
        return self._changes


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
    with reading(engine) as session:
        return bool(get_setting(session, APPROVAL_REQUIRES_CALIBRATION, True))
