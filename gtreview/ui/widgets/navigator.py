"""The navigator: corpus documents and benchmark sets of the open project."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from gtreview.app.workflow import SignoffInfo
from gtreview.store.sets_repo import SetSummary
from gtreview.store.tables import Document

SET_ROLE = Qt.ItemDataRole.UserRole + 1
RUN_ROLE = Qt.ItemDataRole.UserRole + 2


class Navigator(QTreeWidget):
    set_selected = Signal(int)
    runs_selected = Signal()
    corpus_selected = Signal()
    run_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabel("Project")
        self.corpus_item = QTreeWidgetItem(self, ["Corpus"])
        self.sets_item = QTreeWidgetItem(self, ["Benchmark sets"])
        self.runs_item = QTreeWidgetItem(self, ["Runs"])
        self.releases_item = QTreeWidgetItem(self, ["Releases"])
        self.itemClicked.connect(self._clicked)

    def populate(
        self,
        documents: list[Document],
        sets: list[SetSummary],
        signoffs: dict[int, list[SignoffInfo]] | None = None,
        runs: list[tuple[int, str]] | None = None,
    ) -> None:
        for parent in (self.corpus_item, self.sets_item, self.releases_item, self.runs_item):
            parent.takeChildren()
        for run_id, name in runs or []:
            QTreeWidgetItem(self.runs_item, [f"{run_id}: {name}"]).setData(0, RUN_ROLE, run_id)
        for document in documents:
            extent = f"{document.row_count} rows" if document.kind == "csv" else f"{document.page_count} pp."
            child = QTreeWidgetItem(self.corpus_item, [f"{document.name} ({extent})"])
            child.setToolTip(0, document.title)
        for benchmark_set in sets:
            child = QTreeWidgetItem(self.sets_item, [f"{benchmark_set.name} ({benchmark_set.question_count})"])
            child.setData(0, SET_ROLE, benchmark_set.id)
        names = {s.id: s.name for s in sets}
        for set_id, records in (signoffs or {}).items():
            for record in records:
                child = QTreeWidgetItem(
                    self.releases_item, [f"{names.get(set_id, set_id)} — sign-off #{record.number}"]
                )
                child.setToolTip(
                    0,
                    f"{record.question_count} questions, signed by {record.reviewer} on "
                    f"{record.signed_at:%Y-%m-%d %H:%M}; sha256 {record.content_hash}",
                )
        self.corpus_item.setText(0, f"Corpus ({len(documents)})")
        self.sets_item.setText(0, f"Benchmark sets ({len(sets)})")
        self.expandAll()

    def select_set(self, set_id: int) -> None:
        for position in range(self.sets_item.childCount()):
            child = self.sets_item.child(position)
            if child is not None and child.data(0, SET_ROLE) == set_id:
                self.setCurrentItem(child)

    def _clicked(self, item: QTreeWidgetItem) -> None:
        if item is self.runs_item:
            self.runs_selected.emit()
            return
        if item is self.corpus_item:
            self.corpus_selected.emit()
            return
        run_id = item.data(0, RUN_ROLE)
        if isinstance(run_id, int):
            self.run_selected.emit(run_id)
            return
        set_id = item.data(0, SET_ROLE)
        if isinstance(set_id, int):
            self.set_selected.emit(set_id)
