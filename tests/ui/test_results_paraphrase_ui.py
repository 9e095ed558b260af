"""Paraphrase invariance reads the same in the results view's Paraphrase tab and in the PDF
report, and a pass without paraphrases says it was not measured in both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pypdf import PdfReader
from PySide6.QtCore import Qt

from gtreview.report.run_report import write_run_report
from gtreview.results.paraphrase_text import NOT_MEASURED, PARAPHRASE_HEADING
from gtreview.ui.widgets.results_view import ResultsView, sample_detail_html
from tests.results.test_paraphrase import Passes, paraphrase_project


@pytest.fixture(scope="module")
def passes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Passes]:
    with paraphrase_project(tmp_path_factory.mktemp("paraphrase-ui")) as (_project, loaded):
        yield loaded


def _flat(text: str) -> str:
    return " ".join(text.split())


def _pdf_text(path: Path) -> str:
    return _flat(" ".join(page.extract_text() for page in PdfReader(str(path)).pages))


def test_paraphrase_reads_the_same_in_the_view_and_the_pdf(qtbot, passes: Passes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plain, plain_analysis, results, analysis = passes
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_results(results, analysis, "")
    tab = view.paraphrase
    readings = tab.readings.text().splitlines()
    assert analysis.paraphrase is not None and readings == analysis.paraphrase.readings and len(readings) == 2
    assert not tab.table.isHidden() and tab.table.rowCount() == 5  # three models, two fine-tunes' extra drops
    cells = [tab.table.item(r, c).text() for r in range(tab.table.rowCount()) for c in range(tab.table.columnCount())]
    pdf = _pdf_text(write_run_report(results, analysis, tmp_path / "paraphrase.pdf"))
    assert PARAPHRASE_HEADING in pdf and _flat(tab.summary.text()) in pdf
    for line in readings:
        assert _flat(line) in pdf, line
    drop = next(cell for cell in cells if "[" in cell)
    assert drop in pdf  # a drop with its interval, the same in both
    per_question = tab.per_question
    assert per_question.rowCount() == 6 and per_question.item(0, 2).text() == "A1-p1, A1-p2"
    assert "A1-p1, A1-p2" in pdf  # the reworded questions are listed apart, in both

    assert "(and 7 paraphrased variants, apart)" in pdf  # the cover counts them apart from the questions
    table = view.samples.model  # every answer can be opened: the paraphrases' after the originals'
    assert table.samples == results.every_sample() and table.rowCount() == len(results.every_sample())
    reworded = results.paraphrase_samples[0]
    row = table.samples.index(reworded)
    tip = table.data(table.index(row, 0), Qt.ItemDataRole.ToolTipRole)
    assert reworded.qid == "A1-p1" and str(tip).startswith("(rewords A1)")
    assert "Put another way (1)" in sample_detail_html(results, reworded)

    view.show_results(plain, plain_analysis, "")
    assert tab.summary.text() == NOT_MEASURED and tab.table.isHidden() and tab.readings.isHidden()
    assert tab.per_question.isHidden() and tab.per_question_title.isHidden()
    assert NOT_MEASURED in _pdf_text(write_run_report(plain, plain_analysis, tmp_path / "plain.pdf"))


def test_in_a_small_pane_the_words_scroll_and_the_tables_keep_their_rows(qtbot, passes: Passes) -> None:  # type: ignore[no-untyped-def]
    """At 1280x720 a results tab is about 650x200: stacked plainly, the readings drew over
    each other and the tables shrank to a header with no row."""
    from gtreview.ui.widgets.paraphrase_view import ParaphraseView
    from gtreview.ui.widgets.report_tab import ROWS_ALWAYS_SHOWN

    analysis = passes[3]
    tab = ParaphraseView()
    qtbot.addWidget(tab)
    tab.resize(650, 200)
    tab.show_report(analysis.paraphrase)
    tab.show()
    qtbot.waitExposed(tab)
    for label in (tab.summary, tab.readings):  # each label gets the height its wrapped text needs
        assert label.height() >= label.heightForWidth(label.width()) > 0
    assert tab.summary.geometry().bottom() < tab.readings.geometry().top()  # one below the other, never over
    for table in (tab.table, tab.per_question):
        assert table.rowCount() >= ROWS_ALWAYS_SHOWN
        shown = table.viewport().height() // table.verticalHeader().defaultSectionSize()
        assert shown >= ROWS_ALWAYS_SHOWN, (table, shown)
