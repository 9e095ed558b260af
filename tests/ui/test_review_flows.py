"""Edit, undo, approve and sign-off through the real widgets of the main window."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidgetItem

from gtreview.app import workflow
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.sets import ReviewStatus
from tests.ui.waiting import settle


def current_question(window):  # type: ignore[no-untyped-def]
    with reading(window.project.engine) as session:
        return sets.load_question(session, window.set_id, window.qid)


def status_of(window, qid: str) -> ReviewStatus:  # type: ignore[no-untyped-def]
    with reading(window.project.engine) as session:
        return {s.qid: s.review_status for s in sets.list_questions(session, window.set_id)}[qid]


def test_typing_a_title_saves_a_version_and_undo_restores_it(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    assert window.qid == "A1"
    window.tabs.setCurrentWidget(window.history)
    settle(qtbot, window)
    assert window.history.diff.toPlainText() == "Only version 1 so far: nothing to compare yet."
    original = current_question(window).title
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    editor.title_edit.setFocus()
    editor.title_edit.selectAll()
    qtbot.keyClicks(editor.title_edit, "Where to sink on a saddle reef")
    with qtbot.waitSignal(window.session.saved, timeout=3000):
        qtbot.keyClick(editor.title_edit, Qt.Key.Key_Return)
    assert current_question(window).title == "Where to sink on a saddle reef"
    settle(qtbot, window)  # the row and the tabs are read again after the save
    row = window.question_list.model.rows()[0]
    assert row.title == "Where to sink on a saddle reef" and row.version == 2
    window.tabs.setCurrentWidget(window.history)  # a hidden tab is drawn when it is turned to
    assert window.history.log.item(0, 2).text() == "edit title"  # with the field it changed
    window.tabs.setCurrentWidget(editor)

    window.menu_actions["undo"].trigger()
    settle(qtbot, window)
    assert current_question(window).title == original
    assert editor.title_edit.text() == original
    with reading(window.project.engine) as session:
        assert [v.version for v in sets.list_versions(session, window.set_id, "A1")] == [1, 2, 3]
    window.menu_actions["redo"].trigger()
    settle(qtbot, window)
    assert current_question(window).title == "Where to sink on a saddle reef"


def test_live_validation_blocks_approval_until_fixed(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    points_item: QTableWidgetItem = editor.components.table.item(1, 1)
    old_points = points_item.text()
    with qtbot.waitSignal(window.session.saved, timeout=3000):
        points_item.setText(str(int(old_points) + 1))
    settle(qtbot, window)
    components_binding = next(b for b in editor._bindings if b.path == ("components",))
    assert not components_binding.findings.isHidden()
    assert "points-total" in components_binding.findings.text()
    assert window.question_list.model.rows()[0].errors == 1

    window.menu_actions["approve"].trigger()
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.DRAFT
    assert "validation error" in window.statusBar().currentMessage()

    window.menu_actions["undo"].trigger()
    settle(qtbot, window)
    assert components_binding.findings.isHidden()
    window.menu_actions["approve"].trigger()
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.APPROVED
    assert window.question_list.model.rows()[0].review_status is ReviewStatus.APPROVED


def test_live_validation_while_typing_before_the_commit(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    editor = sample_window.editor
    sample_window.tabs.setCurrentWidget(editor)
    editor.pass_condition.setFocus()
    editor.pass_condition.selectAll()
    qtbot.keyClick(editor.pass_condition, Qt.Key.Key_Delete)
    binding = next(b for b in editor._bindings if b.path == ("gate", "pass_condition"))
    assert "pass-condition-empty" in binding.findings.text()  # shown before anything is saved
    assert current_question(sample_window).gate.pass_condition  # not yet committed
    with qtbot.waitSignal(sample_window.session.saved, timeout=3000):
        pass  # the pause commits it
    assert current_question(sample_window).gate.pass_condition == ""


def test_request_changes_needs_a_comment_and_shows_in_history(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.menu_actions["request_changes"].trigger()  # dialog cancelled: nothing happens
    assert window.ops.idle() and status_of(window, "A1") is ReviewStatus.DRAFT
    window.answers.append("   ")
    window.menu_actions["request_changes"].trigger()
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.DRAFT
    assert "needs a comment" in window.statusBar().currentMessage()
    window.answers.append("Cite the 1874 section drawing too.")
    window.menu_actions["request_changes"].trigger()
    settle(qtbot, window)
    assert status_of(window, "A1") is ReviewStatus.CHANGES_REQUESTED
    window.tabs.setCurrentWidget(window.history)
    log = window.history.log
    assert log.item(0, 1).text() == "Dr Test" and log.item(0, 2).text() == "changes requested"
    assert log.item(0, 4).text() == "Cite the 1874 section drawing too."


def test_keyboard_review_of_the_whole_set_and_sign_off(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    total = window.question_list.proxy.rowCount()
    window.answers.append("Duplicates A1")
    qtbot.keyClick(window, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert window.qid == "A2"
    window.menu_actions["retire"].trigger()
    settle(qtbot, window)
    assert status_of(window, "A2") is ReviewStatus.RETIRED
    for _ in range(total - 1):
        window.menu_actions["next_unreviewed"].trigger()
        qtbot.keyClick(window, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        settle(qtbot, window)  # the row says approved before the next unreviewed one is looked for
    with reading(window.project.engine) as session:
        assert {s.review_status for s in sets.list_questions(session, window.set_id)} == {
            ReviewStatus.APPROVED,
            ReviewStatus.RETIRED,
        }
    window.menu_actions["next_unreviewed"].trigger()
    assert "Every question has been reviewed" in window.statusBar().currentMessage()

    window.answers.append("Reviewed against all seven reports.")
    window.menu_actions["sign_off"].trigger()
    settle(qtbot, window)
    (signed,) = workflow.signoffs(window.project.engine, window.set_id)
    assert signed.question_count == total - 1 and signed.reviewer == "Dr Test"
    assert "signed off #1" in window.status_label.text()


def test_fixture_add_edit_delete_and_undo(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    fixtures = window.fixtures
    before = len(current_question(window).calibration)
    with qtbot.waitSignal(window.session.saved, timeout=3000):
        fixtures.add_button.click()
    settle(qtbot, window)
    assert len(current_question(window).calibration) == before + 1
    assert fixtures.fixture_list.count() == before + 1
    fixtures.fixture_list.setCurrentRow(before)
    assert fixtures.role.text() == "near miss"  # a new fixture fails the gate with total 0
    with qtbot.waitSignal(window.session.saved, timeout=3000):
        fixtures.gate_passed.setChecked(True)
    settle(qtbot, window)
    assert current_question(window).calibration[-1].expected_gate_passed is True
    assert "passes the gate but awards 0" in fixtures.findings.text()  # live check: C1 must get its full points
    with qtbot.waitSignal(window.session.saved, timeout=3000):
        fixtures.delete_button.click()
    settle(qtbot, window)
    assert len(current_question(window).calibration) == before
    window.menu_actions["undo"].trigger()
    settle(qtbot, window)
    assert len(current_question(window).calibration) == before + 1


def test_shortcut_sheet_lists_the_review_keys(sample_window) -> None:  # type: ignore[no-untyped-def]
    from gtreview.ui.menus import shortcut_sheet_html

    sheet = shortcut_sheet_html(sample_window.menu_actions)
    for text in ("Approve", "Request changes", "Next unreviewed", "Search questions", "Sign off set", "Undo"):
        assert text in sheet


def test_sign_off_appears_under_releases(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    with reading(window.project.engine) as session:
        for summary in sets.list_questions(session, window.set_id):
            workflow.approve(window.project.engine, window.set_id, summary.qid, reviewer="Dr Test")
    window.answers.append("v1")
    window.menu_actions["sign_off"].trigger()
    settle(qtbot, window)
    releases = window.navigator.releases_item
    assert releases.childCount() == 1 and "sign-off #1" in releases.child(0).text(0)


def test_closing_the_window_saves_the_edit_being_typed(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    editor.title_edit.setFocus()
    editor.title_edit.selectAll()
    qtbot.keyClicks(editor.title_edit, "Typed just before closing")
    window.close()  # commits the field and waits for the save: nothing typed is lost
    assert window.ops.idle() and current_question(window).title == "Typed just before closing"


def test_a_refused_edit_says_why_in_one_line_and_shows_what_is_saved(qtbot, sample_window, caplog) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    editor.id_edit.setFocus()
    editor.id_edit.selectAll()
    qtbot.keyClick(editor.id_edit, Qt.Key.Key_Delete)
    with qtbot.waitSignal(window.session.failed, timeout=3000):
        qtbot.keyClick(editor.id_edit, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert window.statusBar().currentMessage() == "Not saved: the question id cannot be empty"
    assert editor.id_edit.text() == "A1" and current_question(window).id == "A1"
    assert not [r for r in caplog.records if r.levelname == "ERROR"]  # the expert's mistake is not a bug
    assert window.session.undo_stack.count() == 0  # no undo step for an edit that was not saved
