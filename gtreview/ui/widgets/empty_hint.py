"""A table that shows no rows says why, in the table itself (what an empty queue,
search or filter means, and what to do), instead of a blank grid."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QLabel


class EmptyHint(QObject):
    """A word-wrapped line centred over ``view``'s viewport while its model has no rows;
    ``reason`` says why (asked each time the rows change, so it names the filters in force;
    "" while there is nothing to say yet, such as rows still being read)."""

    def __init__(self, view: QAbstractItemView, reason: Callable[[], str]) -> None:
        super().__init__(view)
        self.view, self.reason = view, reason
        self.label = QLabel(view.viewport())
        self.label.setObjectName("empty-hint")
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.label.setEnabled(False)  # drawn in the palette's quieter (disabled) text colour
        model = view.model()
        for signal in (model.modelReset, model.rowsInserted, model.rowsRemoved, model.layoutChanged):
            signal.connect(self.update)
        view.viewport().installEventFilter(self)
        self.update()

    def text(self) -> str:
        """What the table says now ("" while it shows rows)."""
        return self.label.text() if not self.label.isHidden() else ""

    def update(self) -> None:
        why = self.reason() if self.view.model().rowCount() == 0 else ""
        self.label.setText(why)
        self.label.setVisible(bool(why))  # no reason (rows still being read): a blank grid
        if why:
            self._place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        area = self.view.viewport().rect().adjusted(16, 16, -16, -16)
        self.label.setGeometry(area)
