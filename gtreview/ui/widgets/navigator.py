"""The navigator: corpus documents, benchmark sets, runs and releases of the open project.

An empty branch says what to do next (import a corpus, a rubric); the Runs branch lists
a pass from the moment it starts, with its status, as the Runs view re-reads it."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from gtreview.app.results import RunSummary
from gtreview.app.review import Document, SetSummary
from gtreview.app.workflow import SignoffInfo

SET_ROLE = Qt.ItemDataRole.UserRole + 1
RUN_ROLE = Qt.ItemDataRole.UserRole + 2
IMPORT_ROLE = Qt.ItemDataRole.UserRole + 3  # "corpus" or "rubric": an empty branch's next step
RELEASE_ROLE = Qt.ItemDataRole.UserRole + 4  # a sign-off's id
NO_CORPUS = "No documents yet: File > Import corpus…"
NO_SETS = "No sets yet: File > Import rubric…"


class Navigator(QTreeWidget):
    set_selected = Signal(int)
    runs_selected = Signal()
    corpus_selected = Signal()
    run_selected = Signal(int)
    release_selected = Signal(int)  # a sign-off's id
    import_requested = Signal(str)  # "corpus" or "rubric"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabel("Project")
        self.corpus_item = QTreeWidgetItem(self, ["Corpus"])
        self.sets_item = QTreeWidgetItem(self, ["Benchmark sets"])
        self.runs_item = QTreeWidgetItem(self, ["Runs"])
        self.releases_item = QTreeWidgetItem(self, ["Releases"])
        self.itemClicked.connect(self._clicked)
        self._runs: list[tuple[int, str]] = []
        self._statuses: dict[int, str] = {}  # as the Runs view last read them

    def populate(
        self,
        documents: list[Document],
        sets: list[SetSummary],
        signoffs: dict[int, list[SignoffInfo]] | None = None,
        runs: list[tuple[int, str]] | None = None,
    ) -> None:
        for parent in (self.corpus_item, self.sets_item, self.releases_item, self.runs_item):
            parent.takeChildren()
        self._runs = [(run_id, self._run_text(name, self._statuses.get(run_id, ""))) for run_id, name in runs or []]
        for run_id, name in self._runs:
            QTreeWidgetItem(self.runs_item, [f"{run_id}: {name}"]).setData(0, RUN_ROLE, run_id)
        for parent, text, what in ((self.corpus_item, NO_CORPUS, "corpus"), (self.sets_item, NO_SETS, "rubric")):
            if not (documents if what == "corpus" else sets):
                hint = QTreeWidgetItem(parent, [text])
                hint.setData(0, IMPORT_ROLE, what)
                hint.setToolTip(0, f"{text} (or click here)")
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
                child.setData(0, RELEASE_ROLE, record.id)
                child.setToolTip(
                    0,
                    f"{record.question_count} questions, signed by {record.reviewer} on "
                    f"{record.signed_at:%Y-%m-%d %H:%M}; sha256 {record.content_hash}",
                )
        self.corpus_item.setText(0, f"Corpus ({len(documents)})")
        self.sets_item.setText(0, f"Benchmark sets ({len(sets)})")
        self.expandAll()

    def show_runs(self, runs: list[RunSummary]) -> None:
        """The Runs branch as just read: every run (a running one too) with its status."""
        self._statuses = {r.id: r.shown_status for r in runs}
        listed = [(r.id, self._run_text(r.name, r.shown_status)) for r in runs]
        if listed == self._runs:
            return
        current = self.currentItem()
        selected = current.data(0, RUN_ROLE) if current is not None else None
        self._runs = listed
        self.runs_item.takeChildren()
        for run_id, text in listed:
            child = QTreeWidgetItem(self.runs_item, [f"{run_id}: {text}"])
            child.setData(0, RUN_ROLE, run_id)
            child.setToolTip(0, f"{run_id}: {text}")
            if run_id == selected:
                self.setCurrentItem(child)
        self.runs_item.setExpanded(True)

    @staticmethod
    def _run_text(name: str, status: str) -> str:
        return f"{name} ({status})" if status and status not in ("finished", "imported") else name

    def select_set(self, set_id: int) -> None:
        for position in range(self.sets_item.childCount()):
            child = self.sets_item.child(position)
            if child is not None and child.data(0, SET_ROLE) == set_id:
                self.setCurrentItem(child)

    def show_page(self, page: str, ident: int | None = None) -> None:
        """Highlight what the window shows: ``set`` (id), ``runs``, ``run`` (id), ``corpus``,
        ``release`` (sign-off id), or nothing (another page); a run stays highlighted no
        longer than its results are shown."""
        target: QTreeWidgetItem | None = {"runs": self.runs_item, "corpus": self.corpus_item}.get(page)
        roles = {"set": (self.sets_item, SET_ROLE), "run": (self.runs_item, RUN_ROLE)}
        roles["release"] = (self.releases_item, RELEASE_ROLE)
        if page in roles and ident is not None:
            parent, role = roles[page]
            children = (parent.child(position) for position in range(parent.childCount()))
            target = next((c for c in children if c is not None and c.data(0, role) == ident), None)
        self.blockSignals(True)  # only a highlight: nothing is opened again
        if target is None:
            self.setCurrentIndex(QModelIndex())
            self.clearSelection()
        else:
            self.setCurrentItem(target)
        self.blockSignals(False)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter opens the current item, as a click does (not itemActivated: on some
        platforms a double-click would open it twice)."""
        item = self.currentItem()
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and item is not None:
            self._clicked(item)
            return
        super().keyPressEvent(event)

    def _clicked(self, item: QTreeWidgetItem) -> None:
        if item is self.runs_item:
            self.runs_selected.emit()
            return
        if item is self.corpus_item:
            self.corpus_selected.emit()
            return
        wanted = item.data(0, IMPORT_ROLE)
        if isinstance(wanted, str):
            self.import_requested.emit(wanted)
            return
        run_id = item.data(0, RUN_ROLE)
        if isinstance(run_id, int):
            self.run_selected.emit(run_id)
            return
        signoff_id = item.data(0, RELEASE_ROLE)
        if isinstance(signoff_id, int):
            self.release_selected.emit(signoff_id)
            return
        set_id = item.data(0, SET_ROLE)
        if isinstance(set_id, int):
            self.set_selected.emit(set_id)
