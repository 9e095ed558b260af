"""The results view's sample table: one row per sample of the one loader, filters, keyboard,
the answer with its verdicts and reasons, and the same 1-based sample numbers as the PDF."""

from __future__ import annotations

import re
from pathlib import Path

from pypdf import PdfReader
from PySide6.QtCore import Qt

from gtreview.inference.backend import CompletionRequest, CompletionResult
from gtreview.results.loader import SampleStatus, load_run_results
from gtreview.ui.models.sample_table import SAMPLE_ROLE
from tests.judging.scripted import ScriptedBackend
from tests.ui.test_runs_ui import CONFIG, scripted_open
from tests.ui.waiting import settle


def failing_open(window):  # type: ignore[no-untyped-def]
    """The scripted pass, except that the base's second answer to A1 fails (an empty output)."""
    scripted = scripted_open(window)

    def open_backend(spec: str) -> ScriptedBackend:
        backend = scripted(spec)
        if not spec.startswith("openai:http://base"):
            return backend

        def answer(request: CompletionRequest) -> CompletionResult:
            if request.sampling.seed % 1000 == 2 and "saddle reef" in request.messages[-1].content.lower():
                return CompletionResult(text="")
            return CompletionResult(text="An answer about saddle reefs.", completion_tokens=7)

        return ScriptedBackend(answer, spec=spec)

    return open_backend


def _shown(qtbot, window, open_backend) -> None:  # type: ignore[no-untyped-def]
    window.run_controller.open_backend = open_backend
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    window.show_results(1)
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.results_view, timeout=20000)
    settle(qtbot, window)


def _rows(table) -> list[list[str]]:  # type: ignore[no-untyped-def]
    proxy = table.proxy
    return [[str(proxy.index(r, c).data()) for c in range(proxy.columnCount())] for r in range(proxy.rowCount())]


def test_sample_table_lists_the_loaders_samples_and_opens_each(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    _shown(qtbot, window, scripted_open(window))
    results = load_run_results(window.project.engine, 1)
    table = window.results_view.samples
    assert table.model.rowCount() == len(results.samples) == 40
    assert [table.model.headerData(c, Qt.Orientation.Horizontal) for c in range(6)] == [
        "Question",
        "Model",
        "Sample",
        "Score",
        "Gate",
        "Status",
    ]
    shown = {(row[0], row[1], int(row[2])) for row in _rows(table)}
    assert shown == {(s.qid, s.model, s.sample_index + 1) for s in results.samples}  # numbered from 1
    assert {row[2] for row in _rows(table)} == {"1", "2"}

    table.model_choice.setCurrentIndex(table.model_choice.findData("lora"))
    table.model_choice.activated.emit(table.model_choice.currentIndex())
    assert table.proxy.rowCount() == sum(s.model == "lora" for s in results.samples) == 20
    table.search.setText("A1")
    assert {row[0] for row in _rows(table)} == {"A1"} and table.proxy.rowCount() == 2
    assert table.count.text() == "2 of 40 samples"
    table.search.clear()
    table.status_choice.setCurrentIndex(table.status_choice.findData("error"))
    table.status_choice.activated.emit(table.status_choice.currentIndex())
    assert table.proxy.rowCount() == 0
    table.status_choice.setCurrentIndex(0)
    table.status_choice.activated.emit(0)

    table.view.setFocus()
    qtbot.keyClick(table.view, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    first = table.current_sample()
    assert first is not None and first.model == "lora"
    detail = window.results_view.comparison.toPlainText()
    assert f"lora — sample {first.sample_index + 1} — scored" in detail
    assert "An answer about saddle reefs." in detail and "The judge's reason" in detail
    qtbot.keyClick(table.view, Qt.Key.Key_Down)
    second = table.current_sample()
    assert second is not None and (second.qid, second.sample_index) != (first.qid, first.sample_index)
    assert f"sample {second.sample_index + 1}" in window.results_view.comparison.toPlainText()
    assert "base: A=B" in window.results_view.comparison.toPlainText()  # its pairwise verdict too


def test_sample_numbers_in_the_app_and_the_pdf_agree(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    _shown(qtbot, window, failing_open(window))
    results = load_run_results(window.project.engine, 1)
    (failed,) = [s for s in results.samples if s.status is SampleStatus.ERROR]
    assert failed.sample_index == 1
    table = window.results_view.samples
    table.status_choice.setCurrentIndex(table.status_choice.findData("error"))
    table.status_choice.activated.emit(table.status_choice.currentIndex())
    (row,) = _rows(table)
    assert row[:3] == [failed.qid, "base", "2"] and row[5] == "error"
    assert table.proxy.index(0, 0).data(SAMPLE_ROLE) == failed

    out = tmp_path / "app.pdf"
    window.export_report(out)
    qtbot.waitUntil(out.exists, timeout=30000)
    settle(qtbot, window)
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(str(out)).pages)
    failures = text[text.rindex("Failures and unscored items") :]
    match = re.search(rf"base {failed.qid} (\d+) error", failures)
    assert match is not None and match.group(1) == row[2]
