"""Results of a pass, drawn with pyqtgraph in the palette's colours: distributions, base
against fine-tune per question (a single model: its mean per question), the difference with
its interval, component-kind and pairwise bars (order-inconsistent pairs counted apart, not
as an outcome); a click on a question's point opens every model's answers side by side, and
the sample table opens any one answer with its verdicts and the judge's reasons. Several
passes compare in the leaderboard."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gtreview.report.run_report import PROBE_SECTION_HEADER, probe_section_rows
from gtreview.results.absence import NO_SCORES_YET, any_scored
from gtreview.results.analysis import KIND_NAMES, RunAnalysis
from gtreview.results.loader import RunResults, SampleResult
from gtreview.results.noise_text import noise_text
from gtreview.ui.widgets.design_html import design_html
from gtreview.ui.widgets.html import HtmlBrowser, style
from gtreview.ui.widgets.labels import ElidedLabel
from gtreview.ui.widgets.membership_view import MembershipView
from gtreview.ui.widgets.noise_view import NoiseView
from gtreview.ui.widgets.pairwise_chart import draw_pairwise
from gtreview.ui.widgets.paraphrase_view import ParaphraseView
from gtreview.ui.widgets.plot_style import COLOURS, mark_empty, style_plot
from gtreview.ui.widgets.reading_view import ReadingView
from gtreview.ui.widgets.results_html import pair_note, sample_detail_html, sample_html
from gtreview.ui.widgets.sample_table import SampleTable
from gtreview.ui.widgets.screen_fit import (
    CHART_HEIGHT,
    Leaderboard,
    chart_pane,
    header_box,
    legend_html,
    split_charts_and_tables,
)

KINDS = ("gate", "binary", "reasoning")


def _plot(title: str) -> pg.PlotWidget:
    widget = pg.PlotWidget()
    widget.setProperty("plot_title", title)
    widget.showGrid(x=False, y=True, alpha=0.2)
    widget.setMouseEnabled(x=False, y=False)
    widget.setMinimumSize(160, CHART_HEIGHT)
    widget.setMenuEnabled(False)
    return widget


class ResultsView(QWidget):
    run_selected = Signal(int)
    question_clicked = Signal(str)
    became_visible = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: RunResults | None = None
        self.analysis: RunAnalysis | None = None
        self.run_choice = QComboBox()
        self.run_choice.activated.connect(lambda _i: self.run_selected.emit(int(self.run_choice.currentData())))
        self.finding = QLabel()
        self.status = ElidedLabel()
        # the judge gate in full (never elided): a pass whose judge is not gated says so plainly
        self.judge_gate = QLabel()
        self.judge_gate.setTextFormat(Qt.TextFormat.PlainText)
        self.judge_gate.setVisible(False)
        self.gated = True
        self.leaderboard = Leaderboard(["Run", "Model", "Mean /10 [95% CI]", "vs base", "Samples"])
        self.distribution = _plot("Score distribution")
        self.scatter = _plot("Per question: base (x), fine-tune (y), ± sd")
        self.difference = _plot("Fine-tune − base, 95% interval")
        self.kinds = _plot("Share of points by component kind")
        self.pairwise = _plot("Pairwise outcomes against the base")
        self.comparison = HtmlBrowser()
        self.design_button = QPushButton("Design figures")
        self.design_button.setToolTip(
            "Fine-tune minus base clustered by source document, McNemar on the gate, pass^k, "
            "Bradley-Terry strengths and the length effect, in the pane below"
        )
        self.design_button.clicked.connect(self.show_design)
        self.comparison.setOpenLinks(False)
        self.samples = SampleTable()
        self.samples.sample_chosen.connect(self.show_sample)
        self.probes = QTableWidget(0, len(PROBE_SECTION_HEADER))
        self.probes.setHorizontalHeaderLabels(PROBE_SECTION_HEADER)
        self.probes.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.probes.setToolTip("Memorisation probes kept with this pass (gtreview probe --run), per benchmark section")
        self.membership = MembershipView()
        self.reading = ReadingView()
        self.reading.setToolTip(
            "One reading per fine-tune: the evidence together and what it supports, as the PDF prints it"
        )
        self.paraphrase = ParaphraseView()
        self.noise = NoiseView()
        self.scatter_items: list[pg.ScatterPlotItem] = []
        self.inconsistent: dict[str, int] = {}  # per fine-tune: pairs whose two orders disagree

        top = QHBoxLayout()
        top.addWidget(QLabel("Pass:"))
        top.addWidget(self.run_choice, 1)
        top.addStretch(2)
        top.addWidget(self.design_button)
        self.legend = QLabel()  # every chart's models, named once outside the charts
        plots = QWidget()
        self.grid = QGridLayout(plots)
        self.grid.setContentsMargins(0, 0, 0, 0)
        for column in range(3):
            self.grid.setColumnStretch(column, 1)
        self._arrange()
        self.tables = QTabWidget()
        self.tables.addTab(self.samples, "Samples")
        self.tables.addTab(self.reading, "Reading")
        self.tables.addTab(self.leaderboard, "Leaderboard")
        self.tables.addTab(self.probes, "Probes")
        self.tables.addTab(self.membership, "Membership")
        self.tables.addTab(self.paraphrase, "Paraphrase")
        self.tables.addTab(self.noise, "Noise")
        self.lower_pane = QSplitter(Qt.Orientation.Horizontal)
        self.lower_pane.addWidget(self.tables)
        self.lower_pane.addWidget(self.comparison)
        self.lower_pane.setStretchFactor(0, 1)
        self.lower_pane.setStretchFactor(1, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)  # the answers can take most of the page
        self.splitter.addWidget(chart_pane(self.legend, plots))
        self.splitter.addWidget(self.lower_pane)
        split_charts_and_tables(self.splitter)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(header_box(self.judge_gate, self.finding))
        layout.addWidget(self.status)
        layout.addWidget(self.splitter, 1)
        self._restyle()

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        self.became_visible.emit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()
            if self.results is not None and self.analysis is not None:
                self._draw(self.results, self.analysis)

    def _restyle(self) -> None:
        for plot in (self.distribution, self.scatter, self.difference, self.kinds, self.pairwise):
            style_plot(plot, self.palette())
        self._style_gate()

    def set_judge_gate(self, line: str, gated: bool, details: Sequence[str] = ()) -> None:
        """The judge gate's line, as the PDF cover prints it; in bold red when not gated.
        Its per-criterion lines (the PDF's "Judge gate" section) are the tooltip."""
        self.gated = gated
        self.judge_gate.setText(line)
        self.judge_gate.setToolTip("\n".join(details))
        self.judge_gate.setVisible(bool(line))
        self._style_gate()

    def _style_gate(self) -> None:
        font = self.judge_gate.font()
        font.setBold(not self.gated)
        self.judge_gate.setFont(font)
        palette = self.palette()
        if not self.gated:  # a red that reads on the theme's background, light or dark
            dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
            palette.setColor(QPalette.ColorRole.WindowText, QColor("#ff8a80" if dark else "#8b1a1a"))
        self.judge_gate.setPalette(palette)

    def set_runs(self, runs: list[tuple[int, str]], current: int | None) -> None:
        self.run_choice.blockSignals(True)
        self.run_choice.clear()
        for run_id, name in runs:
            self.run_choice.addItem(f"{run_id}: {name}", run_id)
        if current is not None:
            self.run_choice.setCurrentIndex(max(0, self.run_choice.findData(current)))
        self.run_choice.blockSignals(False)

    def set_leaderboard(self, rows: list[list[str]]) -> None:
        self.leaderboard.set_rows(rows)

    def show_results(self, results: RunResults, analysis: RunAnalysis, status: str) -> None:
        self.results, self.analysis = results, analysis
        self.finding.setText(analysis.finding)
        self.status.setText(status)
        self._draw(results, analysis)
        self.show_design()
        self.samples.set_results(results)
        rows = probe_section_rows(results)
        # a tab page's own visibility is its tab widget's to set (shown, it is drawn over the current page)
        self.tables.setTabVisible(self.tables.indexOf(self.probes), bool(rows))
        self.probes.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                self.probes.setItem(r, c, QTableWidgetItem(value))
        self.probes.resizeColumnsToContents()
        self.membership.show_results(results)
        self.paraphrase.show_report(analysis.paraphrase)
        if analysis.noise is not None:
            self.noise.show_text(noise_text(analysis.noise))

    def _arrange(self, paired: bool = True, pairwise: bool = True) -> None:
        """The charts that have something to show, three to a row (a last one alone spans the rest)."""
        shown = [self.distribution, self.scatter, *([self.difference] if paired else []), self.kinds]
        shown += [self.pairwise] if pairwise else []
        for plot in (self.distribution, self.scatter, self.difference, self.kinds, self.pairwise):
            self.grid.removeWidget(plot)
            plot.setVisible(plot in shown)
        for position, plot in enumerate(shown):
            last = position == len(shown) - 1
            span = 3 - position % 3 if last else 1
            self.grid.addWidget(plot, position // 3, position % 3, 1, span)

    def _draw(self, results: RunResults, analysis: RunAnalysis) -> None:
        paired = bool(analysis.finetunes)
        self.legend.setText(legend_html(results.models))
        self._arrange(paired, any(f.pairwise is not None for f in analysis.finetunes))
        self._distribution(results)
        self._scatter(results, analysis) if paired else self._per_question(results, analysis)
        self._difference(analysis)
        self._kinds(analysis)
        self._pairwise(analysis)
        nothing = not any_scored(results)
        no_difference = all(f.difference.mean_difference is None for f in analysis.finetunes)
        for plot, empty in ((self.distribution, nothing), (self.kinds, nothing), (self.difference, no_difference)):
            mark_empty(plot, self.palette(), empty, NO_SCORES_YET)

    def _distribution(self, results: RunResults) -> None:
        plot = self.distribution
        plot.clear()
        width = 0.8 / max(1, len(results.models))
        tallest = 0
        for index, model in enumerate(results.models):
            values = results.score_matrix(model)
            values = values[np.isfinite(values)]
            counts = [
                int(((values >= b) & (values < b + 1)).sum()) if b < 10 else int((values == 10).sum())
                for b in range(11)
            ]
            tallest = max(tallest, *counts)
            x = np.arange(11) - 0.4 + width * (index + 0.5)
            plot.addItem(pg.BarGraphItem(x=x, height=counts, width=width, brush=COLOURS[index % len(COLOURS)]))
        plot.setYRange(0, max(1, tallest) * 1.05, padding=0)  # counts start at 0, even with none scored
        plot.setLabel("bottom", "total /10")
        plot.setLabel("left", "samples")

    def _scatter(self, results: RunResults, analysis: RunAnalysis) -> None:
        plot = self.scatter
        plot.clear()
        style_plot(plot, self.palette())
        self.scatter_items = []
        plot.addItem(pg.PlotCurveItem([0, 10], [0, 10], pen=pg.mkPen("#bbbbbb", style=Qt.PenStyle.DashLine)))
        for index, finetune in enumerate(analysis.finetunes):
            rows = [
                q
                for q in analysis.questions
                if q.means.get(results.base) is not None and q.means.get(finetune.label) is not None
            ]
            x = np.array([q.means[results.base] for q in rows], dtype=float)
            y = np.array([q.means[finetune.label] for q in rows], dtype=float)
            plot.addItem(
                pg.ErrorBarItem(
                    x=x,
                    y=y,
                    width=2 * np.array([q.sds[results.base] or 0 for q in rows]),
                    height=2 * np.array([q.sds[finetune.label] or 0 for q in rows]),
                    pen=pg.mkPen("#999999"),
                )
            )
            self._question_points(
                x,
                y,
                [q.qid for q in rows],
                COLOURS[(index + 1) % len(COLOURS)],
                lambda x, y, qid: f"{qid}: {x:.1f} → {y:.1f}",
            )
        plot.setXRange(0, 10)
        plot.setYRange(0, 10)
        plot.setLabel("bottom", "base")  # the models by colour in the legend: a name may not fit the axis
        plot.setLabel("left", "fine-tune")

    def _per_question(self, results: RunResults, analysis: RunAnalysis) -> None:
        """A pass of one model: its mean per question (± sd across repeats), a point per question."""
        plot = self.scatter
        plot.clear()
        style_plot(plot, self.palette(), f"Per question: {results.base} mean ± sd")
        self.scatter_items = []
        rows = [q for q in analysis.questions if q.means.get(results.base) is not None]
        x = np.arange(len(rows), dtype=float)
        y = np.array([q.means[results.base] for q in rows], dtype=float)
        plot.addItem(
            pg.ErrorBarItem(
                x=x,
                y=y,
                height=2 * np.array([q.sds[results.base] or 0 for q in rows]),
                pen=pg.mkPen("#999999"),
            )
        )
        self._question_points(x, y, [q.qid for q in rows], COLOURS[0], lambda _x, y, qid: f"{qid}: {y:.1f}")
        step = max(1, len(rows) // 12)
        plot.getAxis("bottom").setTicks([[(i, q.qid) for i, q in enumerate(rows) if i % step == 0]])
        plot.setXRange(-0.5, max(0.5, len(rows) - 0.5))
        plot.setYRange(0, 10)
        plot.setLabel("bottom", "question")
        plot.setLabel("left", "total /10")

    def _question_points(
        self, x: Any, y: Any, qids: list[str], brush: str, tip: Callable[[float, float, str], str]
    ) -> None:
        """One point per question on the scatter: hover names it, a click opens it."""
        points = pg.ScatterPlotItem(  # pyqtgraph calls the tip with keywords: x=, y=, data=
            x=x, y=y, data=qids, size=9, brush=brush, hoverable=True, tip=lambda x, y, data: tip(x, y, str(data))
        )
        points.sigClicked.connect(lambda _item, spots, _event=None: self._clicked(spots))
        self.scatter.addItem(points)
        self.scatter_items.append(points)

    def _clicked(self, spots: list[pg.SpotItem]) -> None:
        if spots:
            qid = str(spots[0].data())
            self.show_comparison(qid)
            self.question_clicked.emit(qid)

    def _difference(self, analysis: RunAnalysis) -> None:
        plot = self.difference
        plot.clear()
        labels = [f.label for f in analysis.finetunes]
        means = np.array([f.difference.mean_difference or 0.0 for f in analysis.finetunes])
        lows = np.array(
            [f.difference.ci.low if f.difference.ci else m for f, m in zip(analysis.finetunes, means, strict=True)]
        )
        highs = np.array(
            [f.difference.ci.high if f.difference.ci else m for f, m in zip(analysis.finetunes, means, strict=True)]
        )
        x = np.arange(len(labels), dtype=float)
        plot.addItem(pg.BarGraphItem(x=x, height=means, width=0.5, brush=COLOURS[1]))
        text = self.palette().color(QPalette.ColorRole.Text)
        plot.addItem(
            pg.ErrorBarItem(x=x, y=means, top=highs - means, bottom=means - lows, beam=0.15, pen=pg.mkPen(text))
        )
        plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888", style=Qt.PenStyle.DashLine)))
        plot.getAxis("bottom").setTicks([list(enumerate(labels))])
        plot.setLabel("left", "points /10")

    def _kinds(self, analysis: RunAnalysis) -> None:
        plot = self.kinds
        plot.clear()
        width = 0.8 / max(1, len(analysis.models))
        for index, model in enumerate(analysis.models):
            heights = [model.kinds[k].mean or 0.0 for k in KINDS]
            x = np.arange(len(KINDS)) - 0.4 + width * (index + 0.5)
            plot.addItem(pg.BarGraphItem(x=x, height=heights, width=width, brush=COLOURS[index % len(COLOURS)]))
        plot.getAxis("bottom").setTicks([[(i, KIND_NAMES[k]) for i, k in enumerate(KINDS)]])
        plot.setYRange(0, 1)
        plot.setLabel("left", "share")

    def _pairwise(self, analysis: RunAnalysis) -> None:
        self.inconsistent = draw_pairwise(self.pairwise, self.palette(), analysis)

    def show_comparison(self, qid: str) -> None:
        """Both (all) models' answers to one question, with awards and the judge's reasons."""
        results = self.results
        if results is None:
            return
        question = next((q for q in results.questions if q.id == qid), None)
        if question is None:
            return
        parts = [
            style(),
            f"<h3>{escape(qid)} · {escape(question.title or '')}</h3><p>{escape(question.question or '')}</p>",
        ]
        for k in range(results.repeats):
            cells = []
            for model in results.models:
                sample = next(
                    (s for s in results.samples if s.model == model and s.qid == qid and s.sample_index == k), None
                )
                cells.append(f"<td valign=top width='{100 // len(results.models)}%'>{sample_html(model, sample)}</td>")
            pair_notes = [pair_note(p) for p in results.pairs if p.qid == qid and p.sample_index == k]
            parts.append(
                f"<h4>Sample {k + 1}</h4><table border=1 cellpadding=4 cellspacing=0 width='100%'><tr>{''.join(cells)}</tr></table>"
            )
            if pair_notes:
                parts.append("<p>" + "<br>".join(pair_notes) + "</p>")
        self.comparison.setHtml("".join(parts))

    def show_design(self) -> None:
        """The pass's design figures (clustered difference, gate, pass^k, strengths, length) in the pane."""
        analysis = self.analysis
        self.comparison.setHtml(
            f"{style()}<p class='meta'>Choose a sample in the table (arrow keys move, the filter narrows it) to read "
            "its answer, verdicts and the judge's reasons; click a question's point to compare every model's answers; "
            "Design figures brings these back.</p>" + design_html(analysis.design if analysis is not None else None)
        )

    def show_sample(self, sample: SampleResult) -> None:
        """One sample: its question, the answer, the judge's verdicts and reasons, and its pairwise verdicts."""
        results = self.results
        if results is None:
            return
        self.comparison.setHtml(sample_detail_html(results, sample))
