"""The report's section on paraphrase invariance: the same words and rows the results view
shows (both from ``gtreview.results.paraphrase_text``)."""

from __future__ import annotations

from gtreview.report.document import Heading, Paragraph, ReportDocument, Table
from gtreview.results.paraphrase import ParaphraseReport
from gtreview.results.paraphrase_text import (
    PARAPHRASE_HEADER,
    PARAPHRASE_HEADING,
    PER_QUESTION_TITLE,
    paraphrase_question_header,
    paraphrase_question_rows,
    paraphrase_rows,
    paraphrase_summary,
)


def add_paraphrase_section(doc: ReportDocument, report: ParaphraseReport | None) -> None:
    if report is None:
        return
    doc.add(Heading(text=PARAPHRASE_HEADING), Paragraph(text=paraphrase_summary(report)))
    if not report.n_paraphrases:
        return  # the summary says it was not measured; no empty table
    for line in report.readings:
        doc.add(Paragraph(text=line))
    doc.add(Table(header=PARAPHRASE_HEADER, rows=paraphrase_rows(report), widths=[1.6, 1.5, 1.5, 1.6, 1.6, 0.8]))
    doc.add(
        Heading(text=PER_QUESTION_TITLE, level=2),
        Table(
            header=paraphrase_question_header(report),
            rows=paraphrase_question_rows(report),
            widths=[0.6, 2.6, 1.4, *[1.0] * len(report.models)],
        ),
    )
