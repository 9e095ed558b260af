"""The results view's Paraphrase tab: the drop under paraphrase per model and component
kind, in the words and rows the PDF report prints (``gtreview.results.paraphrase_text``)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from gtreview.results.paraphrase import ParaphraseReport
from gtreview.results.paraphrase_text import NOT_MEASURED, PARAPHRASE_HEADER, paraphrase_rows, paraphrase_summary


class ParaphraseView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(NOT_MEASURED)
        self.summary.setWordWrap(True)
        self.readings = QLabel()
        self.readings.setWordWrap(True)
        self.table = QTableWidget(0, len(PARAPHRASE_HEADER))
        self.table.setHorizontalHeaderLabels(PARAPHRASE_HEADER)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.readings)
        layout.addWidget(self.table, 1)

    def show_report(self, report: ParaphraseReport | None) -> None:
        measured = report is not None and bool(report.n_paraphrases)
        rows = paraphrase_rows(report) if report is not None and measured else []
        self.summary.setText(paraphrase_summary(report) if report is not None else NOT_MEASURED)
        self.readings.setText("\n".join(report.readings) if report is not None and measured else "")
        self.readings.setVisible(measured)
        self.table.setVisible(bool(rows))
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
