"""The results view's Membership tab: the membership tests kept with the pass, in the
words, rows and ROC curves the PDF report prints (``gtreview.results.membership_text``).

The ROC pane draws one curve per model for the signal chosen above it (first the one the
readings lean on), the base's dashed as the control, the diagonal as chance, in the
theme's colours like the results view's other charts."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gtreview.results.loader import RunResults
from gtreview.results.membership_text import (
    MEMBERSHIP_HEADER,
    ROC_X_LABEL,
    ROC_Y_LABEL,
    membership_of,
    membership_rows,
    membership_summary,
    roc_series,
    roc_signal,
    roc_signals,
)
from gtreview.runs.membership import MembershipReport
from gtreview.ui.widgets.plot_style import COLOURS, style_plot, themed_legend
from gtreview.ui.widgets.report_tab import ReportTab, fill_table

NO_MEMBERSHIP = (
    "No membership tests for this pass: gtreview probe --run ID --members GLOB... --held-out GLOB... names the "
    "documents the fine-tune was trained on and those held out, and keeps the tests with the pass."
)
ROC_TITLE = "ROC curves of the chosen signal, one per model (the base's dashed, the control); the diagonal is chance"
CHANCE = "#999999"
CONTROL = "#888888"


class MembershipView(ReportTab):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(NO_MEMBERSHIP, parent)
        self.report: MembershipReport | None = None
        self.table = self.add_table(MEMBERSHIP_HEADER)
        self.roc_choice = QComboBox()
        self.roc_choice.setToolTip("The signal whose ROC curves are drawn: first the one the readings lean on")
        # the names are long: the box shrinks with the pane, the list shows them whole
        self.roc_choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.roc_choice.setMinimumContentsLength(10)
        self.roc_choice.currentIndexChanged.connect(lambda _i: self._draw_roc())
        self.roc = pg.PlotWidget()
        self.roc.showGrid(x=True, y=True, alpha=0.2)
        self.roc.setMouseEnabled(x=False, y=False)
        self.roc.setMenuEnabled(False)
        self.roc.setMinimumSize(180, 140)
        self.roc.setToolTip(ROC_TITLE)
        self.roc_pane = QWidget()
        choice = QHBoxLayout()
        choice.addWidget(QLabel("ROC of"))
        choice.addWidget(self.roc_choice, 1)
        pane = QVBoxLayout(self.roc_pane)
        pane.setContentsMargins(0, 0, 0, 0)
        pane.addLayout(choice)
        pane.addWidget(self.roc, 1)
        self.roc_pane.setVisible(False)
        self.add_beside(self.roc_pane)

    def show_results(self, results: RunResults) -> None:
        report = self.report = membership_of(results)
        self.summary.setText(membership_summary(report) if report is not None else NO_MEMBERSHIP)
        self.readings.setText("\n".join(report.readings) if report is not None else "")
        self.readings.setVisible(bool(report is not None and report.readings))
        fill_table(self.table, membership_rows(report) if report is not None else [])
        signals = roc_signals(report) if report is not None else []
        self.roc_choice.blockSignals(True)
        self.roc_choice.clear()
        for signal, name in signals:
            self.roc_choice.addItem(name, signal)
        first = roc_signal(report) if report is not None else None
        self.roc_choice.setCurrentIndex(max(0, self.roc_choice.findData(first)))
        self.roc_choice.blockSignals(False)
        self.roc_pane.setVisible(bool(signals))  # a report kept before ROC curves has none to draw
        self._draw_roc()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._draw_roc()

    def _draw_roc(self) -> None:
        plot = self.roc
        plot.clear()
        style_plot(plot, self.palette(), "")
        plot.setTitle(None)  # the chooser above names the signal; the tab has no height to spare
        report, signal = self.report, self.roc_choice.currentData()
        if report is None or signal is None:
            return
        themed_legend(plot, self.palette(), offset=(-5, -5))  # bottom right: ROC curves keep to the top left
        chance = pg.mkPen(CHANCE, style=Qt.PenStyle.DashLine)
        plot.addItem(pg.PlotCurveItem([0.0, 1.0], [0.0, 1.0], pen=chance, name="chance"))
        shown = 0
        for series in roc_series(report, signal):
            if series.is_base:
                pen = pg.mkPen(CONTROL, width=2, style=Qt.PenStyle.DashLine)
            else:
                pen = pg.mkPen(COLOURS[shown % len(COLOURS)], width=2)
                shown += 1
            x, y = zip(*series.points, strict=True)
            plot.addItem(pg.PlotCurveItem(list(x), list(y), pen=pen, name=series.label))
        plot.setXRange(0, 1, padding=0.02)
        plot.setYRange(0, 1, padding=0.02)
        plot.setLabel("bottom", ROC_X_LABEL)
        plot.setLabel("left", ROC_Y_LABEL)
