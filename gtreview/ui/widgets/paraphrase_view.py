"""The results view's Paraphrase tab: the drop under paraphrase per model and component
kind, and per reworded question, in the words and rows the PDF report prints
(``gtreview.results.paraphrase_text``)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gtreview.results.paraphrase import ParaphraseReport
from gtreview.results.paraphrase_text import (
    NOT_MEASURED,
    PARAPHRASE_HEADER,
    PER_QUESTION_TITLE,
    paraphrase_question_header,
    paraphrase_question_rows,
    paraphrase_rows,
    paraphrase_summary,
)
from gtreview.ui.widgets.report_tab import ReportTab, fill_table


class ParaphraseView(ReportTab):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(NOT_MEASURED, parent)
        self.table = self.add_table(PARAPHRASE_HEADER)
        self.per_question_title = self.add_title(PER_QUESTION_TITLE)
        self.per_question = self.add_table(["Id", "Title", "Paraphrases"])

    def show_report(self, report: ParaphraseReport | None) -> None:
        measured = report is not None and bool(report.n_paraphrases)
        self.summary.setText(paraphrase_summary(report) if report is not None else NOT_MEASURED)
        self.readings.setText("\n".join(report.readings) if report is not None and measured else "")
        self.readings.setVisible(measured)
        fill_table(self.table, paraphrase_rows(report) if report is not None and measured else [], PARAPHRASE_HEADER)
        fill_table(
            self.per_question,
            paraphrase_question_rows(report) if report is not None and measured else [],
            paraphrase_question_header(report) if report is not None else [],
        )
        self.per_question_title.setVisible(measured)
