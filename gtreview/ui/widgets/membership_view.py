"""The results view's Membership tab: the membership tests kept with the pass, in the
words and rows the PDF report prints (``gtreview.results.membership_text``)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from gtreview.results.loader import RunResults
from gtreview.results.membership_text import MEMBERSHIP_HEADER, membership_of, membership_rows, membership_summary

NO_MEMBERSHIP = (
    "No membership tests for this pass: gtreview probe --run ID --members GLOB... --held-out GLOB... names the "
    "documents the fine-tune was trained on and those held out, and keeps the tests with the pass."
)


class MembershipView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(NO_MEMBERSHIP)
        self.summary.setWordWrap(True)
        self.readings = QLabel()
        self.readings.setWordWrap(True)
        self.table = QTableWidget(0, len(MEMBERSHIP_HEADER))
        self.table.setHorizontalHeaderLabels(MEMBERSHIP_HEADER)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.readings)
        layout.addWidget(self.table, 1)

    def show_results(self, results: RunResults) -> None:
        report = membership_of(results)
        rows = membership_rows(report) if report is not None else []
        self.summary.setText(membership_summary(report) if report is not None else NO_MEMBERSHIP)
        self.readings.setText("\n".join(report.readings) if report is not None else "")
        self.readings.setVisible(bool(report is not None and report.readings))
        self.table.setVisible(bool(rows))
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
