"""Tab moves the focus, everywhere: the app-wide keyboard rules every widget gets as it
is first polished, dialogs made later included.

By default Qt lets a table keep Tab to itself (it walks the cells and moves the
selection, and wraps, so the focus never leaves the question list) and lets a text field
type a tab character (which the autosave then stores as a new version). Here Tab and
Shift+Tab leave both; a table's cells are reached with the arrows, and a cell being
edited still goes on to the next cell with Tab (the delegate's own rule).

The mouse wheel over a spin box or a combo box that does not have the focus scrolls the
form it sits in: by default Qt turns the value (and the wheel gives it the focus), so
an expert only scrolling the form changed a gate's points, saved when the focus left.
Such boxes take the focus by click or Tab only, and turn with the wheel once focused; a turn over one without it goes to the scroll area.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QPlainTextEdit,
    QTabWidget,
    QTextBrowser,
    QTextEdit,
    QWidget,
)

_INSTALLED = "gtreview_tab_moves_focus"


def make_tab_move_focus(widget: QObject) -> None:
    """The rule for one widget (tables, text fields, spin and combo boxes; anything else
    is left as it is)."""
    if isinstance(widget, QAbstractItemView):
        widget.setTabKeyNavigation(False)
    elif isinstance(widget, (QPlainTextEdit, QTextEdit)) and not isinstance(widget, QTextBrowser):
        widget.setTabChangesFocus(True)  # a browser's Tab walks its links, then leaves by itself
    elif isinstance(widget, (QAbstractSpinBox, QComboBox)):
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # not WheelFocus: the wheel never gives it the focus


def wheel_passes_by(widget: QObject) -> bool:
    """Whether a wheel turn over ``widget`` goes on to what holds it (the scroll area)
    rather than changing its value: a spin or combo box without the focus."""
    return isinstance(widget, (QAbstractSpinBox, QComboBox)) and not widget.hasFocus()


class _TabMovesFocus(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Polish:
            make_tab_move_focus(watched)
        elif event.type() == QEvent.Type.Wheel and isinstance(event, QWheelEvent) and wheel_passes_by(watched):
            _scroll_holder(watched, event)  # type: ignore[arg-type]
            return True
        return False


def _scroll_holder(widget: QWidget, event: QWheelEvent) -> None:
    """Hand the turn to the nearest scroll area holding ``widget`` (Qt would stop at the
    first parent that ignores it, and never passes on a turn sent rather than made)."""
    holder = widget.parentWidget()
    while holder is not None and not isinstance(holder, QAbstractScrollArea):
        holder = holder.parentWidget()
    if holder is None:
        return
    viewport = holder.viewport()
    where = QPointF(viewport.mapFromGlobal(event.globalPosition().toPoint()))
    turn = QWheelEvent(
        where,
        event.globalPosition(),
        event.pixelDelta(),
        event.angleDelta(),
        event.buttons(),
        event.modifiers(),
        event.phase(),
        event.inverted(),
    )
    QApplication.sendEvent(viewport, turn)


def install_tab_moves_focus(app: QApplication | None = None) -> None:
    """Once per application: every table and text field polished from now on lets Tab go,
    and those already made are told now."""
    app = app or QApplication.instance()  # type: ignore[assignment]
    if not isinstance(app, QApplication) or app.property(_INSTALLED):
        return
    rule = _TabMovesFocus(app)
    app.installEventFilter(rule)
    app.setProperty(_INSTALLED, True)
    for widget in app.allWidgets():
        make_tab_move_focus(widget)


def first_field(page: QWidget) -> QWidget | None:
    """The first widget of ``page`` that Tab would stop at (shown, enabled), in focus order."""
    widget = page.nextInFocusChain()
    while widget is not None and widget is not page:
        if (
            page.isAncestorOf(widget)
            and widget.isVisible()
            and widget.isEnabled()
            and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        ):
            return widget
        widget = widget.nextInFocusChain()
    return None


def show_tab(tabs: QTabWidget, position: int) -> None:
    """Turn to a tab and put the focus in its first field (else on the tab bar, so the
    arrows turn the tabs): the keyboard is never left in the list the user came from."""
    tabs.setCurrentIndex(position)
    page = tabs.currentWidget()
    target = first_field(page) if page is not None else None
    (target or tabs.tabBar()).setFocus(Qt.FocusReason.TabFocusReason)
