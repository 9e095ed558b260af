"""The report's section on inference that respects the design: the same tables and plain
readings the results view shows (both from ``gtreview.results.design_text``)."""

from __future__ import annotations

from gtreview.report.document import Heading, Paragraph, ReportDocument, Table
from gtreview.results.design import DesignFigures
from gtreview.results.design_text import design_readings, design_tables

DESIGN_HEADING = "Beyond the anchors: the design, the gate, the judge's taste for length"


def add_design_section(doc: ReportDocument, design: DesignFigures | None) -> None:
    if design is None:
        return
    doc.add(Heading(text=DESIGN_HEADING))
    doc.add(
        Paragraph(
            text="Questions drafted from one source report are not independent, nor are the repeats of one question, "
            "and a judge may prefer longer answers: these figures take each into account. Each reading states its "
            "interval level."
        )
    )
    for line in design_readings(design):
        doc.add(Paragraph(text=line))
    for table in design_tables(design):
        doc.add(Heading(text=table.title, level=2), Table(header=table.header, rows=table.rows, caption=table.caption))
