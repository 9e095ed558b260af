"""Keyboard all the way: Tab and Shift+Tab leave the question list and every text field,
Ctrl+1..4 put the focus in the tab's first field, and the form is walked top to bottom."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QWidget

from tests.ui.waiting import settle


def _active(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def _focus() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None
    return widget


def test_ctrl_2_puts_the_focus_in_the_form_and_tab_never_walks_the_list(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    _active(qtbot, window)
    table = window.question_list.table
    table.setFocus()
    qtbot.waitUntil(table.hasFocus)
    selected = window.qid
    qtbot.keyClick(table, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.editor
    assert _focus() is window.editor.id_edit  # the page's first field, not the list
    for _ in range(12):
        qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
        assert window.editor.isAncestorOf(_focus()), type(_focus()).__name__
    assert window.qid == selected


def test_tab_and_shift_tab_leave_the_question_list_without_moving_the_selection(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    _active(qtbot, window)
    table = window.question_list.table
    selected = window.question_list.current_qid()
    for modifier in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier):
        table.setFocus()
        qtbot.waitUntil(table.hasFocus)
        qtbot.keyClick(table, Qt.Key.Key_Tab, modifier)
        assert not table.hasFocus()
        assert window.question_list.current_qid() == selected


def test_tab_walks_the_form_top_to_bottom(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    _active(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    body = window.editor.widget()
    fields = {id(b.widget) for b in window.editor._bindings if b.widget.isVisible()}
    reached, tops = set(), []
    for _ in range(60):
        widget = _focus()
        if not body.isAncestorOf(widget):
            break
        holder = next((w for w in (widget, widget.parentWidget()) if w is not None and id(w) in fields), None)
        if holder is not None and id(holder) not in reached:
            reached.add(id(holder))
            tops.append(holder.mapTo(body, QPoint(0, 0)).y())
        qtbot.keyClick(widget, Qt.Key.Key_Tab)
    assert reached == fields  # every field, none skipped, and the walk got out at the end
    assert tops == sorted(tops)


def test_tab_in_a_text_field_moves_on_and_saves_no_tab_character(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    _active(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    field = window.editor.question_edit
    before = field.toPlainText()
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert not field.hasFocus()
    qtbot.keyClick(_focus(), Qt.Key.Key_Tab, Qt.KeyboardModifier.ShiftModifier)
    assert field.hasFocus()
    settle(qtbot, window)
    assert field.toPlainText() == before and "\t" not in field.toPlainText()
    assert window.session.undo_stack.count() == 0  # nothing was saved


def test_every_text_field_of_the_window_and_its_dialogs_lets_tab_go(qtbot, sample_window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QAbstractItemView, QPlainTextEdit, QTextBrowser, QTextEdit

    from gtreview.ui.dialogs.preferences import PreferencesDialog
    from gtreview.ui.dialogs.run_dialog import RunDialog

    window = sample_window
    run = RunDialog("set", "", window)
    preferences = PreferencesDialog(window.settings, window)
    for dialog in (run, preferences):
        qtbot.addWidget(dialog)
        dialog.show()
    fields = [
        w
        for root in (window, run, preferences)
        for w in root.findChildren(QPlainTextEdit) + root.findChildren(QTextEdit)
        if not isinstance(w, QTextBrowser)
    ]
    assert len(fields) > 10
    assert [type(w).__name__ for w in fields if not w.tabChangesFocus()] == []
    views = window.findChildren(QAbstractItemView)
    assert [type(v).__name__ for v in views if v.tabKeyNavigation()] == []
    run.models.setPlainText("base=llama:/m/base.gguf")
    run.activateWindow()
    run.models.setFocus()
    qtbot.waitUntil(run.models.hasFocus)
    qtbot.keyClick(run.models, Qt.Key.Key_Tab)
    qtbot.keyClicks(_focus(), "48")
    assert run.models.toPlainText() == "base=llama:/m/base.gguf"
