"""The Runs table says when each pass started, with which models and judge, for how long;
Enter opens the run; File > Export CSV… writes what `gtreview export csv` writes."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt

from gtreview.app.exports import export_csv
from gtreview.ui.widgets.runs_view import COLUMNS
from tests.ui.test_runs_ui import CONFIG, scripted_open
from tests.ui.waiting import settle


def _pass(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)


def test_the_runs_table_names_start_models_judge_and_duration_and_enter_opens_the_run(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    _pass(qtbot, window)
    window.show_runs()
    settle(qtbot, window)
    table = window.runs_view.table

    def cell(name: str) -> str:
        return str(table.item(0, COLUMNS.index(name)).text())

    started = datetime.strptime(cell("Started"), "%Y-%m-%d %H:%M")
    assert abs((datetime.now() - started).total_seconds()) < 3600  # local time, not UTC shown as local
    assert cell("Models") == "base, lora" and cell("Judge") == CONFIG.judge
    assert cell("Duration").endswith(" s")
    table.selectRow(0)
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert window.pages.currentWidget() is window.results_view and window.results.run_id == 1


def test_file_export_csv_writes_what_the_cli_writes(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    _pass(qtbot, window)
    window.show_results(1)
    settle(qtbot, window)
    assert "export_csv" in window.menu_actions
    out = tmp_path / "run-1.csv"
    window.export_csv(out)
    qtbot.waitUntil(out.exists, timeout=20000)
    settle(qtbot, window)
    expected = export_csv(window.project.engine, 1, tmp_path / "cli.csv")
    assert out.read_bytes() == expected.files[0].read_bytes()
    assert window.statusBar().currentMessage() == f"Wrote {out} ({expected.rows} rows)"
