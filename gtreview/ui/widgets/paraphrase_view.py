"""The results view's Paraphrase tab: the drop under paraphrase per model and component
kind, and per reworded question, in the words and rows the PDF report prints
(``gtreview.results.paraphrase_text``)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from gtreview.results.paraphrase import ParaphraseReport
from gtreview.results.paraphrase_text import (
    NOT_MEASURED,
    PARAPHRASE_HEADER,
    PER_QUESTION_TITLE,
    paraphrase_question_header,
    paraphrase_question_rows,
    paraphrase_rows,
    paraphrase_summary,
)


def _table(columns: int) -> QTableWidget:
    table = QTableWidget(0, columns)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _fill(table: QTableWidget, header: list[str], rows: list[list[str]]) -> None:
    table.setColumnCount(len(header))
    table.setHorizontalHeaderLabels(header)
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(value))
    table.resizeColumnsToContents()
    table.setVisible(bool(rows))


class ParaphraseView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(NOT_MEASURED)
        self.summary.setWordWrap(True)
        self.readings = QLabel()
        self.readings.setWordWrap(True)
        self.table = _table(len(PARAPHRASE_HEADER))
        self.per_question_title = QLabel(PER_QUESTION_TITLE)
        self.per_question = _table(3)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.readings)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.per_question_title)
        layout.addWidget(self.per_question, 1)

    def show_report(self, report: ParaphraseReport | None) -> None:
        measured = report is not None and bool(report.n_paraphrases)
        self.summary.setText(paraphrase_summary(report) if report is not None else NOT_MEASURED)
        self.readings.setText("\n".join(report.readings) if report is not None and measured else "")
        self.readings.setVisible(measured)
        _fill(self.table, PARAPHRASE_HEADER, paraphrase_rows(report) if report is not None and measured else [])
        _fill(
            self.per_question,
            paraphrase_question_header(report) if report is not None else [],
            paraphrase_question_rows(report) if report is not None and measured else [],
        )
        self.per_question_title.setVisible(measured)
