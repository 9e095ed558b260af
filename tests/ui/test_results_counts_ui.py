"""The results view's counts, headline and charts: the words and figures every other output
shows, a tooltip on each question's point, and a layout that keeps every chart readable
at 1280x720."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from gtreview.app.results import run_figures_of
from gtreview.results.analysis import analyse
from gtreview.results.counts import counts_text
from gtreview.results.loader import load_run_results
from gtreview.ui.widgets.results_view import ResultsView
from tests.results.test_count_names import stopped_in
from tests.results.test_one_source import SEEDLESS, config, project, run

__all__ = ["project"]


def shown(qtbot, results, width: int = 1280, height: int = 720) -> ResultsView:  # type: ignore[no-untyped-def]
    view = ResultsView()
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    view.show_results(results, analyse(results, **SEEDLESS), "Pass finished.")
    return view


def hover(plot, where) -> None:  # type: ignore[no-untyped-def]
    """The mouse moved over ``where`` (viewport coordinates), as the window system sends it."""
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(where),
        QPointF(plot.viewport().mapToGlobal(where)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(plot.viewport(), event)


def test_hovering_a_questions_point_names_it_in_a_tooltip(qtbot, project, capfd) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    results = load_run_results(opened.engine, run(opened.engine, set_id, config()))
    view = shown(qtbot, results)
    (points,) = view.scatter_items
    spot = points.points()[0]
    plot = view.scatter
    box = plot.plotItem.vb

    def hovered() -> bool:  # again until the layout has settled where the point is drawn
        hover(plot, plot.mapFromScene(points.mapToScene(spot.pos())))
        return bool(box.toolTip())

    qtbot.waitUntil(hovered, timeout=5000)
    x, y = spot.pos().x(), spot.pos().y()
    assert box.toolTip() == f"{spot.data()}: {x:.1f} → {y:.1f}"
    assert "Traceback" not in capfd.readouterr().err  # pyqtgraph prints a failing tip and carries on


def test_the_leaderboard_counts_samples_by_the_names_results_json_uses(qtbot, project) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    run_id = stopped_in(opened.engine, set_id, "judge")
    results = load_run_results(opened.engine, run_id)
    view = shown(qtbot, results)
    from gtreview.ui.widgets.results_html import leaderboard_rows

    view.set_leaderboard(leaderboard_rows([(results, analyse(results, **SEEDLESS))]))
    header = [view.leaderboard.horizontalHeaderItem(c).text() for c in range(view.leaderboard.columnCount())]
    column = header.index("Samples")
    figures = {m.label: m for m in run_figures_of(opened.engine, run_id).models}
    for row in range(view.leaderboard.rowCount()):
        model = figures[view.leaderboard.item(row, 1).text()]
        cell = view.leaderboard.item(row, column).text()
        assert cell == counts_text(model) and f"{model.unjudged} unjudged" in cell and "missing" not in cell
