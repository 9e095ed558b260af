"""The status line says when the set is no longer what its last sign-off froze."""

from __future__ import annotations

from gtreview.app import editing, workflow
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
from tests.ui.waiting import settle


def test_the_status_says_the_set_changed_since_its_sign_off(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    with unit_of_work(engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    with reading(engine) as session:
        for summary in sets.list_questions(session, set_id):
            workflow.start_review(engine, set_id, summary.qid, reviewer="Dr Test")
            workflow.approve(engine, set_id, summary.qid, reviewer="Dr Test", unresolved_reason="checked by hand")
    signed = workflow.sign_off(engine, set_id, reviewer="Dr Test")
    window.open_set(set_id)
    settle(qtbot, window)
    status = window.questions.status_text()
    assert f"signed off #{signed.number} |" in status and "changed since" not in status

    editing.apply_edit(engine, set_id, "A1", ("title",), "A new title after the sign-off", author="Dr Test")
    window.open_set(set_id)
    settle(qtbot, window)
    assert f"signed off #{signed.number} (changed since)" in window.questions.status_text()
    workflow.start_review(engine, set_id, "A1", reviewer="Dr Test")
    workflow.approve(engine, set_id, "A1", reviewer="Dr Test", unresolved_reason="checked by hand")
    window.open_set(set_id)  # every question approved again, but A1 is not what was signed off
    settle(qtbot, window)
    assert f"signed off #{signed.number} (changed since)" in window.questions.status_text()
