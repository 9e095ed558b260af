"""The corpus view: the exploration report, the synonym table the expert confirms, and
the numeric conflicts between sources."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QTabWidget, QTextBrowser, QVBoxLayout, QWidget

from gtreview.app.corpus_review import inventory_to_markdown
from gtreview.core.wording import plural
from gtreview.corpus.inventory import CorpusInventory
from gtreview.ui.widgets.labels import never_widens

NO_CORPUS = "No documents yet: File > Import corpus… adds reports (.pdf, .txt, .md) and tables (.csv)."


class CorpusView(QWidget):
    synonym_toggled = Signal(str, list, bool)  # canonical, variant forms, confirmed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.inventory: CorpusInventory | None = None
        self.summary = never_widens(QLabel("Select Corpus in the navigator to explore it."))
        self.report = QTextBrowser()
        self.synonyms = QTableWidget(0, 4)
        self.synonyms.setHorizontalHeaderLabels(["Confirmed", "Canonical", "Forms (documents)", "How found"])
        self.synonyms.horizontalHeader().setStretchLastSection(True)
        self.synonyms.itemChanged.connect(self._toggled)
        self.conflicts = QTableWidget(0, 4)
        self.conflicts.setHorizontalHeaderLabels(["Subject", "Measure", "Values (where)", "Confidence"])
        self.conflicts.horizontalHeader().setStretchLastSection(True)
        self.conflicts.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        tabs = QTabWidget()
        tabs.addTab(self.report, "Report")
        tabs.addTab(self.synonyms, "Synonyms")
        tabs.addTab(self.conflicts, "Conflicts")
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(tabs)

    def show_empty(self) -> None:
        """A project without documents: what to do next."""
        self.inventory = None
        self.summary.setText(NO_CORPUS)
        self.report.setMarkdown(
            "## No corpus yet\n\nChoose **File > Import corpus…** and pick the folder of source documents "
            "(reports as .pdf, .txt or .md; tables as .csv). Every question's evidence is then shown and "
            "checked beside its source, and the exploration report (duplicates, variant names, numeric "
            "conflicts, thin areas) appears here."
        )
        self.synonyms.setRowCount(0)
        self.conflicts.setRowCount(0)

    def show_inventory(self, inventory: CorpusInventory) -> None:
        self.inventory = inventory
        self.summary.setText(
            f"{plural(inventory.documents, 'document')} · {plural(len(inventory.duplicates), 'duplicated passage')} · "
            f"{plural(len(inventory.variants), 'variant family')} · {plural(len(inventory.conflicts), 'numeric conflict')} · "
            f"{plural(len(inventory.thin_areas), 'thin area')}"
        )
        self.report.setMarkdown(inventory_to_markdown(inventory))
        self.synonyms.blockSignals(True)
        self.synonyms.setRowCount(len(inventory.variants))
        for row, cluster in enumerate(inventory.variants):
            check = QTableWidgetItem()
            check.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            check.setCheckState(Qt.CheckState.Checked if cluster.confirmed else Qt.CheckState.Unchecked)
            forms = "; ".join(f"{f.form} ({len(f.documents)})" for f in cluster.forms)
            for column, item in enumerate(
                (
                    check,
                    QTableWidgetItem(cluster.canonical),
                    QTableWidgetItem(forms),
                    QTableWidgetItem(f"{cluster.kind}: {cluster.method}"),
                )
            ):
                if column:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.synonyms.setItem(row, column, item)
        self.synonyms.resizeColumnsToContents()
        self.synonyms.blockSignals(False)
        self.conflicts.setRowCount(len(inventory.conflicts))
        for row, conflict in enumerate(inventory.conflicts):
            values = "; ".join(f"{v.value:g} {conflict.unit} ({v.location.label()})" for v in conflict.values)
            for column, value in enumerate((conflict.subject, conflict.measure, values, f"{conflict.confidence:.2f}")):
                self.conflicts.setItem(row, column, QTableWidgetItem(value))
        self.conflicts.resizeColumnsToContents()

    def _toggled(self, item: QTableWidgetItem) -> None:
        if self.inventory is None or item.column() != 0:
            return
        cluster = self.inventory.variants[item.row()]
        confirmed = item.checkState() == Qt.CheckState.Checked
        cluster.confirmed = confirmed
        self.synonym_toggled.emit(cluster.canonical, [f.form for f in cluster.forms], confirmed)
