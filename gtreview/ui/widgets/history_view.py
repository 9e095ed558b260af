"""A question's history: the audit trail and the diff between any two versions.

An edit says which field it changed, and an undo or redo says so and which version it
undid or redid (``app.editing`` records it as the entry's comment: ``field $.path``,
``undo of version 6: field $.path``); a question the set's import made starts with that
import. The change requests still open are also shown above the question
itself (``change_requests_html``), where it is reviewed.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gtreview.app.editing import edit_note, field_in_words
from gtreview.app.review import VersionInfo
from gtreview.app.workflow import HistoryEntry
from gtreview.core.review_flow import ReviewStatus
from gtreview.ui.widgets.html import colours


class DiffHighlighter(QSyntaxHighlighter):
    """Added lines on a green tint, removed on a red one, hunk headers in the heading
    colour: the change is seen at a glance, in the current theme's colours."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)

    def highlightBlock(self, text: str) -> None:
        c = colours()
        style = QTextCharFormat()
        if text.startswith(("+++", "---")):
            style.setFontWeight(QFont.Weight.Bold)
        elif text.startswith("+"):
            style.setBackground(QColor(c.added_back))
        elif text.startswith("-"):
            style.setBackground(QColor(c.removed_back))
        elif text.startswith("@@"):
            style.setForeground(QColor(c.heading))
        else:
            return
        self.setFormat(0, len(text), style)


class HistoryView(QWidget):
    """Asks for a diff with ``diff_requested(old, new)``; the window reads it off the GUI thread."""

    diff_requested = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.log = QTableWidget(0, 5)
        self.log.setHorizontalHeaderLabels(["When (UTC)", "Who", "Action", "Version", "Comment"])
        self.log.horizontalHeader().setStretchLastSection(True)
        self.log.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.from_version = QComboBox()
        self.to_version = QComboBox()
        self.diff = QPlainTextEdit(readOnly=True)
        self.diff.setFont(QFont("monospace"))
        self.highlighter = DiffHighlighter(self.diff.document())
        for combo in (self.from_version, self.to_version):
            combo.currentIndexChanged.connect(self._show_diff)
        chooser = QHBoxLayout()
        chooser.addWidget(QLabel("Diff version"))
        chooser.addWidget(self.from_version)
        chooser.addWidget(QLabel("against"))
        chooser.addWidget(self.to_version)
        chooser.addStretch(1)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(chooser)
        lower_layout.addWidget(self.diff)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.log)
        splitter.addWidget(lower)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.highlighter.rehighlight()  # the tints follow a change of theme

    def show_history(self, entries: list[HistoryEntry], versions: list[VersionInfo]) -> None:
        self.log.setRowCount(len(entries))
        for row, entry in enumerate(reversed(entries)):
            values = (
                entry.at.strftime("%Y-%m-%d %H:%M:%S"),
                entry.actor,
                action_text(entry),
                "" if entry.version is None else str(entry.version),
                comment_text(entry),
            )
            for column, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setToolTip(f"content hash {entry.content_hash}")
                self.log.setItem(row, column, item)
        self.log.resizeColumnsToContents()
        for combo in (self.from_version, self.to_version):
            combo.blockSignals(True)
            combo.clear()
            for info in versions:
                undone = edit_note(info.comment)
                said = f" ({undone.kind} of v{undone.of_version})" if undone and undone.of_version else ""
                combo.addItem(f"v{info.version}{said} · {info.author} · {info.created_at[:19]}", info.version)
            combo.blockSignals(False)
        if versions:
            self.from_version.setCurrentIndex(max(0, len(versions) - 2))
            self.to_version.setCurrentIndex(len(versions) - 1)
        self._show_diff()

    def _show_diff(self) -> None:
        old, new = self.from_version.currentData(), self.to_version.currentData()
        if old is None or new is None:
            self.diff.setPlainText("")
            return
        if self.to_version.count() == 1:  # never edited: say so rather than compare v1 with itself
            self.diff.setPlainText(f"Only version {new} so far: nothing to compare yet.")
            return
        self.diff_requested.emit(int(old), int(new))

    def show_diff(self, old: int, new: int, text: str) -> None:
        if (old, new) == (self.from_version.currentData(), self.to_version.currentData()):
            self.diff.setPlainText(text or f"v{old} and v{new} are identical.")


def action_text(entry: HistoryEntry) -> str:
    """The action in words; an edit with the field it changed, an undo or redo as such."""
    note = edit_note(entry.comment) if entry.action == "edit" else None
    if note is None:
        if entry.calibration_required is False:  # Review > Require calibration was off: never read as calibrated
            return f"{entry.action.replace('_', ' ')} (calibration not required)"
        return entry.action.replace("_", " ")
    edit = f"edit {field_in_words(note.field)}"
    return edit if note.kind == "edit" else f"{note.kind}: {edit}"


def comment_text(entry: HistoryEntry) -> str:
    """The comment column: the author's words, the version an undo or redo reverses or
    repeats, nothing for a plain edit (its field is in the action)."""
    note = edit_note(entry.comment) if entry.action == "edit" else None
    if note is None:
        return entry.comment
    if note.kind == "edit" or note.of_version is None:
        return ""
    return f"{'undoes' if note.kind == 'undo' else 'redoes'} version {note.of_version}"


# What closes a change request: the decisions, logged under the status they leave.
OPEN_UNTIL = frozenset(s.value for s in (ReviewStatus.APPROVED, ReviewStatus.RETIRED, ReviewStatus.IN_REVIEW))


def change_requests_html(entries: list[HistoryEntry]) -> str:
    """The change requests made since the question was last approved, taken up for review or
    retired, with who asked and what they asked: shown above the question."""
    open_requests: list[HistoryEntry] = []
    for entry in entries:
        if entry.action in OPEN_UNTIL:
            open_requests = []
        elif entry.action == ReviewStatus.CHANGES_REQUESTED.value:
            open_requests.append(entry)
    if not open_requests:
        return ""
    rows = "".join(
        f"<p><b>{escape(e.actor)}</b>, {e.at.strftime('%Y-%m-%d %H:%M')}: {escape(e.comment)}</p>"
        for e in open_requests
    )
    c = colours()  # inline: the fragment comes before the question's own style block
    return (
        f"<div style='background: {c.gate_back}; border: 1px solid {c.gate_border}; color: {c.text}; padding: 6px'>"
        f"<b style='color: {c.warning}'>Changes requested</b>{rows}</div>"
    )


def retirement(entries: list[HistoryEntry], status: ReviewStatus) -> str:
    """Who retired the question, when and why, in one line ("" unless it is retired)."""
    if status is not ReviewStatus.RETIRED:
        return ""
    entry = next((e for e in reversed(entries) if e.action == ReviewStatus.RETIRED.value), None)
    if entry is None:
        return "Retired (no record of who retired it)."
    return f"Retired by {entry.actor} on {entry.at:%Y-%m-%d %H:%M}: {entry.comment}"


def retirement_html(entries: list[HistoryEntry], status: ReviewStatus) -> str:
    """The retirement above the question, as the change requests are shown."""
    said = retirement(entries, status)
    if not said:
        return ""
    c = colours()
    return (
        f"<div style='background: {c.gate_back}; border: 1px solid {c.gate_border}; color: {c.text}; padding: 6px'>"
        f"<b>{escape(said)}</b><br>A retired question stays as it was retired: it is left out of the set and "
        "cannot be edited or reviewed again.</div>"
    )
