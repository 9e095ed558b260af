"""A results tab made of words above tables (Membership, Paraphrase, Noise).

The results tabs share the lower part of the window with the sample pane, so at 1280x720
a tab is about 200 pixels high. Stacked plainly, long readings squeezed the tables to a
header with no rows and the labels drew over each other. Here the words scroll in a pane
of their own, the tables keep room for a few rows, and a splitter between them lets the
reader give either more room. A tab shorter than that scrolls as a whole.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

ROWS_ALWAYS_SHOWN = 2  # a table never shrinks below its header and this many rows


def _label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # figures can be copied
    return label


class ReportTab(QWidget):
    def __init__(self, summary: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = _label(summary)
        self.readings = _label()
        words = QWidget()
        text = QVBoxLayout(words)
        text.setContentsMargins(0, 0, 0, 0)
        text.addWidget(self.summary)
        text.addWidget(self.readings)
        text.addStretch(1)
        self.words = QScrollArea()
        self.words.setWidget(words)
        self.words.setWidgetResizable(True)
        self.words.setFrameShape(QScrollArea.Shape.NoFrame)
        self.words.setMinimumHeight(2 * self.fontMetrics().lineSpacing() + 4)  # two lines, the rest scrolls
        self._below = QWidget()
        self._tables = QVBoxLayout(self._below)
        self._tables.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.words)
        self.splitter.addWidget(self._below)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        inner = QWidget()
        self._outer = QVBoxLayout(inner)
        self._outer.setContentsMargins(0, 0, 0, 0)
        self._outer.addWidget(self.splitter)
        # Shorter than its words and tables need, the tab scrolls: its least height would
        # otherwise be the whole results tab widget's, and keep the charts' splitter still.
        page = QScrollArea()
        page.setWidget(inner)
        page.setWidgetResizable(True)
        page.setFrameShape(QScrollArea.Shape.NoFrame)
        whole = QVBoxLayout(self)
        whole.setContentsMargins(0, 0, 0, 0)
        whole.addWidget(page)

    def add_title(self, text: str) -> QLabel:
        title = _label(text)
        self._tables.addWidget(title)
        return title

    def add_table(self, header: list[str]) -> QTableWidget:
        table = QTableWidget(0, len(header))
        table.setHorizontalHeaderLabels(header)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.horizontalHeader().setStretchLastSection(True)
        rows = table.verticalHeader().defaultSectionSize() * ROWS_ALWAYS_SHOWN
        scrollbar = table.horizontalScrollBar().sizeHint().height()  # wide tables scroll sideways
        table.setMinimumHeight(table.horizontalHeader().sizeHint().height() + rows + scrollbar + 2 * table.frameWidth())
        self._tables.addWidget(table, 1)
        return table

    def add_beside(self, widget: QWidget) -> QSplitter:
        """A pane right of the words and tables (a chart), the tab's full height: below the
        words it would get a sliver of the tab's 200 or so pixels."""
        beside = QSplitter(Qt.Orientation.Horizontal)
        beside.addWidget(self.splitter)  # taken out of the tab's layout into the new splitter
        beside.addWidget(widget)
        beside.setChildrenCollapsible(False)
        beside.setStretchFactor(0, 3)
        beside.setStretchFactor(1, 2)
        beside.setSizes([600, 400])  # in proportion: the words and tables keep the larger share
        self._outer.addWidget(beside)
        return beside

    def add_caption(self) -> QLabel:
        caption = _label()
        self._tables.addWidget(caption)
        return caption


def fill_table(table: QTableWidget, rows: list[list[str]], header: list[str] | None = None) -> None:
    """The rows (and header, when it changes with the data) shown; a table with no rows hides."""
    if header is not None:
        table.setColumnCount(len(header))
        table.setHorizontalHeaderLabels(header)
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(value))
    table.resizeColumnsToContents()
    table.setVisible(bool(rows))
