"""Two processes deciding about one question at once: one approves it, the other retires it.

The approver runs ``workflow.approve`` with a barrier at the entry of its first write
transaction (``store.db.unit_of_work``, wherever a module imported it): ``"before"``
pauses it just before the transaction begins, after everything approve checks outside
it; ``"inside"`` pauses it holding the write lock. While it is paused the retirer, a
second process, runs ``workflow.retire``; the test then lets the approver go on, so the
interleaving is fixed, not left to the scheduler. Each process writes what happened to
it to a JSON file; :func:`race` returns those and the question's history.

Used by ``tests/app/test_review_race.py``.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gtreview.store.db import reading, unit_of_work

QID = "A1"
WAIT_S = 120.0  # for a process to start (imports on a busy machine) or finish


@dataclass
class RaceResult:
    approver: dict[str, Any]  # {"ok": true} or {"ok": false, "error": class name, "message": its line}
    retirer: dict[str, Any]
    actions: list[str]  # the question's audit trail, oldest first
    status: str  # its review status at the end


def make_project(folder: Path) -> int:
    """A project with a one-question set that approves without a calibration; its set id."""
    from gtreview.core.rubric import Rubric
    from gtreview.store import sets
    from gtreview.store.project import create_project
    from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
    from tests.rubric_factory import rubric

    project = create_project(folder)
    try:
        with unit_of_work(project.engine) as tx:
            set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
            return sets.import_rubric(
                tx, Rubric.model_validate(rubric(1)), source_name="r.json", source_sha256="r", actor="setup"
            )
    finally:
        project.close()


def _outcome(call: Any) -> dict[str, Any]:
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - what happened is the result, whatever it was
        return {"ok": False, "error": type(exc).__name__, "message": str(exc)}
    return {"ok": True}


def _pause_units_of_work(where: str, paused: Any, resume: Any) -> None:
    """Put the barrier at the entry of the first write transaction of this process."""
    from gtreview.store import db

    original = db.unit_of_work
    first = [True]

    @contextmanager
    def barrier(engine: Any) -> Iterator[Any]:
        pause, first[0] = first[0], False
        if pause and where == "before":
            paused.set()
            resume.wait(WAIT_S)
        with original(engine) as session:
            if pause and where == "inside":
                session.connection()  # BEGIN IMMEDIATE has run: the write lock is held
                paused.set()
                resume.wait(WAIT_S)
            yield session

    for name, module in list(sys.modules.items()):
        if name.startswith("gtreview") and getattr(module, "unit_of_work", None) is original:
            module.unit_of_work = barrier  # type: ignore[attr-defined]


def approve(folder: Path, set_id: int, where: str, paused: Any, resume: Any, out: Path) -> None:
    from gtreview.app import workflow
    from gtreview.store.project import open_project

    project = open_project(folder)
    try:
        _pause_units_of_work(where, paused, resume)
        result = _outcome(lambda: workflow.approve(project.engine, set_id, QID, reviewer="approver"))
    finally:
        project.close()
    out.write_text(json.dumps(result), encoding="utf-8")


def retire(folder: Path, set_id: int, out: Path) -> None:
    from gtreview.app import workflow
    from gtreview.store.project import open_project

    project = open_project(folder)
    try:
        result = _outcome(
            lambda: workflow.retire(project.engine, set_id, QID, reviewer="retirer", comment="out of scope")
        )
    finally:
        project.close()
    out.write_text(json.dumps(result), encoding="utf-8")


def _read(out: Path, who: str) -> dict[str, Any]:
    if not out.exists():
        return {"ok": False, "error": "died", "message": f"the {who}'s process left no result"}
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def race(folder: Path, where: str) -> RaceResult:
    """The approver paused ``where`` ("before" or "inside" its write transaction) while the
    retirer retires the question; then the approver goes on."""
    from gtreview.app import workflow
    from gtreview.store import sets
    from gtreview.store.project import open_project

    set_id = make_project(folder)
    context = multiprocessing.get_context("spawn")
    paused, resume = context.Event(), context.Event()
    outs = {"approver": folder / "approver.json", "retirer": folder / "retirer.json"}
    approver = context.Process(target=approve, args=(folder, set_id, where, paused, resume, outs["approver"]))
    retirer = context.Process(target=retire, args=(folder, set_id, outs["retirer"]))
    approver.start()
    try:
        if not paused.wait(WAIT_S):
            raise AssertionError("the approver never reached its write transaction")
        retirer.start()
        if where == "before":
            retirer.join(WAIT_S)  # the retirement is committed while the approver is paused
        else:
            retirer.join(1.0)  # it waits for the approver's write lock meanwhile
    finally:
        resume.set()
        approver.join(WAIT_S)
        if retirer.pid is not None:
            retirer.join(WAIT_S)
    project = open_project(folder)
    try:
        actions = [entry.action for entry in workflow.history(project.engine, set_id, QID)]
        with reading(project.engine) as session:
            status = next(s.review_status.value for s in sets.list_questions(session, set_id) if s.qid == QID)
    finally:
        project.close()
    return RaceResult(_read(outs["approver"], "approver"), _read(outs["retirer"], "retirer"), actions, status)
