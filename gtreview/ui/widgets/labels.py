"""Labels that never widen their window: a one-line message is shortened with an ellipsis
to the width it is given (the whole text in its tooltip); a wrapped one takes the width the
layout gives it instead of asking for its longest word."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """One line of plain text, elided on the right; ``text()`` is the whole message."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:
        self._full = text
        self._elide()

    def text(self) -> str:
        return self._full

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        width = self.fontMetrics().horizontalAdvance(" ".join(self._full.split())) + 8
        return QSize(min(width, 480), super().sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        line = " ".join(self._full.split())
        shown = self.fontMetrics().elidedText(line, Qt.TextElideMode.ElideRight, max(0, self.width() - 2))
        QLabel.setText(self, shown)
        self.setToolTip(self._full if shown != line or "\n" in self._full.strip() else "")


def never_widens(label: QLabel) -> QLabel:
    """Word wrap, and no minimum width of its own: the layout's width is the label's."""
    label.setWordWrap(True)
    policy = label.sizePolicy()
    label.setSizePolicy(QSizePolicy.Policy.Ignored, policy.verticalPolicy())
    label.setMinimumWidth(1)
    return label
