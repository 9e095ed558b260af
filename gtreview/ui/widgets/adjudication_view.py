"""The adjudication queue: what needs an expert's decision, and the place to make it."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gtreview.app.adjudication import HistoryStep, QueueItem
from gtreview.core.rubric import Question
from gtreview.results.loader import RunResults
from gtreview.ui.models.queue_table import ANY, ITEM_ROLE, QueueFilterProxy, QueueTableModel
from gtreview.ui.widgets.grading_form import GradingForm

PAIR_LABELS = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]


class AdjudicationView(QWidget):
    """The queue (a table model with filters) and the decision form. It only shows what it
    is given and says what the expert asked for; the controller records it."""

    confirm_requested = Signal(object)  # QueueItem
    override_requested = Signal(object)  # QueueItem
    revert_requested = Signal(object, int)  # QueueItem, decision id
    item_selected = Signal(object)  # QueueItem

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: RunResults | None = None
        self.model = QueueTableModel()
        self.proxy = QueueFilterProxy()
        self.proxy.setSourceModel(self.model)
        self.reason_filter, self.model_filter, self.question_filter = QComboBox(), QComboBox(), QComboBox()
        for combo in (self.reason_filter, self.model_filter, self.question_filter):
            combo.currentIndexChanged.connect(self._refilter)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setResizeContentsPrecision(50)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _previous: self._selected())
        self.detail = QTextBrowser()
        self.form = GradingForm()
        self.pair_label = QComboBox()
        self.pair_label.addItems(PAIR_LABELS)
        self.confirm_button = QPushButton("&Confirm the judge")
        self.override_button = QPushButton("&Override")
        self.revert_button = QPushButton("Re&vert selected step")
        self.next_button = QPushButton("Next &unsettled")
        self.history = QListWidget()
        self.status = QLabel()
        self.confirm_button.clicked.connect(lambda: self._emit(self.confirm_requested))
        self.override_button.clicked.connect(lambda: self._emit(self.override_requested))
        self.revert_button.clicked.connect(self._revert)
        self.next_button.clicked.connect(self.select_next_unsettled)
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
        for button in (self.confirm_button, self.override_button, self.revert_button, self.next_button):
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

    # -- the queue -----------------------------------------------------------------
    def show_queue(self, results: RunResults, items: list[QueueItem]) -> None:
        """Show a queue; the same item stays selected when it is still shown (else the first)."""
        kept = self.current()
        same_run = self.results is not None and self.results.run_id == results.run_id
        self.results = results
        refilter = not same_run
        for combo, values in (
            (self.reason_filter, sorted({i.reason.value for i in items})),
            (self.model_filter, sorted({i.model for i in items})),
            (self.question_filter, sorted({i.qid for i in items})),
        ):
            if [combo.itemText(n) for n in range(1, combo.count())] == values:
                continue
            refilter = True
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems([ANY, *values])
            combo.setCurrentText(current if current in values else ANY)
            combo.blockSignals(False)
        if refilter:
            self._apply_filters()
        self.model.set_items(items)
        if self.table.columnWidth(0) <= 0 or not same_run:
            self.table.resizeColumnsToContents()
        if kept is None or not same_run or not self.select_key(kept.key, announce=False):
            if self.proxy.rowCount():
                self.select(0)

    def _apply_filters(self) -> None:
        self.proxy.set_filters(
            reason=self.reason_filter.currentText(),
            model=self.model_filter.currentText(),
            qid=self.question_filter.currentText(),
        )

    def _refilter(self) -> None:
        kept = self.current()
        self._apply_filters()
        if (kept is None or not self.select_key(kept.key, announce=False)) and self.proxy.rowCount():
            self.select(0)

    def visible_items(self) -> list[QueueItem]:
        return [self.proxy.index(row, 0).data(ITEM_ROLE) for row in range(self.proxy.rowCount())]

    def row_count(self) -> int:
        return self.proxy.rowCount()

    def text(self, row: int, column: int) -> str:
        return str(self.proxy.index(row, column).data() or "")

    def select(self, row: int) -> None:
        """Select a row and show it (also when it was already the current row)."""
        self.table.selectRow(row)
        self._selected()

    def select_key(self, key: str, *, announce: bool = True) -> bool:
        """Select the visible item ``key``; ``announce`` asks for its details again."""
        current = self.current()
        if current is not None and current.key == key:
            if announce:
                self._selected()
            return True
        for row in range(self.proxy.rowCount()):
            if self.proxy.index(row, 0).data(ITEM_ROLE).key == key:
                if self.table.currentIndex().row() != row:
                    self.table.selectionModel().blockSignals(True)
                    self.table.selectRow(row)
                    self.table.selectionModel().blockSignals(False)
                if announce:
                    self._selected()
                return True
        return False

    def select_next_unsettled(self) -> bool:
        shown = self.visible_items()
        start = self.table.currentIndex().row()
        for offset in range(1, len(shown) + 1):
            row = (start + offset) % len(shown)
            if not shown[row].settled:
                self.select(row)
                return True
        self.status.setText("Every item shown is settled.")
        return False

    def current(self) -> QueueItem | None:
        index = self.table.currentIndex()
        item = index.siblingAtColumn(0).data(ITEM_ROLE) if index.isValid() else None
        return item if isinstance(item, QueueItem) else None

    def _selected(self) -> None:
        item = self.current()
        if item is not None:
            self.item_selected.emit(item)

    # -- one item ------------------------------------------------------------------
    def show_item(
        self,
        item: QueueItem,
        html: str,
        history: list[HistoryStep],
        question: Question | None,
        gate: bool,
        awards: dict[str, int],
    ) -> None:
        self.detail.setHtml(html)
        self.form.setVisible(item.target == "judgement")
        self.pair_label.setVisible(item.target == "pair")
        self.override_button.setEnabled(item.target in ("judgement", "pair"))
        if question is not None and item.target == "judgement":
            self.form.load(question, gate, awards)
        self.show_history(history)

    def show_history(self, history: list[HistoryStep]) -> None:
        self.history.clear()
        for step in history:
            entry = f"#{step.id} {step.at} {step.actor}: {step.action} — {step.detail}" + (
                f" ({step.reason})" if step.reason else ""
            )
            self.history.addItem(entry)
            self.history.item(self.history.count() - 1).setData(Qt.ItemDataRole.UserRole, step.id)

    def _emit(self, signal: SignalInstance) -> None:
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
