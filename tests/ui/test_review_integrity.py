"""An approval or a sign-off means what it says: pending edits are committed first, the
undo history does not cross a review decision, review keys act only on the question on
screen, an unresolved evidence locator is a finding that needs a reason to approve, and
the app's PDF of a signed-off set says so."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader
from PySide6.QtCore import Qt

from gtreview.app import workflow
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.sets import ReviewStatus
from tests.ui.test_runs_ui import CONFIG, scripted_open
from tests.ui.waiting import settle

CTRL = Qt.KeyboardModifier.ControlModifier


def current_question(window, qid: str = "A1"):  # type: ignore[no-untyped-def]
    with reading(window.project.engine) as session:
        return sets.load_question(session, window.set_id, qid)


def status_of(window, qid: str) -> ReviewStatus:  # type: ignore[no-untyped-def]
    with reading(window.project.engine) as session:
        return {s.qid: s.review_status for s in sets.list_questions(session, window.set_id)}[qid]


def versions_of(window, qid: str) -> list[int]:  # type: ignore[no-untyped-def]
    with reading(window.project.engine) as session:
        return [v.version for v in sets.list_versions(session, window.set_id, qid)]


def messages(window) -> list[str]:  # type: ignore[no-untyped-def]
    said: list[str] = []
    window.controller.message.connect(said.append)
    window.ops.notice.connect(said.append)  # notices go through the window's hub
    return said


def select(qtbot, window, qid: str) -> None:  # type: ignore[no-untyped-def]
    assert window.question_list.select(qid)
    settle(qtbot, window)
    assert window.questions.shown == (window.set_id, qid)


def binding(editor, path):  # type: ignore[no-untyped-def]
    return next(b for b in editor._bindings if b.path == path)


# -- 1. pending edits and the undo history ----------------------------------------------


def test_redo_after_approval_and_sign_off_changes_nothing(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    said = messages(window)
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    original = current_question(window).gate.pass_condition
    editor.pass_condition.setFocus()
    editor.pass_condition.selectAll()
    qtbot.keyClicks(editor.pass_condition, "Names the saddle reef")
    with qtbot.waitSignal(window.session.saved, timeout=15000):
        pass  # the pause commits it
    settle(qtbot, window)
    window.menu_actions["undo"].trigger()
    settle(qtbot, window)
    assert current_question(window).gate.pass_condition == original
    assert window.menu_actions["redo"].isEnabled()  # the edit could be redone, until the approval

    for row in window.question_list.model.rows():
        select(qtbot, window, row.qid)
        qtbot.keyClick(window, Qt.Key.Key_Return, CTRL)
        settle(qtbot, window)
    with reading(window.project.engine) as session:
        assert {s.review_status for s in sets.list_questions(session, window.set_id)} == {ReviewStatus.APPROVED}
    assert any("undo history" in m.casefold() for m in said)  # the boundary is said, not silent
    window.answers.append("All ten checked.")
    window.menu_actions["sign_off"].trigger()
    settle(qtbot, window)
    assert workflow.signoffs(window.project.engine, window.set_id)
    before = versions_of(window, "A1")

    assert not window.menu_actions["redo"].isEnabled()
    window.menu_actions["redo"].trigger()
    qtbot.keyClick(window, Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.ShiftModifier)
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.APPROVED
    assert versions_of(window, "A1") == before
    assert current_question(window).gate.pass_condition == original


def test_approving_while_typing_approves_what_was_typed(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    editor.pass_condition.setFocus()
    editor.pass_condition.moveCursor(editor.pass_condition.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor.pass_condition, " Names the saddle reef.")
    qtbot.keyClick(editor.pass_condition, Qt.Key.Key_Return, CTRL)  # within the autosave pause
    settle(qtbot, window)
    question = current_question(window)
    assert question.gate.pass_condition.endswith(" Names the saddle reef.")
    assert status_of(window, "A1") is ReviewStatus.APPROVED
    approval = workflow.history(window.project.engine, window.set_id, "A1")[-1]
    assert approval.action == "approved" and approval.version == versions_of(window, "A1")[-1]
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.APPROVED  # nothing pending drops it back to draft


def test_an_edit_that_cannot_be_saved_refuses_the_approval(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    said = messages(window)
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    editor.id_edit.setFocus()
    editor.id_edit.selectAll()
    qtbot.keyClick(editor.id_edit, Qt.Key.Key_Delete)  # pending: an empty id cannot be saved
    qtbot.keyClick(editor.id_edit, Qt.Key.Key_Return, CTRL)
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.DRAFT
    assert any(m.startswith("Cannot approve A1") for m in said)


def test_retire_commits_the_pending_edit_first(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    editor.title_edit.setFocus()
    editor.title_edit.selectAll()
    qtbot.keyClicks(editor.title_edit, "Retired with its last title")
    window.answers.append("Duplicates A2")
    window.menu_actions["retire"].trigger()
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.RETIRED
    assert current_question(window).title == "Retired with its last title"
    retired = workflow.history(window.project.engine, window.set_id, "A1")[-1]
    assert retired.action == "retired" and retired.version == versions_of(window, "A1")[-1]


# -- 2. review keys act on the question on screen --------------------------------------

QUESTION_ACTIONS = ("start_review", "approve", "request_changes", "reopen", "retire")


def test_review_keys_do_nothing_on_another_page(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    assert all(window.menu_actions[name].isEnabled() for name in QUESTION_ACTIONS)
    window.show_runs()
    settle(qtbot, window)
    assert not any(window.menu_actions[name].isEnabled() for name in QUESTION_ACTIONS)
    qtbot.keyClick(window, Qt.Key.Key_Return, CTRL)
    window.answers.append("Duplicates A2")
    qtbot.keyClick(window, Qt.Key.Key_X, CTRL | Qt.KeyboardModifier.ShiftModifier)
    window.controller.approve()  # even called directly, it refuses: nothing is on screen
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.DRAFT
    assert window.answers == ["Duplicates A2"]  # retire did not even ask

    window.open_set(window.set_id)  # back to the questions: the keys act again
    settle(qtbot, window)
    assert all(window.menu_actions[name].isEnabled() for name in QUESTION_ACTIONS)
    qtbot.keyClick(window, Qt.Key.Key_Return, CTRL)
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.APPROVED


def test_a_search_that_hides_the_question_clears_the_detail_pane(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    workflow.approve(window.project.engine, window.set_id, "A1", reviewer="t")
    listing = window.question_list
    qtbot.keyClicks(listing.search, "no question says this")
    settle(qtbot, window)
    assert listing.proxy.rowCount() == 0
    assert window.questions.shown is None
    assert "A1" not in window.question_view.toPlainText()
    assert window.editor.id_edit.text() == "" and not window.editor.isEnabled()
    assert window.source_pane.evidence_list.count() == 0
    assert not any(window.menu_actions[name].isEnabled() for name in QUESTION_ACTIONS)
    qtbot.keyClick(window, Qt.Key.Key_D, CTRL | Qt.KeyboardModifier.ShiftModifier)  # reopen
    window.controller.reopen()
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.APPROVED

    listing.search.clear()
    settle(qtbot, window)
    select(qtbot, window, "A1")
    assert window.editor.id_edit.text() == "A1" and window.editor.isEnabled()
    assert all(window.menu_actions[name].isEnabled() for name in QUESTION_ACTIONS)


# -- 3. an unresolved locator is a finding -----------------------------------------------


def test_an_unresolved_locator_is_a_live_finding_that_needs_a_reason(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    said = messages(window)
    editor = window.editor
    listing = window.question_list
    assert not listing.model.rows()[0].has_findings
    evidence = binding(editor, ("evidence",))
    locator = editor.evidence.table.item(0, 2)
    original = locator.text()
    with qtbot.waitSignal(window.session.saved, timeout=3000):
        locator.setText("page=99, lines=14-17")
        assert "evidence-unresolved" in evidence.findings.text()  # at once, before the save
    settle(qtbot, window)
    assert "has no page 99" in evidence.findings.text()
    row = listing.model.rows()[0]
    assert row.qid == "A1" and row.errors == 1
    listing.findings_only.setChecked(True)
    assert [listing.proxy.index(r, 0).data() for r in range(listing.proxy.rowCount())] == ["A1"]
    listing.findings_only.setChecked(False)
    settle(qtbot, window)
    pane = window.source_pane
    assert "unresolved" in pane.evidence_list.item(0).text()  # no stale tick
    pane.evidence_list.setCurrentRow(0)
    assert "Locator not resolved" in pane.browser.toPlainText()

    window.menu_actions["approve"].trigger()  # the reason asked for is not given
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.DRAFT
    assert any("not approved" in m.casefold() for m in said)
    window.answers.append("   ")
    window.menu_actions["approve"].trigger()
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.DRAFT
    window.answers.append("Page 99 is in the 1875 supplement, not yet imported.")
    window.menu_actions["approve"].trigger()
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.APPROVED
    approval = workflow.history(window.project.engine, window.set_id, "A1")[-1]
    assert "Page 99 is in the 1875 supplement" in approval.comment and "page=99" in approval.comment

    window.menu_actions["reopen"].trigger()
    settle(qtbot, window)
    with qtbot.waitSignal(window.session.saved, timeout=3000):
        editor.evidence.table.item(0, 2).setText(original)
    settle(qtbot, window)
    assert evidence.findings.isHidden() and not listing.model.rows()[0].has_findings
    assert "✓" in pane.evidence_list.item(0).text()


# -- 4. the app's PDF of a signed-off set ------------------------------------------------


def test_the_apps_pdf_of_a_signed_off_set_says_it_was_signed_off(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    workflow.retire(engine, set_id, "A2", reviewer="Dr Test", comment="Duplicates A1")  # as the expert did
    with reading(engine) as session:
        for summary in sets.list_questions(session, set_id):
            if summary.qid != "A2":
                workflow.approve(engine, set_id, summary.qid, reviewer="Dr Test")
    window.answers.append("Reviewed against all seven reports.")
    window.menu_actions["sign_off"].trigger()
    settle(qtbot, window)
    assert workflow.signoffs(engine, set_id)
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    window.show_results(1)
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.results_view, timeout=20000)
    settle(qtbot, window)
    out = tmp_path / "signed.pdf"
    window.export_report(out)
    qtbot.waitUntil(out.exists, timeout=30000)
    settle(qtbot, window)
    first_page = PdfReader(str(out)).pages[0].extract_text()
    assert "sign-off #1 by Dr Test" in first_page and "no sign-off matches" not in first_page
