"""Charts with no scored answer say so in their place (the view and the PDF): an empty
difference chart's axis read ±0.4 in one theme and −400…400 in the other, the distribution's
y label "none scored", and the PDF's empty distribution a count axis of 0–0.01."""

from __future__ import annotations

import threading

import pyqtgraph as pg
import pytest

from gtreview.report.document import BarChart, Paragraph
from gtreview.report.run_report import build_report
from gtreview.results.absence import NO_SCORES_YET
from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from gtreview.runs.execute import PassCancelled, PassEvent
from gtreview.ui.widgets.results_view import ResultsView
from tests.results.test_one_source import SEEDLESS, config, project, run

__all__ = ["project"]  # the fixture, used by name


def _texts(widget: pg.PlotWidget) -> list[str]:
    return [item.textItem.toPlainText() for item in widget.getPlotItem().items if isinstance(item, pg.TextItem)]


def test_charts_without_a_scored_answer_say_so(qtbot, project) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    cancel = threading.Event()

    def stop_at_the_start(event: PassEvent) -> None:  # (an error counts as 0: a chart would have it)
        if event.phase == "generate":
            cancel.set()

    with pytest.raises(PassCancelled):
        run(opened.engine, set_id, config(), progress=stop_at_the_start, cancel=cancel)
    results = load_run_results(opened.engine, 1)
    analysis = analyse(results, **SEEDLESS)
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_results(results, analysis, "stopped")
    for chart in (view.distribution, view.difference, view.kinds):
        assert _texts(chart) == [NO_SCORES_YET]
        assert not chart.getPlotItem().getAxis("left").isVisible()
    document = build_report(results, analysis)
    assert not any(isinstance(b, BarChart) and b.title.startswith("Score distribution") for b in document.blocks)
    assert any(isinstance(b, Paragraph) and b.text.startswith("No scored answers yet") for b in document.blocks)
    # once scored, the charts are charts again
    finished = load_run_results(opened.engine, run(opened.engine, set_id, config()))
    view.show_results(finished, analyse(finished, **SEEDLESS), "finished")
    assert _texts(view.distribution) == [] and view.distribution.getPlotItem().getAxis("left").isVisible()
