"""The keyboard shortcut sheet (F1): the table scrolls inside a dialog that never grows
taller than the screen, so its OK button is always on screen (a message box of some 40
rows was 724 px tall and lost its button at 1280x720)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

FRAME_ROOM = 64  # the window manager's title bar and borders, about, and a margin


class ShortcutSheet(QDialog):
    def __init__(self, table_html: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.table = QTextBrowser()
        self.table.setHtml(table_html)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok)
        buttons.accepted.connect(self.accept)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(self._fitted())
        self.ok.setFocus()

    def _fitted(self) -> QSize:
        """As tall as the table, up to the screen's height; as wide as the table's rows."""
        document = self.table.document()
        document.setTextWidth(-1)  # the natural width of the rows, unwrapped
        width = int(document.idealWidth()) + 48
        height = int(document.size().height()) + 96  # the button row and the margins
        screen = (self.parentWidget() or self).screen()
        if screen is not None:
            room = screen.availableGeometry().size()
            width, height = min(width, room.width() - FRAME_ROOM), min(height, room.height() - FRAME_ROOM)
        return QSize(max(width, 320), max(height, 200))
