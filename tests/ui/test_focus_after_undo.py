"""A reload of the question being edited (its save, an undo or a redo coming back) leaves
the keyboard where it was: the keys typed next never land in the Id (and rename it)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gtreview.core.jsonpath import set_at
from tests.ui.waiting import settle


def test_a_reload_that_moves_the_focus_gives_it_back(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    table = editor.components.table
    table.setFocus()
    table.setCurrentCell(0, 1)
    qtbot.waitUntil(table.hasFocus)
    gate = next(b for b in editor._bindings if b.path == ("gate", "points"))
    write = gate.write

    def write_and_jump(value):  # type: ignore[no-untyped-def]
        write(value)
        editor.id_edit.setFocus()  # what the tester saw: the focus gone to the Id during the reload

    gate.write = write_and_jump
    content = editor._content
    editor.load(set_at(content, ("gate", "points"), content["gate"]["points"] + 1), same_question=True)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is table)
    gate.write = write
    settle(qtbot, window)


def test_ctrl_z_leaves_the_focus_in_the_table(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    points = editor.gate_points
    points.setFocus()
    qtbot.waitUntil(points.hasFocus)
    was = points.value()
    qtbot.keyClick(points, Qt.Key.Key_Up)
    table = editor.components.table
    table.setFocus()  # leaving the box saves the new points
    table.setCurrentCell(1, 1)
    qtbot.waitUntil(lambda: window.session.undo_stack.count() == 1, timeout=10000)
    settle(qtbot, window)
    qtbot.keyClick(table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: points.value() == was, timeout=10000)
    settle(qtbot, window)
    qtbot.wait(0)
    assert QApplication.focusWidget() is table
