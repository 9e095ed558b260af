"""Review from the keyboard: comments typed and accepted without the mouse, and an
approval that moves on to the next unreviewed question (when the expert wants it)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.sets import ReviewStatus
from gtreview.ui.dialogs.comment import CommentDialog, ask_comment
from tests.ui.waiting import settle


def test_enter_makes_a_new_line_tab_moves_on_and_ctrl_return_accepts(qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = CommentDialog("Retire A1", "Why?")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.text.setFocus()
    qtbot.keyClicks(dialog.text, "first")
    qtbot.keyClick(dialog.text, Qt.Key.Key_Return)
    qtbot.keyClicks(dialog.text, "second")
    qtbot.keyClick(dialog.text, Qt.Key.Key_Tab)
    assert dialog.comment() == "first\nsecond" and dialog.isVisible()  # Tab inserted nothing
    assert QApplication.focusWidget() is not dialog.text
    dialog.text.setFocus()
    with qtbot.waitSignal(dialog.accepted, timeout=2000):
        qtbot.keyClick(dialog.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def test_a_reason_the_action_needs_cannot_be_accepted_empty(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A refusal after the dialog closed would lose nothing, but say nothing useful either:
    OK and Ctrl+Return wait for some text; a sign-off note may stay empty."""
    dialog = CommentDialog("Retire A1", "Why?")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.text.setFocus()
    assert not dialog.ok.isEnabled()
    qtbot.keyClicks(dialog.text, "   ")
    qtbot.keyClick(dialog.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert dialog.isVisible() and dialog.result() == 0 and not dialog.ok.isEnabled()
    qtbot.keyClicks(dialog.text, "duplicates A2")
    assert dialog.ok.isEnabled()
    with qtbot.waitSignal(dialog.accepted, timeout=2000):
        qtbot.keyClick(dialog.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    note = CommentDialog("Sign off the set", "Note?", required=False)
    qtbot.addWidget(note)
    assert note.ok.isEnabled()


def test_ask_comment_returns_the_text_or_none(qtbot) -> None:  # type: ignore[no-untyped-def]
    def answer(accept: bool) -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, CommentDialog)
        dialog.text.setPlainText("a reason")
        dialog.accept() if accept else dialog.reject()

    QTimer.singleShot(50, lambda: answer(True))
    assert ask_comment(None, "t", "p") == "a reason"  # type: ignore[arg-type]
    QTimer.singleShot(50, lambda: answer(False))
    assert ask_comment(None, "t", "p") is None  # type: ignore[arg-type]


def test_approving_offers_to_move_on_and_moves_on_when_asked(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    window.question_list.select("A1")
    settle(qtbot, window)
    window.menu_actions["approve"].trigger()
    settle(qtbot, window)
    assert window.qid == "A1"  # by default the expert stays, and is told how to move on
    assert "Ctrl+J: the next unreviewed question" in window.statusBar().currentMessage()

    window.menu_actions["move_on"].setChecked(True)
    window.question_list.select("A2")
    settle(qtbot, window)
    window.menu_actions["approve"].trigger()
    settle(qtbot, window)
    with reading(engine) as session:
        statuses = {s.qid: s.review_status for s in sets.list_questions(session, set_id)}
    assert statuses["A1"] is statuses["A2"] is ReviewStatus.APPROVED
    assert window.qid not in ("A1", "A2") and statuses[window.qid] is not ReviewStatus.APPROVED
    assert "the next unreviewed question" in window.statusBar().currentMessage()
    assert window.settings.value("review/move_on_after_approving", type=bool) is True


def test_the_editor_starts_at_the_top_for_another_question(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.resize(1280, 720)
    window.tabs.setCurrentWidget(window.editor)
    window.question_list.select("A1")
    settle(qtbot, window)
    bar = window.editor.verticalScrollBar()
    assert bar.maximum() > 0  # the form is taller than the tab
    bar.setValue(bar.maximum())
    window.question_list.select("A2")
    settle(qtbot, window)
    assert window.editor.id_edit.text() == "A2" and bar.value() == 0  # a click lands on the field it aims at


def test_an_edit_that_withdraws_an_approval_says_so(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    window.question_list.select("A1")
    settle(qtbot, window)
    window.menu_actions["approve"].trigger()
    settle(qtbot, window)
    with reading(engine) as session:
        assert {s.qid: s.review_status for s in sets.list_questions(session, set_id)}["A1"] is ReviewStatus.APPROVED
    window.tabs.setCurrentWidget(window.editor)
    editor = window.editor
    editor.title_edit.setFocus()
    editor.title_edit.selectAll()
    qtbot.keyClicks(editor.title_edit, "A retitled question")
    with qtbot.waitSignal(window.session.withdrawn, timeout=5000) as withdrawn:
        qtbot.keyClick(editor.title_edit, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert withdrawn.args == ["A1", "approved"]
    with reading(engine) as session:
        assert {s.qid: s.review_status for s in sets.list_questions(session, set_id)}["A1"] is ReviewStatus.DRAFT
    assert any("A1 is a draft again" in text for _kind, text in window.notices.recent)


def test_sign_off_says_why_not_before_asking_for_the_note(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    asked: list[str] = []
    window.controller.ask_comment = lambda title, _prompt: asked.append(title) or "a note"  # type: ignore[func-returns-value]
    window.menu_actions["sign_off"].trigger()
    settle(qtbot, window)
    assert asked == []  # no note typed in vain
    assert (
        "Cannot sign off" in window.statusBar().currentMessage()
        and "not approved" in window.statusBar().currentMessage()
    )
    from gtreview.app import workflow

    assert workflow.signoffs(window.project.engine, window.set_id) == []


def test_ctrl_z_in_a_field_with_nothing_to_undo_undoes_the_last_saved_edit(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    window.question_list.select("A1")
    settle(qtbot, window)
    window.tabs.setCurrentWidget(window.editor)
    editor = window.editor
    with reading(engine) as session:
        title = sets.load_question(session, set_id, "A1").title
    editor.title_edit.setFocus()
    editor.title_edit.selectAll()
    qtbot.keyClicks(editor.title_edit, "A new title")
    with qtbot.waitSignal(window.session.saved, timeout=5000):
        qtbot.keyClick(editor.title_edit, Qt.Key.Key_Return)
    settle(qtbot, window)
    with reading(engine) as session:
        assert sets.load_question(session, set_id, "A1").title == "A new title"
    editor.type_edit.setFocus()  # a field the expert has not typed in
    with qtbot.waitSignal(window.session.saved, timeout=5000):
        qtbot.keyClick(editor.type_edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    with reading(engine) as session:
        assert sets.load_question(session, set_id, "A1").title == title  # the window's undo took the key


def test_blind_grading_with_nothing_to_grade_says_why(qtbot) -> None:  # type: ignore[no-untyped-def]
    from gtreview.ui.widgets.grading_view import GradingView

    view = GradingView()
    qtbot.addWidget(view)
    view.start([])
    assert view.progress.text() == "Nothing to grade blind in this run."
    assert "no verdicts yet" in view.answer.toPlainText() and not view.form.isEnabled()
