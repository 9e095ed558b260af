"""The window's notice area: the status bar's transient message, beside a status line
that never covers it.

``QStatusBar`` draws a temporary message (``showMessage``) to the left of its first
permanent widget and hides its normal widgets meanwhile; a permanent widget added with
a stretch takes the whole bar and leaves the message no room at all. So the status line
here is a permanent widget without stretch whose width is capped (its text is elided,
the whole of it in the tooltip), and every notice is a temporary message, coloured by
its kind, with its own timeout. The bar's height never changes, so a notice never
moves the layout.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QStatusBar, QWidget

log = logging.getLogger("gtreview.ui.notice")

# How long each kind stays (ms): results go quickly, refusals and failures stay to be read.
TIMEOUTS = {"info": 6000, "success": 8000, "warning": 15000, "error": 30000}
STATUS_WIDTH_CAP = 520  # px: the status line never squeezes the notices out (nor widens the window)


class StatusLabel(QLabel):
    """A one-line label that asks for at most ``STATUS_WIDTH_CAP`` pixels and elides its text
    to the room it gets; ``text()`` stays the whole text and the tooltip shows it."""

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(min(hint.width(), STATUS_WIDTH_CAP), hint.height())

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), 80), hint.height())

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        self.style().drawItemText(
            painter,
            rect,
            int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight),
            self.palette(),
            self.isEnabled(),
            shown,
            QPalette.ColorRole.WindowText,
        )


class NoticeBar(QStatusBar):
    """The status bar: ``notify(text, kind)`` shows a notice; ``status`` is the status line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status = StatusLabel()
        self.addPermanentWidget(self.status)  # no stretch: the notice keeps the room to its left
        self.kind = ""
        self.recent: list[tuple[str, str]] = []  # (kind, text), the latest last (also for tests)
        self.messageChanged.connect(self._message_changed)

    def notify(self, text: str, kind: str = "info", timeout: int | None = None, *, logged: bool = True) -> None:
        """Show ``text`` for ``timeout`` ms (0: until the next; None: as long as its kind stays)."""
        kind = kind if kind in TIMEOUTS else "info"
        self.kind = kind
        self.recent = [*self.recent[-49:], (kind, text)]
        if logged:  # progress lines are not
            log.log(logging.WARNING if kind in ("warning", "error") else logging.INFO, "notice (%s): %s", kind, text)
        self._paint_kind(kind)
        self.setToolTip(text)  # a long notice is clipped in the bar; the whole of it is here
        self.showMessage(text, TIMEOUTS[kind] if timeout is None else timeout)

    def _paint_kind(self, kind: str) -> None:
        """The message's colour; the theme's palette otherwise (read now: the theme can change)."""
        normal = QApplication.palette(self)
        palette = QPalette(normal)
        colour = _kind_colour(kind, normal)
        if colour is not None:
            palette.setColor(QPalette.ColorRole.WindowText, colour)
        self.setPalette(palette)
        self.status.setPalette(normal)

    def _message_changed(self, message: str) -> None:
        if not message:
            self.kind = ""
            self.setToolTip("")
            self.setPalette(QPalette())  # inherit the theme's again
            self.status.setPalette(QPalette())


def _kind_colour(kind: str, palette: QPalette) -> QColor | None:
    """Red for errors, amber for warnings, green for results; lighter on a dark window."""
    dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
    colours = {
        "error": ("#b00020", "#ff8a80"),
        "warning": ("#8a5a00", "#ffd180"),
        "success": ("#1b5e20", "#b9f6ca"),
    }
    pair = colours.get(kind)
    return None if pair is None else QColor(pair[1] if dark else pair[0])
