"""The results view's pairwise chart: wins, ties, losses and unknown per fine-tune, and the
pairs whose two orders disagree (moved out of results_view.py, which keeps to its size)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QPalette

from gtreview.core.wording import plural
from gtreview.results.analysis import RunAnalysis
from gtreview.ui.widgets.plot_style import COLOURS, style_plot

OUTCOMES = ("wins", "ties", "losses", "unknown")  # of a pair; order-inconsistency is counted apart


def draw_pairwise(plot: pg.PlotWidget, palette: QPalette, analysis: RunAnalysis) -> dict[str, int]:
    """Wins, ties, losses and unknown per fine-tune; the pairs whose two orders disagree are
    a count of their own (in the title, and a hollow marker over each fine-tune's bars):
    how many, per fine-tune."""
    plot.clear()
    width = 0.8 / max(1, len(analysis.finetunes))
    inconsistent: dict[str, int] = {}
    for index, finetune in enumerate(analysis.finetunes):
        if finetune.pairwise is None:
            continue
        pw = finetune.pairwise
        x = np.arange(len(OUTCOMES)) - 0.4 + width * (index + 0.5)
        heights = [pw.wins, pw.ties, pw.losses, pw.unknown]
        colour = COLOURS[(index + 1) % len(COLOURS)]
        plot.addItem(pg.BarGraphItem(x=x, height=heights, width=width, brush=colour))
        inconsistent[finetune.label] = pw.n_inconsistent
        if pw.n_inconsistent:
            plot.addItem(
                pg.ScatterPlotItem(
                    x=[x[0]],
                    y=[max(heights) * 1.08 + 0.5],
                    symbol="d",
                    size=10,
                    pen=pg.mkPen(colour, width=2),
                    brush=None,
                    hoverable=True,
                    tip=lambda x, y, data, n=pw.n_inconsistent, label=finetune.label: (
                        f"{label}: {plural(n, 'pair')} judged differently in the two orders"
                    ),
                )
            )
    plot.getAxis("bottom").setTicks([list(enumerate(OUTCOMES))])
    plot.setLabel("left", "pairs")
    total = sum(inconsistent.values())
    style_plot(plot, palette, f"Pairwise outcomes against the base; ◇ order-inconsistent pairs: {total}")
    return inconsistent
