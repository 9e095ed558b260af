"""The adjudication queue: what needs an expert's decision, and the place to make it.

The detail leads with why the item is queued (the judge's note, the gate's reason), the
answer, the judge's verdict and the decision in force; the marking block and the cited
sources follow. The form starts from the decision in force. Confirm and Override act
only on an item whose detail has been read (and so whose decision in force is known);
the controller refuses one that changed since.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QModelIndex, Qt, Signal, SignalInstance
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gtreview.app.adjudicate import ItemView, Marks
from gtreview.app.adjudication import HistoryStep, QueueItem
from gtreview.core.rubric import Question
from gtreview.results.loader import RunResults
from gtreview.ui.models.queue_table import ANY, ITEM_ROLE, QueueFilterProxy, QueueTableModel
from gtreview.ui.ops import notify
from gtreview.ui.widgets.empty_hint import EmptyHint
from gtreview.ui.widgets.grading_form import GradingForm
from gtreview.ui.widgets.html import HtmlBrowser, style
from gtreview.ui.widgets.tables import NoTypeAheadTable

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
        self.shown: ItemView | None = None  # the item whose detail is on screen
        self._quiet = False  # selecting without asking for the detail (the queue read again)
        self.model = QueueTableModel()
        self.proxy = QueueFilterProxy()
        self.proxy.setSourceModel(self.model)
        self.reason_filter, self.model_filter, self.question_filter = QComboBox(), QComboBox(), QComboBox()
        for combo in (self.reason_filter, self.model_filter, self.question_filter):
            combo.currentIndexChanged.connect(self._refilter)
        self.table = NoTypeAheadTable()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setResizeContentsPrecision(50)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _previous: self._selected())
        self.table.clicked.connect(self._clicked)
        self.empty_hint = EmptyHint(self.table, self._why_empty)
        self.detail = HtmlBrowser()
        self.form = GradingForm()
        self.pair_label = QComboBox()
        self.pair_label.addItems(PAIR_LABELS)
        self.confirm_button = QPushButton("&Confirm the judge")
        self.override_button = QPushButton("&Override")
        self.revert_button = QPushButton("Re&vert selected step")
        self.next_button = QPushButton("Next &unsettled")
        self.history = QListWidget()
        self.history.setWordWrap(True)
        self._enable(False)
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
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

    # -- the queue -----------------------------------------------------------------
    def show_queue(self, results: RunResults, items: list[QueueItem], *, announce: bool = True) -> None:
        """Show a queue; the same item stays selected when it is still shown (else the first).
        ``announce`` asks for the selected item's detail again (the queue was read again:
        its decisions may have changed elsewhere)."""
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
                self._select_quietly(0)
            else:
                self.clear_item()
        self.empty_hint.update()
        if announce:
            self._selected()

    def _apply_filters(self) -> None:
        self.proxy.set_filters(
            reason=self.reason_filter.currentText(),
            model=self.model_filter.currentText(),
            qid=self.question_filter.currentText(),
        )
        self.empty_hint.update()

    def _refilter(self) -> None:
        kept = self.current()
        self._apply_filters()
        if (kept is None or not self.select_key(kept.key, announce=False)) and self.proxy.rowCount():
            self.select(0)

    def _why_empty(self) -> str:
        if self.results is None:
            return "Open a pass's results (Results page) to see what in it needs an expert's decision."
        queued = self.model.rowCount()
        if queued:
            return f"No item matches the filters ({queued} in the queue): set them to {ANY} to see all."
        return (
            "Nothing in this pass needs an expert's decision: the judge flagged no answer, every "
            "answer was scored, no pairwise verdict is unknown or flipped with the order, and no "
            "calibration response was missed."
        )

    def visible_items(self) -> list[QueueItem]:
        return [self.proxy.index(row, 0).data(ITEM_ROLE) for row in range(self.proxy.rowCount())]

    def row_count(self) -> int:
        return self.proxy.rowCount()

    def text(self, row: int, column: int) -> str:
        return str(self.proxy.index(row, column).data() or "")

    def select(self, row: int) -> None:
        """Select a row and show it (also when it was already the current row)."""
        if self.table.currentIndex().row() == row:
            self._selected()
        else:
            self.table.selectRow(row)  # the current row changes: its detail is asked for

    def _select_quietly(self, row: int) -> None:
        self._quiet = True
        try:
            self.table.selectRow(row)
        finally:
            self._quiet = False

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
                    self._select_quietly(row)
                if announce:
                    self._selected()
                return True
        return False

    def select_next_unsettled(self) -> bool:
        shown = self.visible_items()
        if not shown:
            notify(self, "The queue shows no items: nothing is flagged (or the filters hide it).", "info")
            return False
        start = self.table.currentIndex().row()
        for offset in range(1, len(shown) + 1):
            row = (start + offset) % len(shown)
            if not shown[row].settled:
                self.select(row)
                return True
        notify(self, "Every item shown is settled.", "info")
        return False

    def current(self) -> QueueItem | None:
        index = self.table.currentIndex()
        item = index.siblingAtColumn(0).data(ITEM_ROLE) if index.isValid() else None
        return item if isinstance(item, QueueItem) else None

    def _selected(self) -> None:
        item = self.current()
        if item is not None and not self._quiet:
            if self.shown is None or self.shown.item.key != item.key:
                self._enable(False)  # until its detail (and the decision in force) is read
            self.item_selected.emit(item)

    def _clicked(self, index: QModelIndex) -> None:
        """A click on the item already shown reads it again (it may have changed elsewhere)."""
        item = index.siblingAtColumn(0).data(ITEM_ROLE)
        if isinstance(item, QueueItem) and self.shown is not None and self.shown.item.key == item.key:
            self._selected()

    # -- one item ------------------------------------------------------------------
    def show_item(self, view: ItemView, html: str, question: Question | None) -> None:
        """The detail of the current item as read now: the form starts from the decision in force."""
        item = view.item
        self.shown = view
        self.model.update_item(item)  # settled or not, as it is now
        self.detail.setHtml(html)
        self.form.setVisible(item.target == "judgement")
        self.pair_label.setVisible(item.target == "pair")
        if question is not None and item.target == "judgement":
            self.form.load(question, bool(view.form.gate_passed), view.form.awards, view.form_origin)
        self.show_history(view.history)
        self._enable(True)

    def clear_item(self) -> None:
        self.shown = None
        self.detail.setHtml("")
        self.history.clear()
        self._enable(False)

    def _enable(self, ready: bool) -> None:
        """Decisions only on an item whose detail is shown (and is the current one)."""
        current = self.current()
        shown = self.shown
        ready = ready and shown is not None and current is not None and current.key == shown.item.key
        item = shown.item if ready and shown is not None else None
        self.confirm_button.setEnabled(item is not None)
        self.override_button.setEnabled(item is not None and item.target in ("judgement", "pair"))
        self.revert_button.setEnabled(item is not None)

    def set_deciding(self, deciding: bool) -> None:
        """While a decision is recorded the buttons wait; then the item is read again."""
        self._enable(not deciding and self.shown is not None)

    def show_history(self, history: list[HistoryStep]) -> None:
        self.history.clear()
        for step in history:
            self.history.addItem(step_text(step))
            self.history.item(self.history.count() - 1).setData(Qt.ItemDataRole.UserRole, step.id)

    def _emit(self, signal: SignalInstance) -> None:
        """Ask for a decision on the item shown, as it was read (never on one not yet shown)."""
        item, shown = self.current(), self.shown
        if item is not None and shown is not None and shown.item.key == item.key:
            signal.emit(shown.item)
        elif item is not None:
            notify(self, f"{item.qid}: wait until the item is shown, then decide.", "warning")

    def _revert(self) -> None:
        item, selected = self.current(), self.history.currentItem()
        if item is not None and selected is not None:
            self.revert_requested.emit(item, int(selected.data(Qt.ItemDataRole.UserRole)))


def step_text(step: HistoryStep) -> str:
    """One history row in words: number, when, who, what, why."""
    when = step.at.replace("T", " ")[:16]
    return f"#{step.id} {when} {step.actor}: {step.action}, {step.detail}" + (
        f" — “{step.reason}”" if step.reason else ""
    )


def _marks(marks: Marks) -> str:
    gate = "" if marks.gate_passed is None else f"gate {'passed' if marks.gate_passed else 'failed'}"
    awards = ", ".join(f"{c} {v}" for c, v in marks.awards.items())
    total = "" if marks.total is None else f"total {marks.total:g}"
    return " · ".join(part for part in (gate, awards, total) if part)


def item_html(results: RunResults, view: ItemView, marking: str, sources: str) -> str:
    """Why it is queued, the answer, the judge's verdict and the decision in force first;
    then the marking block and the cited sources."""
    item = view.item
    parts = [style(), f"<h2>{escape(view.label)}</h2><p class='meta'>{escape(item.reason.value)}</p>"]
    if view.why:
        parts.append("<div class='gate'>" + "<br>".join(f"<b>{escape(line)}</b>" for line in view.why) + "</div>")
    decision = escape(view.decision) if view.decision else "none yet: the judge's verdict stands"
    if item.target == "judgement":
        sample = next((s for s in results.every_sample() if s.judgement_key == item.key), None)
        if sample is not None:
            parts.append(f"<h3>Answer</h3><p>{escape(sample.answer_clean)}</p>")
            if sample.answer_raw != sample.answer_clean:
                parts.append(f"<h3>Raw output</h3><pre style='white-space: pre-wrap'>{escape(sample.answer_raw)}</pre>")
            judged = (
                "unscored: " + escape(sample.unscored_reason)
                if view.judge.total is None and sample.unscored_reason
                else escape(_marks(view.judge))
            )
            reasons = "".join(
                f"<tr><td><b>{escape(c)}</b></td><td>{v}</td><td>{escape(sample.reasons.get(c, ''))}</td></tr>"
                for c, v in view.judge.awards.items()
            )
            parts.append(f"<h3>Judge</h3><p>{judged}</p>")
            if reasons:
                parts.append(
                    f"<table><tr><th>Component</th><th>Awarded</th><th>Judge's reason</th></tr>{reasons}</table>"
                )
    elif item.target == "pair":
        pair = next((p for p in results.every_pair() if p.key == item.key), None)
        if pair is not None:
            answers = {
                s.model: s.answer_clean
                for s in results.every_sample()
                if s.qid == item.qid and s.sample_index == item.sample_index
            }
            parts.append(f"<h3>A: {escape(pair.finetune)}</h3><p>{escape(answers.get(pair.finetune, ''))}</p>")
            parts.append(f"<h3>B: {escape(pair.base)}</h3><p>{escape(answers.get(pair.base, ''))}</p>")
            parts.append(
                f"<h3>Judge</h3><p><b>{escape(pair.judge_label or pair.label or '')}</b>; "
                f"first order: {escape(pair.reason_normal)}; swapped: {escape(pair.reason_swapped)}</p>"
            )
    parts.append(f"<h3>Decision in force</h3><p>{decision}</p>")
    parts.append(f"<h3>Marking block</h3><pre style='white-space: pre-wrap'>{escape(marking)}</pre>")
    if sources:
        parts.append(f"<h3>Cited sources</h3>{sources}")
    return "".join(parts)
