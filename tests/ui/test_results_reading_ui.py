"""The results view's Reading tab and the PDF's reading pages say the same thing, and each
fine-tune's reading has a page of its own, right after the summary."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pypdf import PdfReader

from gtreview.results.reading import READING_CAPTION, READING_HEADER, reading_rows
from tests.ui.test_results_design_ui import run_three_model_pass
from tests.ui.waiting import settle


def _flat(text: str) -> str:
    return " ".join(text.split())


def _body(page: str) -> str:
    """A page's text after its running header and page number."""
    return re.sub(r"^Benchmark report: .*? page \d+ ", "", page, count=1)


def test_the_reading_reads_the_same_in_the_view_and_the_pdf(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    run_three_model_pass(qtbot, window, "reading pass")
    view = window.results_view
    qtbot.waitUntil(lambda: view.analysis is not None and bool(view.reading.readings), timeout=30000)
    settle(qtbot, window)
    readings = view.reading.readings
    assert [r.label for r in readings] == ["tuned", "other"]
    assert view.tables.tabText(view.tables.indexOf(view.reading)) == "Reading"
    view.tables.setCurrentWidget(view.reading)
    if os.environ.get("GTREVIEW_SCREENSHOTS"):  # to look at: GTREVIEW_SCREENSHOTS=DIR
        window.resize(1500, 1000)
        qtbot.wait(50)
        view.grab().save(str(Path(os.environ["GTREVIEW_SCREENSHOTS"]) / "reading_tab.png"))
    shown = _flat(view.reading.toPlainText())
    assert shown.index("Reading: tuned against base") < shown.index("Reading: other against base")

    out = tmp_path / "reading.pdf"
    window.export_report(out)
    qtbot.waitUntil(lambda: "Wrote" in window.statusBar().currentMessage(), timeout=60000)
    pages = [_flat(page.extract_text()) for page in PdfReader(str(out)).pages]
    first_design = next(i for i, page in enumerate(pages) if _body(page).startswith("Beyond the anchors"))
    for reading in readings:
        # the cover says the judge is not gated: the verdict is provisional, and says so first
        assert reading.verdict.text.startswith("Provisional: the judge is not gated")
        texts = [reading.heading, reading.verdict.caveat, reading.verdict.claim, *READING_HEADER]
        texts += [cell for row in reading_rows(reading) for cell in row]
        for text in texts:
            assert _flat(text) in shown, text
        # a page of its own that it starts (the contents name it too), the whole reading on it
        (page,) = [p for p in pages if _body(p).startswith(reading.heading)]
        for text in texts:
            assert _flat(text) in page, text
        assert pages.index(page) < first_design  # early: before the design figures
    assert _flat(READING_CAPTION) in shown
    summary = next(i for i, page in enumerate(pages) if "Summary Model Mean /10" in page)
    assert summary < next(i for i, page in enumerate(pages) if _body(page).startswith("Reading: tuned"))
