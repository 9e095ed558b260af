"""The adjudication queue: what needs an expert's decision, and the place to make it."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gtreview.results.loader import RunResults
from gtreview.app.adjudication import HistoryStep, QueueItem
from gtreview.ui.widgets.grading_form import GradingForm

PAIR_LABELS = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]


class AdjudicationView(QWidget):
    confirm_requested = Signal(object)  # QueueItem
    override_requested = Signal(object)  # QueueItem
    revert_requested = Signal(object, int)  # QueueItem, decision id
    item_selected = Signal(object)  # QueueItem

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: list[QueueItem] = []
        self.results: RunResults | None = None
        self.reason_filter, self.model_filter, self.question_filter = QComboBox(), QComboBox(), QComboBox()
        for combo in (self.reason_filter, self.model_filter, self.question_filter):
            combo.currentIndexChanged.connect(self._refill)
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["Reason", "Question", "Model", "Sample", "Settled"])
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.currentCellChanged.connect(lambda row, *_: self._selected(row))
        self.detail = QTextBrowser()
        self.form = GradingForm()
        self.pair_label = QComboBox()
        self.pair_label.addItems(PAIR_LABELS)
        self.confirm_button = QPushButton("&Confirm the judge")
        self.override_button = QPushButton("&Override")
        self.revert_button = QPushButton("Re&vert selected step")
        self.history = QListWidget()
        self.status = QLabel()
        self.confirm_button.clicked.connect(lambda: self._emit(self.confirm_requested))
        self.override_button.clicked.connect(lambda: self._emit(self.override_requested))
        self.revert_button.clicked.connect(self._revert)
        filters = QHBoxLayout()
        for label, combo in (
            ("Reason", self.reason_filter),
            ("Model", self.model_filter),
            ("Question", self.question_filter),
        ):
            filters.addWidget(QLabel(label))
            filters.addWidget(combo)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addLayout(filters)
        left_layout.addWidget(self.table)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.detail, 3)
        right_layout.addWidget(self.form)
        right_layout.addWidget(self.pair_label)
        buttons = QHBoxLayout()
        for button in (self.confirm_button, self.override_button, self.revert_button):
            buttons.addWidget(button)
        right_layout.addLayout(buttons)
        right_layout.addWidget(QLabel("History"))
        right_layout.addWidget(self.history, 1)
        right_layout.addWidget(self.status)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

    def show_queue(self, results: RunResults, items: list[QueueItem]) -> None:
        self.results, self.items = results, items
        for combo, values in (
            (self.reason_filter, sorted({i.reason.value for i in items})),
            (self.model_filter, sorted({i.model for i in items})),
            (self.question_filter, sorted({i.qid for i in items})),
        ):
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(["(any)", *values])
            combo.setCurrentText(current if current in values else "(any)")
            combo.blockSignals(False)
        self._refill()

    def visible_items(self) -> list[QueueItem]:
        wanted = [
            (c.currentText(), attr)
            for c, attr in ((self.reason_filter, "reason"), (self.model_filter, "model"), (self.question_filter, "qid"))
        ]
        return [
            i
            for i in self.items
            if all(
                text in ("", "(any)") or str(getattr(i, attr).value if attr == "reason" else getattr(i, attr)) == text
                for text, attr in wanted
            )
        ]

    def _refill(self) -> None:
        shown = self.visible_items()
        self.table.setRowCount(len(shown))
        for row, item in enumerate(shown):
            sample = "" if item.sample_index < 0 else str(item.sample_index + 1)
            for column, value in enumerate(
                (item.reason.value, item.qid, item.model, sample, "yes" if item.settled else "")
            ):
                self.table.setItem(row, column, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
        if shown:
            self.select(0)

    def select(self, row: int) -> None:
        """Select a row and show it (also when it was already the current row)."""
        self.table.selectRow(row)
        self._selected(row)

    def current(self) -> QueueItem | None:
        row = self.table.currentRow()
        shown = self.visible_items()
        return shown[row] if 0 <= row < len(shown) else None

    def _selected(self, row: int) -> None:
        item = self.current()
        if item is not None:
            self.item_selected.emit(item)

    def show_item(self, item: QueueItem, html: str, history: list[HistoryStep]) -> None:
        results = self.results
        self.detail.setHtml(html)
        question = next((q for q in results.questions if q.id == item.qid), None) if results else None
        sample = None
        if results is not None and item.target == "judgement":
            sample = next((s for s in results.samples if s.judgement_key == item.key), None)
        self.form.setVisible(item.target == "judgement")
        self.pair_label.setVisible(item.target == "pair")
        self.override_button.setEnabled(item.target in ("judgement", "pair"))
        if question is not None and item.target == "judgement":
            self.form.load(question, bool(sample.gate_passed) if sample else False, sample.awards if sample else {})
        self.history.clear()
        for step in history:
            entry = f"#{step.id} {step.at} {step.actor}: {step.action} — {step.detail}" + (
                f" ({step.reason})" if step.reason else ""
            )
            self.history.addItem(entry)
            self.history.item(self.history.count() - 1).setData(Qt.ItemDataRole.UserRole, step.id)

    def _emit(self, signal: Signal) -> None:
        item = self.current()
        if item is not None:
            signal.emit(item)

    def _revert(self) -> None:
        item, selected = self.current(), self.history.currentItem()
        if item is not None and selected is not None:
            self.revert_requested.emit(item, int(selected.data(Qt.ItemDataRole.UserRole)))


def item_html(results: RunResults, item: QueueItem, marking: str, sources: str) -> str:
    """Marking block, the answer (raw and cleaned), the judge's verdicts and reasons, the cited sources."""
    parts = [f"<h3>{escape(item.reason.value)}: {escape(item.qid)} · {escape(item.model)}</h3>"]
    parts.append(f"<pre style='white-space: pre-wrap'>{escape(marking)}</pre>")
    if item.target == "judgement":
        sample = next((s for s in results.samples if s.judgement_key == item.key), None)
        if sample is not None:
            verdicts = "".join(
                f"<li><b>{escape(c)}</b>: {v} — {escape(sample.reasons.get(c, ''))}</li>"
                for c, v in sample.awards.items()
            )
            parts.append(f"<h4>Answer (cleaned)</h4><p>{escape(sample.answer_clean)}</p>")
            if sample.answer_raw != sample.answer_clean:
                parts.append(f"<h4>Raw output</h4><pre style='white-space: pre-wrap'>{escape(sample.answer_raw)}</pre>")
            judged = (
                "unscored: " + escape(sample.unscored_reason)
                if sample.total is None
                else f"total {sample.total:g}, gate {'passed' if sample.gate_passed else 'failed'}"
            )
            parts.append(f"<h4>Judge</h4><p>{judged}</p><ul>{verdicts}</ul>")
    elif item.target == "pair":
        pair = next((p for p in results.pairs if p.key == item.key), None)
        if pair is not None:
            answers = {
                s.model: s.answer_clean
                for s in results.samples
                if s.qid == item.qid and s.sample_index == item.sample_index
            }
            parts.append(f"<h4>A: {escape(pair.finetune)}</h4><p>{escape(answers.get(pair.finetune, ''))}</p>")
            parts.append(f"<h4>B: {escape(pair.base)}</h4><p>{escape(answers.get(pair.base, ''))}</p>")
            parts.append(
                f"<p>Judge: <b>{escape(pair.judge_label or pair.label or '')}</b>; first order: {escape(pair.reason_normal)}; "
                f"swapped: {escape(pair.reason_swapped)}</p>"
            )
    if sources:
        parts.append(f"<h4>Cited sources</h4>{sources}")
    return "".join(parts)
