"""Two processes on one set at once: one approves every question and signs the set off,
over and over; the other edits question titles, over and over.

Each loop is a real process (spawned, its own engine, its own SQLite connection) that
runs a bounded number of iterations, so the test ends whatever the scheduler does; both
wait at a barrier once started (imports take a while on a busy machine), so their loops
overlap. Each writes what happened to it to a JSON file (counts of each outcome, by
exception class); :func:`race` returns those. With 3 questions, 40 sign-off rounds and
120 edits, a typical run signs off about 20 times and has about 30 approvals or
sign-offs refused because an edit got in first.

Used by ``tests/app/test_signoff_race.py``.
"""

from __future__ import annotations

import json
import multiprocessing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gtreview.store.db import reading, unit_of_work

QUESTIONS = 3
WAIT_S = 300.0  # for a process to start (imports on a busy machine) or finish


@dataclass
class RaceResult:
    signer: dict[str, int]  # outcome -> count ("signed", "approved", or an exception's class name)
    editor: dict[str, int]


def make_project(folder: Path) -> int:
    """A project with a set of QUESTIONS questions that approve without a calibration; its id."""
    from gtreview.core.rubric import Rubric
    from gtreview.store import sets
    from gtreview.store.project import create_project
    from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
    from tests.rubric_factory import rubric

    project = create_project(folder)
    try:
        with unit_of_work(project.engine) as tx:
            set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
        with unit_of_work(project.engine) as tx:
            return sets.import_rubric(
                tx,
                Rubric.model_validate(rubric(QUESTIONS)),
                source_name="r.json",
                source_sha256="r",
                actor="setup",
            )
    finally:
        project.close()


def _count(outcomes: dict[str, int], key: str) -> None:
    outcomes[key] = outcomes.get(key, 0) + 1


def sign_loop(folder: Path, set_id: int, rounds: int, start: Any, out: Path) -> None:
    """Approve whatever is not approved, then sign off; ``rounds`` times."""
    from gtreview.app import workflow
    from gtreview.core.errors import UserError
    from gtreview.core.review_flow import ReviewStatus
    from gtreview.store import sets
    from gtreview.store.project import open_project

    outcomes: dict[str, int] = {}
    project = open_project(folder)
    try:
        start.wait()
        for _ in range(rounds):
            with reading(project.engine) as session:
                for summary in sets.list_questions(session, set_id):
                    if summary.review_status is ReviewStatus.APPROVED:
                        continue
                    try:
                        if summary.review_status is ReviewStatus.CHANGES_REQUESTED:
                            workflow.reopen(project.engine, set_id, summary.qid, reviewer="signer")
                        workflow.approve(project.engine, set_id, summary.qid, reviewer="signer")
                        _count(outcomes, "approved")
                    except UserError as exc:  # an edit got in first: a refusal is a right answer
                        _count(outcomes, type(exc).__name__)
            try:
                workflow.sign_off(project.engine, set_id, reviewer="signer")
                _count(outcomes, "signed")
            except UserError as exc:
                _count(outcomes, type(exc).__name__)
    finally:
        project.close()
    out.write_text(json.dumps(outcomes), encoding="utf-8")


def edit_loop(folder: Path, set_id: int, rounds: int, start: Any, out: Path) -> None:
    """Give a question a new title (each one different, so no edit restores an approved
    content); ``rounds`` times, round the set's questions."""
    from gtreview.app import editing
    from gtreview.core.errors import UserError
    from gtreview.store import sets
    from gtreview.store.project import open_project

    outcomes: dict[str, int] = {}
    project = open_project(folder)
    try:
        with reading(project.engine) as session:
            qids = [s.qid for s in sets.list_questions(session, set_id)]
        start.wait()
        for n in range(rounds):
            try:
                editing.apply_edit(
                    project.engine, set_id, qids[n % len(qids)], ("title",), f"Title {n}", author="editor"
                )
                _count(outcomes, "edited")
            except UserError as exc:
                _count(outcomes, type(exc).__name__)
    finally:
        project.close()
    out.write_text(json.dumps(outcomes), encoding="utf-8")


def _read(out: Path, who: str) -> dict[str, int]:
    if not out.exists():
        raise AssertionError(f"the {who}'s process left no result")
    result: dict[str, int] = json.loads(out.read_text(encoding="utf-8"))
    return result


def race(folder: Path, set_id: int, *, sign_rounds: int, edit_rounds: int) -> RaceResult:
    """Run the two loops side by side on the project at ``folder``; both have ended on return."""
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2, timeout=WAIT_S)
    outs = {"signer": folder / "signer.json", "editor": folder / "editor.json"}
    signer = context.Process(target=sign_loop, args=(folder, set_id, sign_rounds, start, outs["signer"]))
    editor = context.Process(target=edit_loop, args=(folder, set_id, edit_rounds, start, outs["editor"]))
    signer.start()
    editor.start()
    signer.join(WAIT_S)
    editor.join(WAIT_S)
    return RaceResult(_read(outs["signer"], "signer"), _read(outs["editor"], "editor"))
