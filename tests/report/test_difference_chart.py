"""The PDF's difference charts: the score difference on its /10 axis and the share changes
on their own, with the category labels under the plot, never across bars at 0."""

from __future__ import annotations

from gtreview.report.document import BarChart, BarSeries
from gtreview.report.pdf import _bars
from gtreview.report.run_report import build_report
from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from tests.results.test_one_source import SEEDLESS, config, project, run

__all__ = ["project"]


def test_category_labels_sit_under_the_plot_when_bars_go_below_zero() -> None:
    block = BarChart(
        title="t",
        categories=["binary facts", "reasoning"],
        series=[BarSeries(name="difference", values=[-0.4, 0.3], low=[-0.6, 0.1], high=[-0.2, 0.5])],
        value_min=-0.6,
        value_max=0.5,
        reference_line=0.0,
    )
    drawing = _bars(block)
    (chart,) = [item for item in drawing.contents if hasattr(item, "categoryAxis")]
    chart.draw()  # places the axes
    chart.categoryAxis.draw()  # as rendering does, after the chart
    # the category axis and its labels: at the plot's bottom, not where the value is 0
    assert chart.categoryAxis._y == chart.y


def test_the_score_difference_and_the_share_changes_have_their_own_axes(project) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    results = load_run_results(opened.engine, run(opened.engine, set_id, config()))
    analysis = analyse(results, **SEEDLESS)
    charts = [
        b for b in build_report(results, analysis).blocks if isinstance(b, BarChart) and "tuned − base" in b.title
    ]
    score, shares = charts
    assert "points of 10" in score.title and len(score.categories) == 1
    assert score.categories == [f"over {analysis.finetunes[0].difference.n_questions} questions"]
    assert "share" in shares.title and shares.categories == ["binary facts", "reasoning"]
    assert shares.value_max is not None and -1 <= shares.value_min < 0 < shares.value_max <= 1
