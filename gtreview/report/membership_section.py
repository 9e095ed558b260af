"""The report's section on the membership tests: the same words, rows and ROC curve the
results view shows (all from ``gtreview.results.membership_text``)."""

from __future__ import annotations

from gtreview.report.document import CurveChart, CurveSeries, Heading, Paragraph, ReportDocument, Table
from gtreview.results.loader import RunResults
from gtreview.results.membership_text import (
    MEMBERSHIP_HEADER,
    MEMBERSHIP_HEADING,
    ROC_X_LABEL,
    ROC_Y_LABEL,
    membership_of,
    membership_rows,
    membership_summary,
    roc_series,
    roc_signal,
    roc_title,
)


def add_membership_section(doc: ReportDocument, results: RunResults) -> None:
    report = membership_of(results)
    if report is None:
        return
    doc.add(Heading(text=MEMBERSHIP_HEADING), Paragraph(text=membership_summary(report)))
    for line in report.readings:
        doc.add(Paragraph(text=line))
    doc.add(Table(header=MEMBERSHIP_HEADER, rows=membership_rows(report), widths=[1.3, 1.3, 1.2, 1.3, 1.3, 1.1, 3.6]))
    signal = roc_signal(report)  # the signal the readings lean on (a report kept before ROCs has none)
    if signal is not None:
        series = [CurveSeries(name=s.label, points=s.points, dashed=s.is_base) for s in roc_series(report, signal)]
        doc.add(CurveChart(title=roc_title(signal), x_label=ROC_X_LABEL, y_label=ROC_Y_LABEL, series=series))
