"""The question list with its search box and filters."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from gtreview.app.review import QuestionRow
from gtreview.core.review_flow import ReviewStatus
from gtreview.ui.models.question_table import ROW_ROLE, QuestionFilterProxy, QuestionTableModel
from gtreview.ui.widgets.empty_hint import EmptyHint
from gtreview.ui.widgets.tables import NoTypeAheadTable


class SearchBox(QLineEdit):
    """The search field: Escape clears it, and Down (or Enter) goes on to the questions it
    found, so a search never needs the mouse."""

    to_results = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_Escape and self.text():
            self.clear()
            return
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers():
            self.to_results.emit()
            return
        super().keyPressEvent(event)


class QuestionList(QWidget):
    question_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = QuestionTableModel()
        self.proxy = QuestionFilterProxy()
        self.proxy.setSourceModel(self.model)

        self.search = SearchBox(placeholderText="Search the questions, answers and rubrics…", clearButtonEnabled=True)
        self.status = QComboBox()
        self.status.addItem("Any status", "")
        for status in ReviewStatus:
            self.status.addItem(status.value.replace("_", " "), status.value)
        self.section = QComboBox()
        self.difficulty = QComboBox()
        self.findings_only = QCheckBox("Has findings")
        for combo in (self.status, self.section, self.difficulty):
            combo.currentIndexChanged.connect(self._apply_filters)
        self.search.textChanged.connect(self._apply_filters)
        self.search.to_results.connect(self._focus_results)
        self.findings_only.toggled.connect(self._apply_filters)

        self.table = NoTypeAheadTable()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # set order until a header is clicked
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self._given_rows = False  # no rows given yet: the set is still being read
        self.empty_hint = EmptyHint(self.table, self._why_empty)
        # Size columns from the first rows only: measuring thousands of rows costs more
        # than opening them.
        self.table.horizontalHeader().setResizeContentsPrecision(20)
        self._sized_for: object = None
        self.table.selectionModel().currentRowChanged.connect(self._emit_selection)

        filters = QHBoxLayout()
        for widget in (self.status, self.section, self.difficulty, self.findings_only):
            filters.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addLayout(filters)
        layout.addWidget(self.table)

    def set_rows(self, rows: list[QuestionRow], *, select_first: bool = True, key: object = None) -> None:
        """Show ``rows``; the columns are sized to them when ``key`` (the set) differs from
        the last one sized for: a reload of the same set keeps the widths (and the user's)."""
        self._given_rows = True
        self.model.set_rows(rows)
        self._fill_choices(self.section, "Any section", sorted({r.section for r in rows if r.section}))
        difficulties = {
            r.difficulty: r.difficulty_rank for r in {r.difficulty: r for r in rows if r.difficulty}.values()
        }
        self._fill_choices(self.difficulty, "Any difficulty", sorted(difficulties, key=lambda d: (difficulties[d], d)))
        if key is None or key != self._sized_for:
            self.table.resizeColumnsToContents()
            self._sized_for = key
        if rows and select_first:
            self.table.selectRow(0)
        self.empty_hint.update()  # rows given (an update in place sends no reset)

    def current_qid(self) -> str | None:
        index = self.table.currentIndex()
        row = self.proxy.data(index, ROW_ROLE) if index.isValid() else None
        return row.qid if isinstance(row, QuestionRow) else None

    def select(self, qid: str) -> bool:
        """Select ``qid`` if the filters show it."""
        for position in range(self.proxy.rowCount()):
            row = self.proxy.data(self.proxy.index(position, 0), ROW_ROLE)
            if isinstance(row, QuestionRow) and row.qid == qid:
                self.table.selectRow(position)
                return True
        return False

    def step_selection(self, step: int) -> None:
        """Select the next (step 1) or previous (step -1) visible question."""
        count = self.proxy.rowCount()
        if count:
            current = self.table.currentIndex().row()
            self.table.selectRow(max(0, min(count - 1, current + step)))

    def select_next(self, wanted: Callable[[QuestionRow], bool]) -> bool:
        """Select the first visible question after the current one (wrapping) that is ``wanted``."""
        count = self.proxy.rowCount()
        start = self.table.currentIndex().row()
        for offset in range(1, count + 1):
            position = (start + offset) % count
            row = self.proxy.data(self.proxy.index(position, 0), ROW_ROLE)
            if isinstance(row, QuestionRow) and wanted(row):
                self.table.selectRow(position)
                return True
        return False

    @staticmethod
    def _fill_choices(combo: QComboBox, everything: str, values: list[str]) -> None:
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(everything, "")
        for value in values:
            combo.addItem(value, value)
        combo.setCurrentIndex(max(0, combo.findData(current)) if current else 0)  # a reload keeps the filter
        combo.blockSignals(False)

    def _apply_filters(self) -> None:
        self.proxy.set_filters(
            search=self.search.text(),
            status=self.status.currentData() or "",
            section=self.section.currentData() or "",
            difficulty=self.difficulty.currentData() or "",
            findings_only=self.findings_only.isChecked(),
        )
        self.empty_hint.update()

    def _focus_results(self) -> None:
        """Into the list, on the question shown if the search kept it, else the first found."""
        if not self.proxy.rowCount():
            return
        if not self.table.currentIndex().isValid():
            self.table.selectRow(0)
        self.table.setFocus()

    def _why_empty(self) -> str:
        held = self.model.rowCount()
        if not self._given_rows:
            return ""
        if not held:
            return "No questions here yet: File > Import rubric… brings a set in (File > Import corpus… its sources)."
        narrowed = [
            f"the search “{self.search.text()}”" if self.search.text().strip() else "",
            "the filters"
            if any(c.currentIndex() > 0 for c in (self.status, self.section, self.difficulty))
            or self.findings_only.isChecked()
            else "",
        ]
        return f"No question matches {' and '.join(n for n in narrowed if n)} ({held:,} in the set)."

    def _emit_selection(self) -> None:
        index = self.table.currentIndex()
        if index.isValid():
            row = self.proxy.data(index, ROW_ROLE)
            if isinstance(row, QuestionRow):
                self.question_selected.emit(row.qid)
