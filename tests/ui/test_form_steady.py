"""The form keeps still: a field's box keeps its height when a finding appears under it,
the finding is in view, and an undo leaves the form where it was."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWidget

from tests.ui.waiting import settle


def _top(widget: QWidget, viewport: QWidget) -> int:
    return widget.mapTo(viewport, QPoint(0, 0)).y()


def test_emptying_the_pass_condition_keeps_its_box_and_shows_its_finding(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.resize(1280, 720)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    editor, field = window.editor, window.editor.pass_condition
    body = editor.widget()
    qtbot.waitUntil(  # laid out at this size (the scroll area takes a few turns of the loop)
        lambda: field.isVisible() and body.height() == max(body.minimumSizeHint().height(), editor.viewport().height())
    )
    editor.ensureWidgetVisible(field)
    heights = {b.label: b.widget.height() for b in editor._bindings if b.widget.isVisible()}
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(field, Qt.Key.Key_Delete)
    finding = next(b.findings for b in editor._bindings if b.widget is field)
    qtbot.waitUntil(finding.isVisible)
    viewport = editor.viewport()
    qtbot.waitUntil(  # the field is kept in place, its finding in view, on the next turn of the loop
        lambda: 0 <= _top(finding, viewport) and _top(finding, viewport) + finding.height() <= viewport.height()
    )
    assert {b.label: b.widget.height() for b in editor._bindings if b.widget.isVisible()} == heights

    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.session.undo_stack.count() == 1, timeout=3000)  # saved after the pause
    settle(qtbot, window)
    before = _top(field, viewport)
    qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: field.toPlainText() != "")
    settle(qtbot, window)
    qtbot.wait(0)
    assert abs(_top(field, viewport) - before) <= 2  # the form did not jump to another section
