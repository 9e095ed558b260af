"""The report's section on the membership tests: the same words and rows the results
view shows (both from ``gtreview.results.membership_text``)."""

from __future__ import annotations

from gtreview.report.document import Heading, Paragraph, ReportDocument, Table
from gtreview.results.loader import RunResults
from gtreview.results.membership_text import (
    MEMBERSHIP_HEADER,
    MEMBERSHIP_HEADING,
    membership_of,
    membership_rows,
    membership_summary,
)


def add_membership_section(doc: ReportDocument, results: RunResults) -> None:
    report = membership_of(results)
    if report is None:
        return
    doc.add(Heading(text=MEMBERSHIP_HEADING), Paragraph(text=membership_summary(report)))
    for line in report.readings:
        doc.add(Paragraph(text=line))
    doc.add(Table(header=MEMBERSHIP_HEADER, rows=membership_rows(report), widths=[1.4, 1.3, 1.3, 1.3, 4.5]))
