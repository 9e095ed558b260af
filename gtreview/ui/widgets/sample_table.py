"""The samples of a pass (after inspect's sample list): filter by text, model and status,
move with the keyboard; the current sample's answer, verdicts and reasons open beside it."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from gtreview.results.loader import RunResults, SampleResult, SampleStatus
from gtreview.ui.models.sample_table import SAMPLE_ROLE, SampleFilter, SampleTableModel
from gtreview.ui.widgets.labels import ElidedLabel
from gtreview.ui.widgets.tables import NoTypeAheadTable


class SampleTable(QWidget):
    sample_chosen = Signal(object)  # SampleResult

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = SampleTableModel(self)
        self.proxy = SampleFilter(self)
        self.proxy.setSourceModel(self.model)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter samples: question, title, model or answer text")
        self.search.setClearButtonEnabled(True)
        self.model_choice = QComboBox()
        self.status_choice = QComboBox()
        self.status_choice.addItem("Every status", "")
        for status in SampleStatus:
            self.status_choice.addItem(status.value, status.value)
        self.count = ElidedLabel()
        self.view = NoTypeAheadTable()
        self.view.setModel(self.proxy)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the loader's order until a header is clicked
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setTabKeyNavigation(False)

        filters = QHBoxLayout()
        filters.addWidget(self.search, 3)
        filters.addWidget(self.model_choice, 1)
        filters.addWidget(self.status_choice, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(filters)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.count)
        self.setFocusProxy(self.view)

        self.search.textChanged.connect(lambda _text: self._filter())
        self.model_choice.activated.connect(lambda _index: self._filter())
        self.status_choice.activated.connect(lambda _index: self._filter())
        self.view.selectionModel().currentRowChanged.connect(lambda current, _old: self._current(current))
        self.view.activated.connect(self._current)  # Enter or a double click opens it again
        self.search.returnPressed.connect(self.view.setFocus)

    def set_results(self, results: RunResults | None) -> None:
        """Show ``results``' samples, keeping the current one (by model, question and sample) when it is still there."""
        kept = self.current_sample()
        key = None if kept is None else (kept.model, kept.qid, kept.sample_index)
        chosen_model = str(self.model_choice.currentData() or "")
        self.model.set_results(results)
        self.model_choice.clear()
        self.model_choice.addItem("Every model", "")
        for label in results.models if results is not None else []:
            self.model_choice.addItem(label, label)
        self.model_choice.setCurrentIndex(max(0, self.model_choice.findData(chosen_model)))
        self._filter()
        if key is not None:
            self.select(*key)

    def _filter(self) -> None:
        status = str(self.status_choice.currentData() or "")
        self.proxy.set_filter(
            self.search.text(), str(self.model_choice.currentData() or ""), SampleStatus(status) if status else None
        )
        self.count.setText(f"{self.proxy.rowCount()} of {self.model.rowCount()} samples")

    def current_sample(self) -> SampleResult | None:
        index = self.view.currentIndex()
        sample = index.data(SAMPLE_ROLE) if index.isValid() else None
        return sample if isinstance(sample, SampleResult) else None

    def select(self, model: str, qid: str, sample_index: int) -> bool:
        """Make that sample current (it is opened); False when the filter hides it or it is not there."""
        for row in range(self.proxy.rowCount()):
            sample = self.proxy.index(row, 0).data(SAMPLE_ROLE)
            if isinstance(sample, SampleResult) and (sample.model, sample.qid, sample.sample_index) == (
                model,
                qid,
                sample_index,
            ):
                index = self.proxy.index(row, 0)
                self.view.selectionModel().setCurrentIndex(
                    index,
                    QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
                )
                self.view.scrollTo(index)
                return True
        return False

    def _current(self, index: QModelIndex) -> None:
        sample = index.data(SAMPLE_ROLE) if index.isValid() else None
        if isinstance(sample, SampleResult):
            self.sample_chosen.emit(sample)
