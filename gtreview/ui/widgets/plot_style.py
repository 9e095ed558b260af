"""The charts' look, shared by the results view and its tabs: the palette's base and text
colours for ground, axes and title, so every chart follows the light or dark theme."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette

COLOURS = ["#2c4a6b", "#d4872c", "#4f9a6a", "#a23b72", "#6b6b6b"]
LEGEND_GROUND_ALPHA = 160


def style_plot(widget: pg.PlotWidget, palette: QPalette, title: str | None = None) -> None:
    """Background, axes and title in the palette's base and text colours."""
    text = palette.color(QPalette.ColorRole.Text).name()
    widget.setBackground(palette.color(QPalette.ColorRole.Base))
    for name in ("left", "bottom"):
        axis = widget.getAxis(name)
        axis.setPen(pg.mkPen(text))
        axis.setTextPen(pg.mkPen(text))
        axis.enableAutoSIPrefix(False)  # a flat chart's title read "points /10 (x0.001)"
    widget.setTitle(title if title is not None else str(widget.property("plot_title")), color=text, size="9pt")


def themed_legend(widget: pg.PlotWidget, palette: QPalette, offset: tuple[float, float] = (5, 5)) -> pg.LegendItem:
    """The plot's legend in the palette's text colour, on a half-clear ground of the chart's own.

    addLegend hands back a plot's existing legend unchanged: the colours are set each time,
    so a legend made before a theme change does not keep black text on a dark chart; the
    ground keeps the names readable over what they cover, which still shows through faintly.
    """
    legend = widget.addLegend(offset=offset)
    legend.setLabelTextColor(palette.color(QPalette.ColorRole.Text))
    ground = QColor(palette.color(QPalette.ColorRole.Base))
    ground.setAlpha(LEGEND_GROUND_ALPHA)
    legend.setBrush(pg.mkBrush(ground))
    return legend


def mark_empty(widget: pg.PlotWidget, palette: QPalette, empty: bool, text: str) -> None:
    """With nothing to draw, ``text`` in the chart's place and no axes: an empty chart's axes
    are made up (a difference axis of ±0.4 in one theme and −400…400 in another)."""
    plot = widget.getPlotItem()
    for name in ("left", "bottom"):
        plot.showAxis(name, not empty)
    if empty:
        plot.clear()
        label = pg.TextItem(text, color=palette.color(QPalette.ColorRole.Text), anchor=(0.5, 0.5))
        label.setPos(0.5, 0.5)
        plot.addItem(label)
        plot.setXRange(0, 1, padding=0)
        plot.setYRange(0, 1, padding=0)
