"""The results view's Membership tab: the membership tests kept with the pass, in the
words and rows the PDF report prints (``gtreview.results.membership_text``)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gtreview.results.loader import RunResults
from gtreview.results.membership_text import MEMBERSHIP_HEADER, membership_of, membership_rows, membership_summary
from gtreview.ui.widgets.report_tab import ReportTab, fill_table

NO_MEMBERSHIP = (
    "No membership tests for this pass: gtreview probe --run ID --members GLOB... --held-out GLOB... names the "
    "documents the fine-tune was trained on and those held out, and keeps the tests with the pass."
)


class MembershipView(ReportTab):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(NO_MEMBERSHIP, parent)
        self.table = self.add_table(MEMBERSHIP_HEADER)

    def show_results(self, results: RunResults) -> None:
        report = membership_of(results)
        self.summary.setText(membership_summary(report) if report is not None else NO_MEMBERSHIP)
        self.readings.setText("\n".join(report.readings) if report is not None else "")
        self.readings.setVisible(bool(report is not None and report.readings))
        fill_table(self.table, membership_rows(report) if report is not None else [])
