"""The app shows the one loader's figures: the results view, its status line, the Runs
view and the PDF exported from the app agree with ``run_figures`` and the CLI's cover,
before and after an expert override."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader

from gtreview.app.adjudicate import override_item
from gtreview.app.reports import report_cover
from gtreview.app.results import run_figures_of
from gtreview.core.wording import plural
from gtreview.results.analysis import fmt
from gtreview.results.counts import counts_text
from gtreview.results.loader import SampleStatus, load_run_results
from gtreview.ui.widgets.runs_view import COLUMNS
from tests.ui.test_runs_ui import CONFIG, scripted_open
from tests.ui.waiting import settle


def leaderboard_cells(view, run_id: int) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    table = view.leaderboard
    rows = {}
    for r in range(table.rowCount()):
        cells = [table.item(r, c).text() for c in range(table.columnCount())]
        if cells[0].startswith(f"{run_id}:"):
            rows[cells[1]] = cells
    return rows


def assert_view_agrees(window, run_id: int) -> None:  # type: ignore[no-untyped-def]
    engine = window.project.engine
    figures = run_figures_of(engine, run_id)
    cells = leaderboard_cells(window.results_view, run_id)
    assert set(cells) == {m.label for m in figures.models}
    for model in figures.models:
        row = cells[model.label]
        assert row[2] == f"{fmt(model.mean)} [{fmt(model.ci_low)}, {fmt(model.ci_high)}]"
        assert row[4] == counts_text(model)  # by the names the CSV, JSON and PDF use
    settled = sum(m.settled for m in figures.models)
    status = window.results_view.status.text()
    assert (f"{plural(settled, 'score')} settled by an expert" in status) == (settled > 0)
    counts = load_run_results(engine, run_id).record_counts()
    table = window.runs_view.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == str(run_id))
    shown = [table.item(row, COLUMNS.index(c)).text() for c in ("Answers", "Judgements", "Pairs")]
    assert shown == [str(counts["generations"]), str(counts["judgements"]), str(counts["pairs"])]


def test_the_app_shows_the_loaders_figures(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    window.show_results(1)
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.results_view, timeout=20000)
    settle(qtbot, window)
    assert_view_agrees(window, 1)

    engine = window.project.engine
    sample = next(
        s for s in load_run_results(engine, 1).samples if s.model == "lora" and s.status is SampleStatus.SCORED
    )
    override_item(
        engine, 1, sample.judgement_key, actor="geologist", reason="gate met", gate_passed=True, awards={"C2": 3}
    )
    window.show_results(1)
    settle(qtbot, window)
    assert "1 score settled by an expert" in window.results_view.status.text()
    assert_view_agrees(window, 1)

    out = tmp_path / "app.pdf"
    window.export_report(out)
    qtbot.waitUntil(out.exists, timeout=30000)
    settle(qtbot, window)
    cover = report_cover(engine, load_run_results(engine, 1))
    first_page = PdfReader(str(out)).pages[0].extract_text()
    assert cover.set_name and cover.set_name in first_page and cover.signoff in first_page
    assert "(rubric file)" not in first_page
