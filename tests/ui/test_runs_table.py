"""The Runs table says when each pass started, with which models and judge, for how long;
Enter opens the run; File > Export CSV… writes what `gtreview export csv` writes."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt

from gtreview.app.exports import export_csv
from gtreview.app.results import RunSummary
from gtreview.store.runs_repo import RunSource, RunStatus
from gtreview.ui.widgets.runs_view import COLUMNS, WIDEST_TEXT_COLUMN, RunsView
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


def test_a_long_judge_spec_is_its_file_name_and_a_starting_pass_is_said(qtbot) -> None:  # type: ignore[no-untyped-def]
    """At 1280x720 a judge spec with its path and options pushed the counts off-screen; and
    right after the Run dialog the view said "No passes yet" while the pass was starting."""
    view = RunsView()
    qtbot.addWidget(view)
    view.started("tiny")
    assert view.empty.isVisibleTo(view) and view.empty.text() == "Starting a pass…"
    view.show_runs([])
    assert view.empty.text() == "Starting a pass…"  # the run is not stored yet
    spec = "llama:/root/.cache/gtreview/models/" + "SmolLM2-135M-Instruct-" * 4 + "Q4_1.gguf?n_gpu_layers=-1"
    summary = RunSummary(
        id=1,
        name="tiny",
        source=RunSource.PASS,
        status=RunStatus.STOPPED,
        set_id=1,
        generations=3,
        judgements=0,
        pairs=0,
        judge=spec,
        ran_s=38 * 60 + 5,
    )
    view.show_runs([summary])
    judge = view.table.item(0, COLUMNS.index("Judge"))
    assert judge.text() == "SmolLM2-135M-Instruct-" * 4 + "Q4_1.gguf" and judge.toolTip() == spec
    assert view.table.columnWidth(COLUMNS.index("Judge")) <= WIDEST_TEXT_COLUMN
    assert view.table.item(0, COLUMNS.index("Duration")).text() == "38 min 05 s"


def test_passes_have_keys_and_export_csv_takes_the_run_selected_in_runs(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """F5 resumes, Shift+F5 cancels, Ctrl+Shift+E exports the CSV, Ctrl+0 reaches the navigator
    (all on the F1 sheet, none twice); Export CSV from Runs writes the selected run's CSV."""
    from gtreview.ui.menus import _every_key, shortcut_sheet_html

    window = sample_window
    actions = window.menu_actions
    keys = {"resume_pass": "F5", "cancel_pass": "Shift+F5", "export_csv": "Ctrl+Shift+E", "navigator": "Ctrl+0"}
    for name, key in keys.items():
        assert actions[name].shortcut().toString() == key
    every = [a.shortcut().toString() for a in _every_key(window, actions).values() if not a.shortcut().isEmpty()]
    assert len(every) == len(set(every)), sorted(k for k in every if every.count(k) > 1)
    sheet = shortcut_sheet_html(_every_key(window, actions))
    assert all(text in sheet for text in ("Resume the selected pass", "Cancel the pass", "Export CSV", "Navigator"))
    assert "&R" not in window.runs_view.resume_button.text()  # Alt+R is the Review menu
    window.show()
    qtbot.waitExposed(window)
    actions["navigator"].trigger()
    assert window.navigator.hasFocus()
    _pass(qtbot, window)
    window.show_runs()
    settle(qtbot, window)
    window.runs_view.select_run(1)
    assert window.results.run_id is None  # no results page was opened
    out = tmp_path / "from-runs.csv"
    window.export_csv(out)
    qtbot.waitUntil(out.exists, timeout=20000)
    assert out.read_bytes() == export_csv(window.project.engine, 1, tmp_path / "cli.csv").files[0].read_bytes()
