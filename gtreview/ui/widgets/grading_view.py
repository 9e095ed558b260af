"""Blind human grading: the question and an answer, nothing about which model or what the
judge said; keyboard-first (Tab through the form, Ctrl+S saves and moves on)."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from gtreview.app.adjudication import GradingItem, marking_block
from gtreview.ui.widgets.grading_form import GradingForm


class GradingView(QWidget):
    save_requested = Signal(object, bool, dict, str)  # item, gate, awards, comment

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: list[GradingItem] = []
        self.position = 0
        self.progress = QLabel()
        self.text = QTextBrowser()
        self.form = GradingForm()
        self.save_button = QPushButton("Save and &next (Ctrl+S)")
        self.save_button.clicked.connect(self.save_current)
        shortcut = QShortcut(QKeySequence("Ctrl+S"), self)
        shortcut.activated.connect(self.save_current)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        layout = QVBoxLayout(self)
        layout.addWidget(self.progress)
        layout.addWidget(self.text, 3)
        layout.addWidget(self.form)
        layout.addWidget(self.save_button)

    def start(self, items: list[GradingItem]) -> None:
        self.items, self.position = items, 0
        self._show()

    def _show(self) -> None:
        if not self.items:
            self.progress.setText("Nothing to grade blind in this run.")
            self.text.setHtml(
                "<p>Blind grading samples answers the judge has scored, to compare the expert's "
                "grade with the judge's, and this run has none left to grade: every scored answer "
                "is graded already, or the run has no verdicts yet (run its judging first).</p>"
            )
            self.form.setEnabled(False)
            return
        if self.position >= len(self.items):
            self.progress.setText(f"All {len(self.items)} sampled answers graded.")
            self.text.setHtml("<p>Done. The agreement with the judge is in the results.</p>")
            self.form.setEnabled(False)
            return
        item = self.items[self.position]
        self.form.setEnabled(True)
        self.progress.setText(f"Answer {self.position + 1} of {len(self.items)} (blind: model and judge hidden)")
        self.text.setHtml(
            f"<pre style='white-space: pre-wrap'>{escape(marking_block(item.question))}</pre>"
            f"<h4>Answer to grade</h4><p>{escape(item.answer)}</p>"
        )
        self.form.load(item.question)
        self.form.gate.setFocus()

    def save_current(self) -> None:
        if self.position >= len(self.items):
            return
        gate, awards = self.form.values()
        self.save_requested.emit(self.items[self.position], gate, awards, self.form.reason.text())
        self.position += 1
        self._show()
