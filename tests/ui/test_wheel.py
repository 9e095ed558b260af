"""The mouse wheel scrolls the form: a spin or combo box turns with it only once it has
the focus, so scrolling past the gate's points never changes (and saves) them."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QWidget

from tests.ui.waiting import settle


def _wheel(widget: QWidget, steps: int) -> None:
    """``steps`` notches of the wheel over the middle of ``widget`` (negative: towards the user)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_the_wheel_over_an_unfocused_points_box_scrolls_the_form(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.resize(1280, 720)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    editor = window.editor
    points, difficulty = editor.gate_points, editor.difficulty
    qtbot.waitUntil(points.isVisible)
    editor.pass_condition.setFocus()
    qtbot.waitUntil(editor.pass_condition.hasFocus)
    editor.ensureWidgetVisible(points)
    before, bar = points.value(), editor.verticalScrollBar()
    scrolled = bar.value()
    _wheel(points, -2)
    assert points.value() == before  # the value stays
    assert not points.hasFocus()  # and the wheel did not take the focus to it
    assert bar.value() > scrolled  # the form scrolled instead
    chosen = difficulty.currentText()
    editor.ensureWidgetVisible(difficulty)
    _wheel(difficulty, -1)
    assert difficulty.currentText() == chosen
    assert points.focusPolicy() == Qt.FocusPolicy.StrongFocus
    settle(qtbot, window)
    assert window.session.undo_stack.count() == 0  # nothing was saved

    points.setFocus()  # a box the expert chose turns as before
    qtbot.waitUntil(points.hasFocus)
    _wheel(points, 1)
    assert points.value() == before + 1
    _wheel(points, -1)  # back as it was: nothing to save when the focus leaves
    editor.pass_condition.setFocus()
    qtbot.waitUntil(editor.pass_condition.hasFocus)
    settle(qtbot, window)
    assert window.session.undo_stack.count() == 0
