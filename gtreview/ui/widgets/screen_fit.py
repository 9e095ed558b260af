"""How the results page fits a 1280x720 screen: a header of bounded height, charts that
keep their axis titles, one legend outside every chart, and a leaderboard whose first
columns stay in view.

At 1280x720 (about 1280x680 inside a maximised window) the page had no height to spare:
a long judge-gate line and the headline pushed the charts down until their axis titles
were cut, and the splitter under the charts could not move because both of its panes
were already at their least height (the tables' that of their tallest tab, 280 px: a
report tab now scrolls instead, ``report_tab``). Here the header scrolls past a few lines, the charts
scroll rather than shrink below a readable height (so the splitter always moves), and
the models are named once, above the charts, instead of in a legend over the bars.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gtreview.ui.widgets.labels import never_widens
from gtreview.ui.widgets.plot_style import COLOURS

HEADER_LINES = 4  # the judge gate and the headline show this many lines, then scroll
CHART_HEIGHT = 150  # a chart's least height: its title, the bars and both axes with their titles
CHARTS_AT_FIRST = 2 * CHART_HEIGHT + 40  # two rows of charts and the legend above them
TABLES_AT_FIRST = 170  # the tables' tabs, filter and a few rows
NAME_COLUMNS = (0, 1)  # the leaderboard's run and model: as wide as there is room for
FIGURE_COLUMNS = (2, 3)  # its mean and difference from the base: always whole
NAME_FLOOR = 80


def scrolling(content: QWidget, *, horizontal: bool = False) -> QScrollArea:
    """``content`` in a frameless scroll area that resizes it to the area when there is room."""
    area = QScrollArea()
    area.setWidget(content)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    if not horizontal:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


def header_box(*labels: QLabel) -> QScrollArea:
    """The labels one above the other, wrapped to the page's width; past ``HEADER_LINES``
    lines they scroll instead of pushing the charts down."""
    content = QWidget()
    layout = QVBoxLayout(content)
    layout.setContentsMargins(0, 0, 0, 0)
    for label in labels:
        layout.addWidget(never_widens(label))
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    layout.addStretch(1)
    area = scrolling(content)
    area.setMaximumHeight(HEADER_LINES * area.fontMetrics().lineSpacing() + 6)
    return area


def chart_pane(legend: QLabel, charts: QWidget) -> QWidget:
    """The legend above the charts, and the charts in a scroll area: a chart never gets less
    than ``CHART_HEIGHT``, so its axis titles are never cut and the pane can be made small."""
    legend.setTextFormat(Qt.TextFormat.RichText)
    never_widens(legend)
    pane = QWidget()
    layout = QVBoxLayout(pane)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    layout.addWidget(legend)
    layout.addWidget(scrolling(charts, horizontal=True), 1)  # sideways too, in a narrow window
    return pane


def legend_html(models: Sequence[str]) -> str:
    """Each model's colour and name, as every chart draws it (model i in ``COLOURS[i]``; the
    first is the base)."""
    entries = []
    for index, model in enumerate(models):
        name = escape(model) + (" (base)" if index == 0 and len(models) > 1 and model.lower() != "base" else "")
        entries.append(f"<span style='color: {COLOURS[index % len(COLOURS)]}'>■</span>&nbsp;{name}")
    return "&nbsp;&nbsp;&nbsp;".join(entries)


class Leaderboard(QTableWidget):
    """Every pass's models, one row each. The figures (the mean and the difference from
    the base) always show whole; the run and model names take the width left beside them,
    no less than ``NAME_FLOOR`` (shortened in the middle, where fine-tunes of one base
    differ; the whole name is the cell's tooltip); what does not fit scrolls sideways."""

    def __init__(self, header: Sequence[str]) -> None:
        super().__init__(0, len(header))
        self.setHorizontalHeaderLabels(list(header))
        self.horizontalHeader().setStretchLastSection(True)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setHorizontalScrollMode(QTableWidget.ScrollMode.ScrollPerPixel)  # a wide cell scrolls smoothly

    def set_rows(self, rows: Sequence[Sequence[str]]) -> None:
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                item = QTableWidgetItem(value)
                if c in NAME_COLUMNS:
                    item.setToolTip(value)
                self.setItem(r, c, item)
        self.fit()

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()  # a narrower pane (the window, a splitter) narrows the names, not the figures
        return super().viewportEvent(event)

    def fit(self) -> None:
        self.resizeColumnsToContents()
        room = self.viewport().width() - sum(self.columnWidth(c) for c in FIGURE_COLUMNS)
        if sum(self.columnWidth(c) for c in NAME_COLUMNS) <= room:
            return
        short, long = sorted(NAME_COLUMNS, key=self.columnWidth)  # the shorter keeps what it needs, up to half
        short_width = max(NAME_FLOOR, min(self.columnWidth(short), room // 2))
        self.setColumnWidth(short, short_width)
        self.setColumnWidth(long, max(NAME_FLOOR, min(self.columnWidth(long), room - short_width)))


def split_charts_and_tables(splitter: QSplitter) -> None:
    """At first the charts get what two rows of them need and the tables a few rows, which
    is what 1280x720 has room for; a taller page keeps the proportion (a splitter scales its
    panes' sizes). Neither pane collapses; each scrolls when made smaller than its contents."""
    splitter.setChildrenCollapsible(False)
    splitter.setSizes([CHARTS_AT_FIRST, TABLES_AT_FIRST])
