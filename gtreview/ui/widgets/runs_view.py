"""The Runs view: the project's passes, and the one in progress with its cancel button."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gtreview.runs.execute import PassEvent
from gtreview.store.runs_repo import RunSummary


class RunsView(QWidget):
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, 7)
        self.table.setHorizontalHeaderLabels(["Run", "Name", "Source", "Status", "Answers", "Judgements", "Pairs"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.phase = QLabel("No pass running.")
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel pass")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        row = QHBoxLayout()
        row.addWidget(self.phase, 1)
        row.addWidget(self.progress, 2)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.table)

    def show_runs(self, runs: list[RunSummary]) -> None:
        self.table.setRowCount(len(runs))
        for position, run in enumerate(reversed(runs)):
            values = (run.id, run.name, run.source, run.status, run.generations, run.judgements, run.pairs)
            for column, value in enumerate(values):
                self.table.setItem(position, column, QTableWidgetItem(str(value)))
        self.table.resizeColumnsToContents()

    def started(self, name: str) -> None:
        self.phase.setText(f"{name}: starting…")
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.cancel_button.setEnabled(True)

    def show_event(self, event: PassEvent) -> None:
        self.progress.setRange(0, max(1, event.total))
        self.progress.setValue(event.done)
        self.phase.setText(f"{event.phase}: {event.describe()}")

    def finished(self, message: str) -> None:
        self.phase.setText(message)
        self.progress.setVisible(False)
        self.cancel_button.setEnabled(False)
