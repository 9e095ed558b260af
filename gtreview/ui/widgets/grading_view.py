"""Blind human grading: the question and an answer, nothing about which model or what the
judge said; keyboard-first (Tab through the form, Ctrl+S saves and moves on).

The answer is read first: it stands on the left, beside the marking block and the form,
so it is on screen without scrolling however long the marking block is (below the block
it was out of view at 1280x720). The grader may go back (Alt+Left) to an answer graded
earlier in this sitting, whose grade the form shows again to change (saving again
replaces it), and skip one (Alt+Right) for later: it goes to the end of the queue. What
is typed and not saved is kept while the grader moves about the queue."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gtreview.app.adjudication import GradingItem, marking_block
from gtreview.ui.widgets.grading_form import GradingForm


@dataclass(frozen=True)
class _Entry:
    """What the grader gave an answer: saved, or typed and left for now."""

    gate: bool
    awards: dict[str, int]
    comment: str
    saved: bool


class GradingView(QWidget):
    save_requested = Signal(object, bool, dict, str)  # item, gate, awards, comment

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: list[GradingItem] = []
        self.position = 0
        self.entries: dict[str, _Entry] = {}  # by generation key
        self.progress = QLabel()
        self.progress.setWordWrap(True)
        self.answer = QTextBrowser()
        self.answer.setAccessibleName("Answer to grade")
        self.marking = QTextBrowser()
        self.marking.setAccessibleName("Marking block")
        self.form = GradingForm()
        self.save_action = self._key("Blind grading: save and next", "Ctrl+S", self.save_current)
        self.back_action = self._key("Blind grading: back to the previous answer", "Alt+Left", self.go_back)
        self.skip_action = self._key("Blind grading: skip (it comes back at the end)", "Alt+Right", self.skip)
        self.save_button = self._button("Save and &next", self.save_action, "Save this grade and go on")
        self.back_button = self._button(
            "&Back", self.back_action, "Back to the previous answer; its grade stays editable until you leave"
        )
        self.skip_button = self._button("S&kip", self.skip_action, "Grade this answer later: it goes to the end")
        self._lay_out()

    def _key(self, text: str, keys: str, slot: object) -> QAction:
        """A key of this page: it works wherever the focus is in the page, and the F1 sheet lists it."""
        action = QAction(text, self)
        action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    @staticmethod
    def _button(text: str, action: QAction, tip: str) -> QPushButton:
        button = QPushButton(text)
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        button.setToolTip(f"{tip} ({keys})")
        button.clicked.connect(action.trigger)
        return button

    def _lay_out(self) -> None:
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(QLabel("<b>Answer to grade</b>"))
        column.addWidget(self.answer, 1)
        right = QWidget()
        marking = QVBoxLayout(right)
        marking.setContentsMargins(0, 0, 0, 0)
        marking.addWidget(QLabel("<b>Marking block</b>"))
        marking.addWidget(self.marking, 1)
        marking.addWidget(self.form)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setChildrenCollapsible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.skip_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.progress)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(buttons)

    def shortcut_actions(self) -> dict[str, QAction]:
        """The page's keys, for the shortcut sheet."""
        return {"grading_save": self.save_action, "grading_back": self.back_action, "grading_skip": self.skip_action}

    def start(self, items: list[GradingItem]) -> None:
        self.items, self.position, self.entries = list(items), 0, {}
        self._show()

    # -- moving about the queue --------------------------------------------------------
    def save_current(self) -> None:
        """Save the grade shown and go on; a saved grade left as it was is not written again."""
        item = self._current()
        if item is None:
            return
        entry = self._entry(saved=True)
        before = self.entries.get(item.generation_key)
        self.entries[item.generation_key] = entry
        if before != entry:
            self.save_requested.emit(item, entry.gate, entry.awards, entry.comment)
        self.position += 1
        self._show()

    def go_back(self) -> None:
        if self.position == 0 or not self.items:
            return
        self._keep_typed()
        self.position -= 1
        self._show()

    def skip(self) -> None:
        """The answer shown goes to the end of the queue; the next one takes its place."""
        if self.position >= len(self.items) - 1:
            return
        self._keep_typed()
        self.items.append(self.items.pop(self.position))
        self._show()

    def not_saved(self, item: GradingItem) -> None:
        """A save that failed: the grade is kept as typed, and counted as not saved."""
        entry = self.entries.get(item.generation_key)
        if entry is not None:
            self.entries[item.generation_key] = _Entry(entry.gate, entry.awards, entry.comment, saved=False)
        self._show_progress()

    def graded(self) -> int:
        return sum(1 for item in self.items if self._saved(item))

    def _current(self) -> GradingItem | None:
        return self.items[self.position] if 0 <= self.position < len(self.items) else None

    def _saved(self, item: GradingItem) -> bool:
        entry = self.entries.get(item.generation_key)
        return entry is not None and entry.saved

    def _entry(self, *, saved: bool) -> _Entry:
        gate, awards = self.form.values()
        return _Entry(gate, awards, self.form.reason.text(), saved)

    def _keep_typed(self) -> None:
        """Keep what the form holds unless it is the saved grade unchanged."""
        item = self._current()
        if item is None:
            return
        before = self.entries.get(item.generation_key)
        typed = self._entry(saved=True)
        if before is None or (before.gate, before.awards, before.comment) != (typed.gate, typed.awards, typed.comment):
            self.entries[item.generation_key] = _Entry(typed.gate, typed.awards, typed.comment, saved=False)

    # -- showing -----------------------------------------------------------------------
    def _show(self) -> None:
        item = self._current()
        self.back_button.setEnabled(bool(self.items) and self.position > 0)
        self.skip_button.setEnabled(self.position < len(self.items) - 1)
        self.save_button.setEnabled(item is not None)
        self.form.setEnabled(item is not None)
        self._show_progress()
        if not self.items:
            self.answer.setHtml(
                "<p>Blind grading samples answers the judge has scored, to compare the expert's "
                "grade with the judge's, and this run has none left to grade: every scored answer "
                "is graded already, or the run has no verdicts yet (run its judging first).</p>"
            )
            self.marking.clear()
            return
        if item is None:
            self.answer.setHtml("<p>Done. The agreement with the judge is in the results.</p>")
            self.marking.clear()
            return
        self.answer.setHtml(f"<p style='white-space: pre-wrap'>{escape(item.answer)}</p>")
        self.marking.setHtml(f"<pre style='white-space: pre-wrap'>{escape(marking_block(item.question))}</pre>")
        entry = self.entries.get(item.generation_key)
        if entry is None:
            self.form.load(item.question)
        else:
            self.form.load(item.question, entry.gate, entry.awards)
            self.form.reason.setText(entry.comment)
        self.form.gate.show()  # a new row's widgets show later (queued): the focus needs it shown now
        self.form.gate.setFocus()

    def _show_progress(self) -> None:
        item, total = self._current(), len(self.items)
        if not self.items:
            self.progress.setText("Nothing to grade blind in this run.")
        elif item is None:
            graded = self.graded()
            self.progress.setText(
                f"All {total} sampled answers graded."
                if graded == total
                else f"{graded} of {total} graded; {total - graded} not saved: Back (Alt+Left) to them."
            )
        else:
            state = "graded: change it and save again, or leave it" if self._saved(item) else "not graded yet"
            self.progress.setText(
                f"Answer {self.position + 1} of {total}, {state} "
                f"({self.graded()} graded; blind: model and judge hidden)"
            )
