"""The results view's Reading tab: one block per fine-tune, the verdict first, then the
evidence it rests on, in the words and rows the PDF's reading pages print
(``gtreview.results.reading``). Formatting only."""

from __future__ import annotations

from html import escape

from PySide6.QtWidgets import QWidget

from gtreview.results.reading import READING_CAPTION, READING_HEADER, FineTuneReading, reading_rows
from gtreview.ui.widgets.html import HtmlBrowser, style

NO_READING = "No fine-tune in this pass: a reading weighs a fine-tune's evidence against the base."


def reading_html(readings: list[FineTuneReading]) -> str:
    if not readings:
        return f"{style()}<p class='meta'>{escape(NO_READING)}</p>"
    head = "".join(f"<th>{escape(cell)}</th>" for cell in READING_HEADER)
    blocks = []
    for reading in readings:
        rows = "".join(
            "<tr>" + "".join(f"<td valign=top>{escape(cell)}</td>" for cell in row) + "</tr>"
            for row in reading_rows(reading)
        )
        verdict = reading.verdict
        # the caveat first, in the boxed warning colours, so a provisional claim is never read as settled
        caveat = f"<div class='gate'><b>{escape(verdict.caveat)}</b></div>" if verdict.caveat else ""
        blocks.append(
            f"<h2>{escape(reading.heading)}</h2>{caveat}<p><b>{escape(verdict.claim)}</b></p>"
            f"<table cellpadding=3><tr>{head}</tr>{rows}</table>"
        )
    return style() + "".join(blocks) + f"<p class='meta'>{escape(READING_CAPTION)}</p>"


class ReadingView(HtmlBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.readings: list[FineTuneReading] = []
        self.setHtml(reading_html([]))

    def show_readings(self, readings: list[FineTuneReading]) -> None:
        self.readings = list(readings)
        self.setHtml(reading_html(self.readings))
