"""Results of a pass, drawn with pyqtgraph: distributions, base against fine-tune per
question, the difference with its interval, component-kind and pairwise bars; a click
on a question's point opens both models' answers and the judge's reasons side by side.
Several passes compare in the leaderboard."""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gtreview.report.run_report import PROBE_SECTION_HEADER, probe_section_rows
from gtreview.results.analysis import KIND_NAMES, RunAnalysis, fmt, fmt_ci
from gtreview.results.loader import RunResults, SampleStatus

COLOURS = ["#2c4a6b", "#d4872c", "#4f9a6a", "#a23b72", "#6b6b6b"]
KINDS = ("gate", "binary", "reasoning")


def _plot(title: str) -> pg.PlotWidget:
    widget = pg.PlotWidget(title=title, background="w")
    widget.showGrid(x=False, y=True, alpha=0.2)
    widget.setMouseEnabled(x=False, y=False)
    widget.setMinimumHeight(200)
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
        self.finding.setWordWrap(True)
        self.status = QLabel()
        self.leaderboard = QTableWidget(0, 5)
        self.leaderboard.setHorizontalHeaderLabels(
            ["Run", "Model", "Mean /10 [95% CI]", "Errors / unscored", "vs base"]
        )
        self.leaderboard.horizontalHeader().setStretchLastSection(True)
        self.leaderboard.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.distribution = _plot("Score distribution")
        self.scatter = _plot("Per question: base (x) against fine-tune (y), ± sd")
        self.difference = _plot("Fine-tune − base, with 95% interval")
        self.kinds = _plot("Share of points by component kind")
        self.pairwise = _plot("Pairwise outcomes against the base")
        self.comparison = QTextBrowser()
        self.probes = QTableWidget(0, len(PROBE_SECTION_HEADER))
        self.probes.setHorizontalHeaderLabels(PROBE_SECTION_HEADER)
        self.probes.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.probes.setToolTip("Memorisation probes kept with this pass (gtreview probe --run), per benchmark section")
        self.scatter_items: list[pg.ScatterPlotItem] = []

        top = QHBoxLayout()
        top.addWidget(QLabel("Pass:"))
        top.addWidget(self.run_choice, 1)
        plots = QWidget()
        grid = QVBoxLayout(plots)
        row1, row2 = QHBoxLayout(), QHBoxLayout()
        for widget in (self.distribution, self.scatter, self.difference):
            row1.addWidget(widget)
        for widget in (self.kinds, self.pairwise):
            row2.addWidget(widget)
        grid.addLayout(row1)
        grid.addLayout(row2)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(self.leaderboard)
        lower.addWidget(self.probes)
        lower.addWidget(self.comparison)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(plots)
        splitter.addWidget(lower)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.finding)
        layout.addWidget(self.status)
        layout.addWidget(splitter, 1)

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        self.became_visible.emit()

    def set_runs(self, runs: list[tuple[int, str]], current: int | None) -> None:
        self.run_choice.blockSignals(True)
        self.run_choice.clear()
        for run_id, name in runs:
            self.run_choice.addItem(f"{run_id}: {name}", run_id)
        if current is not None:
            self.run_choice.setCurrentIndex(max(0, self.run_choice.findData(current)))
        self.run_choice.blockSignals(False)

    def set_leaderboard(self, rows: list[list[str]]) -> None:
        self.leaderboard.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                self.leaderboard.setItem(r, c, QTableWidgetItem(value))
        self.leaderboard.resizeColumnsToContents()

    def show_results(self, results: RunResults, analysis: RunAnalysis, status: str) -> None:
        self.results, self.analysis = results, analysis
        self.finding.setText(analysis.finding)
        self.status.setText(status)
        self._distribution(results)
        self._scatter(results, analysis)
        self._difference(analysis)
        self._kinds(analysis)
        self._pairwise(analysis)
        self.comparison.setHtml("<p>Click a question's point in the scatter plot to compare the answers.</p>")
        rows = probe_section_rows(results)
        self.probes.setVisible(bool(rows))
        self.probes.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                self.probes.setItem(r, c, QTableWidgetItem(value))
        self.probes.resizeColumnsToContents()

    def _distribution(self, results: RunResults) -> None:
        plot = self.distribution
        plot.clear()
        plot.addLegend(offset=(5, 5))
        width = 0.8 / max(1, len(results.models))
        for index, model in enumerate(results.models):
            values = results.score_matrix(model)
            values = values[np.isfinite(values)]
            counts = [
                int(((values >= b) & (values < b + 1)).sum()) if b < 10 else int((values == 10).sum())
                for b in range(11)
            ]
            x = np.arange(11) - 0.4 + width * (index + 0.5)
            plot.addItem(
                pg.BarGraphItem(x=x, height=counts, width=width, brush=COLOURS[index % len(COLOURS)], name=model)
            )
        plot.setLabel("bottom", "total /10")
        plot.setLabel("left", "samples")

    def _scatter(self, results: RunResults, analysis: RunAnalysis) -> None:
        plot = self.scatter
        plot.clear()
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
            points = pg.ScatterPlotItem(
                x=x,
                y=y,
                data=[q.qid for q in rows],
                size=9,
                brush=COLOURS[(index + 1) % len(COLOURS)],
                hoverable=True,
                tip=lambda x, y, data: f"{data}: {x:.1f} → {y:.1f}",
            )
            points.sigClicked.connect(lambda _item, spots, _event=None: self._clicked(spots))
            plot.addItem(points)
            self.scatter_items.append(points)
        plot.setXRange(0, 10)
        plot.setYRange(0, 10)
        plot.setLabel("bottom", results.base)
        plot.setLabel("left", ", ".join(f.label for f in analysis.finetunes))

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
        plot.addItem(
            pg.ErrorBarItem(x=x, y=means, top=highs - means, bottom=means - lows, beam=0.15, pen=pg.mkPen("k"))
        )
        plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888", style=Qt.PenStyle.DashLine)))
        plot.getAxis("bottom").setTicks([list(enumerate(labels))])

    def _kinds(self, analysis: RunAnalysis) -> None:
        plot = self.kinds
        plot.clear()
        plot.addLegend(offset=(5, 5))
        width = 0.8 / max(1, len(analysis.models))
        for index, model in enumerate(analysis.models):
            heights = [model.kinds[k].mean or 0.0 for k in KINDS]
            x = np.arange(len(KINDS)) - 0.4 + width * (index + 0.5)
            plot.addItem(
                pg.BarGraphItem(x=x, height=heights, width=width, brush=COLOURS[index % len(COLOURS)], name=model.label)
            )
        plot.getAxis("bottom").setTicks([[(i, KIND_NAMES[k]) for i, k in enumerate(KINDS)]])
        plot.setYRange(0, 1)

    def _pairwise(self, analysis: RunAnalysis) -> None:
        plot = self.pairwise
        plot.clear()
        names = ["wins", "ties", "losses", "unknown", "inconsistent"]
        width = 0.8 / max(1, len(analysis.finetunes))
        for index, finetune in enumerate(analysis.finetunes):
            if finetune.pairwise is None:
                continue
            pw = finetune.pairwise
            x = np.arange(len(names)) - 0.4 + width * (index + 0.5)
            plot.addItem(
                pg.BarGraphItem(
                    x=x,
                    height=[pw.wins, pw.ties, pw.losses, pw.unknown, pw.n_inconsistent],
                    width=width,
                    brush=COLOURS[(index + 1) % len(COLOURS)],
                )
            )
        plot.getAxis("bottom").setTicks([list(enumerate(names))])

    def show_comparison(self, qid: str) -> None:
        """Both (all) models' answers to one question, with awards and the judge's reasons."""
        results = self.results
        if results is None:
            return
        question = next((q for q in results.questions if q.id == qid), None)
        if question is None:
            return
        parts = [f"<h3>{escape(qid)} · {escape(question.title or '')}</h3><p>{escape(question.question or '')}</p>"]
        for k in range(results.repeats):
            cells = []
            for model in results.models:
                sample = next(
                    (s for s in results.samples if s.model == model and s.qid == qid and s.sample_index == k), None
                )
                cells.append(f"<td valign=top width='{100 // len(results.models)}%'>{_sample_html(model, sample)}</td>")
            pair_notes = [
                f"{p.finetune} vs {p.base}: <b>{escape(p.label or 'not judged')}</b> {escape(p.reason_normal)}"
                for p in results.pairs
                if p.qid == qid and p.sample_index == k
            ]
            parts.append(
                f"<h4>Sample {k + 1}</h4><table border=1 cellpadding=4 cellspacing=0 width='100%'><tr>{''.join(cells)}</tr></table>"
            )
            if pair_notes:
                parts.append("<p>" + "<br>".join(pair_notes) + "</p>")
        self.comparison.setHtml("".join(parts))


def _sample_html(model: str, sample: object) -> str:
    if sample is None:
        return f"<b>{escape(model)}</b><br><i>no answer</i>"
    from gtreview.results.loader import SampleResult

    assert isinstance(sample, SampleResult)
    head = f"<b>{escape(model)}</b> — {sample.status.value}"
    if sample.status is SampleStatus.SCORED:
        head += f", total <b>{fmt(sample.total, 0)}</b>, gate {'passed' if sample.gate_passed else 'failed'}"
    awards = "".join(
        f"<li>{escape(cid)}: {value} — {escape(sample.reasons.get(cid, ''))}</li>"
        for cid, value in sample.awards.items()
    )
    problem = escape(sample.error or sample.unscored_reason)
    return (
        f"{head}<br>{('<span style=color:#b00020>' + problem + '</span><br>') if problem else ''}"
        f"<p>{escape(sample.answer_clean or sample.answer_raw)[:3000]}</p><ul>{awards}</ul>"
    )


def leaderboard_rows(entries: list[tuple[RunResults, RunAnalysis]]) -> list[list[str]]:
    rows = []
    for results, analysis in entries:
        differences = {f.label: f for f in analysis.finetunes}
        for model in analysis.models:
            versus = differences.get(model.label)
            rows.append(
                [
                    f"{results.run_id}: {results.name}",
                    model.label,
                    f"{fmt(model.summary.mean)} {fmt_ci(model.summary)}",
                    f"{model.counts.get('error', 0)} / {model.counts.get('unscored', 0)}",
                    "base"
                    if versus is None
                    else f"{fmt(versus.difference.mean_difference)} {fmt_ci(versus.difference)} {versus.difference.verdict}",
                ]
            )
    return sorted(rows, key=lambda row: -float(row[2].split()[0]) if row[2].split()[0] not in ("–",) else 0.0)
