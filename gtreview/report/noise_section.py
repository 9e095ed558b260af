"""The report's section on judge noise apart from model noise: the same words and rows the
results view's Noise tab shows (both from ``gtreview.results.noise_text``)."""

from __future__ import annotations

from gtreview.report.document import Heading, Paragraph, ReportDocument, Table
from gtreview.results.noise import NoiseReport
from gtreview.results.noise_text import noise_text


def add_noise_section(doc: ReportDocument, noise: NoiseReport | None) -> None:
    if noise is None:
        return
    text = noise_text(noise)
    doc.add(Heading(text=text.heading), Paragraph(text=text.summary))
    for line in text.readings:
        doc.add(Paragraph(text=line))
    if text.rows:
        doc.add(
            Table(header=text.header, rows=text.rows, caption=text.caption, widths=[1.4, 1.0, 1.0, 1.4, 1.4, 1.0, 1.0])
        )
