"""The results view's Noise tab: judge noise apart from model noise, in the words and rows
the PDF report prints (``gtreview.results.noise_text``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gtreview.results.noise_text import NOISE_HEADER, NoiseText


class NoiseView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.readings = QLabel()
        self.readings.setWordWrap(True)
        self.table = QTableWidget(0, len(NOISE_HEADER))
        self.table.setHorizontalHeaderLabels(NOISE_HEADER)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        words = QWidget()
        text = QVBoxLayout(words)
        text.setContentsMargins(0, 0, 0, 0)
        text.addWidget(self.summary)
        text.addWidget(self.readings)
        text.addStretch(1)
        scroll = QScrollArea()  # the readings scroll, so the table keeps its height
        scroll.setWidget(words)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        below = QWidget()
        table = QVBoxLayout(below)
        table.setContentsMargins(0, 0, 0, 0)
        table.addWidget(self.table, 1)
        table.addWidget(self.caption)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(scroll)
        splitter.addWidget(below)
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

    def show_text(self, text: NoiseText) -> None:
        self.summary.setText(text.summary)
        self.readings.setText("\n\n".join(text.readings))
        self.table.setVisible(bool(text.rows))
        self.caption.setText(text.caption if text.rows else "")
        self.caption.setVisible(bool(text.rows))
        self.table.setRowCount(len(text.rows))
        for r, row in enumerate(text.rows):
            for c, value in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
