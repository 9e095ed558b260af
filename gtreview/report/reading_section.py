"""The report's reading pages: one page per fine-tune, the verdict first, then the evidence
it rests on, in the words and rows the results view's Reading tab shows (both from
``gtreview.results.reading``)."""

from __future__ import annotations

from gtreview.report.document import Heading, PageBreak, Paragraph, ReportDocument, Table
from gtreview.results.reading import READING_CAPTION, READING_HEADER, FineTuneReading, reading_rows


def add_reading_section(doc: ReportDocument, readings: list[FineTuneReading]) -> None:
    """Each reading on a page of its own, and whatever follows on the next."""
    for reading in readings:
        doc.add(
            PageBreak(),
            Heading(text=reading.heading),
            *([Paragraph(text=reading.verdict.caveat, style="alarm")] if reading.verdict.caveat else []),
            Paragraph(text=reading.verdict.claim, style="finding"),
            Table(header=READING_HEADER, rows=reading_rows(reading), widths=[1.3, 3.6, 3.1], caption=READING_CAPTION),
        )
    if readings:
        doc.add(PageBreak())
