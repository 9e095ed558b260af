"""The results page at 1280x720, maximised under a window manager (about 1280x680 inside
the frame): every chart shows its axis titles, the models are named outside the charts,
the splitter under the charts moves and keeps its place, and the leaderboard's figures
stay in view beside long run and model names."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from gtreview.runs.plan import ModelEntry
from tests.ui.test_runs_ui import CONFIG, scripted_open
from tests.ui.waiting import settle

CLIENT = (1280, 680)
BASE = "SmolLM2-135M-Instruct"
FINETUNE = "SmolLM2-135M-Instruct + geology LoRA r16"
LONG_NAMES = CONFIG.model_copy(
    update={
        "name": "Mount Wirrim goldfield, first look at the LoRA",
        "models": [
            ModelEntry(label=BASE, spec="openai:http://base#m"),
            ModelEntry(label=FINETUNE, spec="openai:http://lora#m"),
        ],
    }
)


def results_at_1280(qtbot: Any, window: Any) -> Any:
    """The results of a pass whose run and models have long names, in a window of ``CLIENT``
    (or as near as its least size allows: the first test checks that it fits)."""
    window.resize(*CLIENT)
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(LONG_NAMES)
    settle(qtbot, window)
    window.show_results(1)
    view = window.results_view
    qtbot.waitUntil(lambda: window.pages.currentWidget() is view, timeout=20000)
    settle(qtbot, window)
    QApplication.processEvents()
    return view


def rect_in(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, QPoint(0, 0)), widget.size())


def shown_plots(view: Any) -> list[Any]:
    plots = [view.distribution, view.scatter, view.difference, view.kinds, view.pairwise]
    return [plot for plot in plots if plot.isVisible()]


def axis_titles_outside(plot: Any) -> list[str]:
    """The axis titles of ``plot`` that are not drawn whole inside the chart's widget."""
    cut = []
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        if not axis.labelText:
            continue
        margin = axis.label.document().documentMargin()  # blank around the text, in the item
        text = axis.label.boundingRect().adjusted(margin, margin, -margin, -margin)
        drawn = plot.mapFromScene(axis.label.mapRectToScene(text)).boundingRect()
        if not axis.label.isVisible() or not plot.rect().contains(drawn):
            cut.append(f"{plot.property('plot_title')}: {name} '{axis.labelText}' at {drawn}, chart {plot.rect()}")
    return cut


def test_every_chart_shows_its_axis_titles_at_1280x720(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    view = results_at_1280(qtbot, sample_window)
    assert sample_window.size().toTuple() == CLIENT  # the page's least height fits the screen
    plots = shown_plots(view)
    assert len(plots) == 5
    charts = view.distribution.parentWidget()
    visible = charts.visibleRegion().boundingRect()
    for plot in plots:
        assert visible.contains(rect_in(plot, charts)), f"{plot.property('plot_title')} is not all in view"
        assert plot.plotItem.vb.height() >= 50  # room for the bars themselves
    cut = [cut for plot in plots for cut in axis_titles_outside(plot)]
    assert cut == [], "\n".join(cut)
    for plot in plots:  # the figures are named in the titles' own units, never rescaled ("x0.001")
        assert all(plot.getAxis(name).autoSIPrefixScale == 1.0 for name in ("left", "bottom"))
    assert view.finding.text().startswith("10 questions") and view.judge_gate.isVisible()


def test_the_legend_names_every_model_outside_the_charts(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    view = results_at_1280(qtbot, sample_window)
    assert all(plot.plotItem.legend is None for plot in shown_plots(view))  # none drawn over the bars
    legend = view.legend
    assert legend.isVisible() and f"{BASE} (base)" in legend.text() and FINETUNE in legend.text()
    where = rect_in(legend, view)
    assert where.height() > 0 and all(not where.intersects(rect_in(plot, view)) for plot in shown_plots(view))


def drag(handle: QWidget, dy: int) -> None:
    """Press on the splitter's handle, move by ``dy`` in steps, release: as a mouse does."""
    start = handle.rect().center()
    QTest.mousePress(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for step in range(1, 5):
        QTest.mouseMove(handle, start + QPoint(0, dy * step // 4))
    QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(0, dy))


def test_the_splitter_under_the_charts_moves_and_keeps_its_place(qtbot, sample_window, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    from gtreview.ui.main_window import MainWindow

    window = sample_window
    view = results_at_1280(qtbot, window)
    charts, tables = view.splitter.sizes()
    drag(view.splitter.handle(1), -120)
    qtbot.waitUntil(lambda: view.splitter.sizes()[0] < charts - 60, timeout=5000)  # the tables got the room
    moved = view.splitter.sizes()
    assert moved[1] > tables + 60
    for plot in shown_plots(view):  # smaller, the pane scrolls: no chart is squeezed into losing its titles
        assert plot.height() >= plot.minimumHeight() and axis_titles_outside(plot) == []
    drag(view.splitter.handle(1), 80)
    qtbot.waitUntil(lambda: view.splitter.sizes()[0] > moved[0] + 40, timeout=5000)  # and back down
    kept = view.splitter.sizes()
    window.close()
    reopened = MainWindow(window.project, settings)
    qtbot.addWidget(reopened)
    reopened.resize(*CLIENT)
    reopened.show()
    reopened.show_results(1)
    qtbot.waitUntil(lambda: reopened.pages.currentWidget() is reopened.results_view, timeout=20000)
    settle(qtbot, reopened)
    QApplication.processEvents()
    assert reopened.results_view.splitter.sizes() == kept  # where the reviewer left it
    reopened.close()


def test_the_leaderboard_keeps_its_figures_in_view(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    view = results_at_1280(qtbot, sample_window)
    board = view.leaderboard
    view.tables.setCurrentWidget(board)
    qtbot.waitUntil(board.isVisible, timeout=5000)
    QApplication.processEvents()
    header = [board.horizontalHeaderItem(c).text() for c in range(board.columnCount())]
    assert header[:4] == ["Run", "Model", "Mean /10 [95% CI]", "vs base"]
    width = board.viewport().width()
    metrics = board.fontMetrics()
    for column in range(4):  # run, model, mean and the difference from the base: in view at once
        left = board.columnViewportPosition(column)
        assert left >= 0 and left + board.columnWidth(column) <= width, (header[column], left, width)
    for row in range(board.rowCount()):
        for column in (2, 3):  # the figures whole, never elided
            assert metrics.horizontalAdvance(board.item(row, column).text()) < board.columnWidth(column)
        for column in (0, 1):  # a long name may be shortened on screen: it is whole in its tooltip
            assert board.item(row, column).toolTip() == board.item(row, column).text()
    samples = header.index("Samples")
    reach = board.columnViewportPosition(samples) + board.columnWidth(samples)
    assert reach <= width or board.horizontalScrollBar().maximum() >= reach - width  # the rest scrolls into view
