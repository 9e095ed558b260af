"""The results view's Noise tab: judge noise apart from model noise, in the words and rows
the PDF report prints (``gtreview.results.noise_text``)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gtreview.results.noise_text import NOISE_HEADER, NoiseText
from gtreview.ui.widgets.report_tab import ReportTab, fill_table


class NoiseView(ReportTab):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.table = self.add_table(NOISE_HEADER)
        self.caption = self.add_caption()

    def show_text(self, text: NoiseText) -> None:
        self.summary.setText(text.summary)
        self.readings.setText("\n\n".join(text.readings))
        fill_table(self.table, text.rows)
        self.caption.setText(text.caption if text.rows else "")
        self.caption.setVisible(bool(text.rows))
