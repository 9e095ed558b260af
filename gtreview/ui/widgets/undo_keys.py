"""Ctrl+Z and Ctrl+Shift+Z in a text field with nothing of its own to undo go to the
window's undo history.

A QLineEdit or QPlainTextEdit claims the undo and redo keys whenever it has focus, even
when it has nothing to undo: the expert who pressed Ctrl+Z in a field just tabbed into
saw nothing happen, while Edit > Undo would have undone their last saved edit.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QWidget


class UndoKeysToWindow(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            wanted = (
                QKeySequence.StandardKey.Undo
                if event.matches(QKeySequence.StandardKey.Undo)
                else QKeySequence.StandardKey.Redo
                if event.matches(QKeySequence.StandardKey.Redo)
                else None
            )
            if wanted is not None and not _has_own(watched, wanted):
                event.ignore()  # not the field's: the window's shortcut takes it
                return True
        return False


def _has_own(widget: QObject, key: QKeySequence.StandardKey) -> bool:
    undo = key == QKeySequence.StandardKey.Undo
    if isinstance(widget, QLineEdit):
        return widget.isUndoAvailable() if undo else widget.isRedoAvailable()
    if isinstance(widget, QPlainTextEdit):
        document = widget.document()
        return document.isUndoAvailable() if undo else document.isRedoAvailable()
    return True


def route_undo_keys(root: QWidget) -> UndoKeysToWindow:
    """Watch every text field under ``root`` (made once; the fields live as long as it)."""
    keys = UndoKeysToWindow(root)
    for field in [*root.findChildren(QLineEdit), *root.findChildren(QPlainTextEdit)]:
        field.installEventFilter(keys)
    return keys
